// The C API, every function with its success and error paths. Physics through it is checked
// against the same closed forms as the C++ API (free fall, first contact, weight at rest).
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "approx.hpp"
#include "hybridsim/hybridsim.h"

namespace {

using hybridsim::testing::relative;

std::string message(const hybridsim_simulator* sim) {
  return hybridsim_error_message(sim);
}

// A steel ball over a steel half-space with a force input; h = 1 m of free fall.
const char* const kScene = R"(name: c_api
simulation: {stop_time: 2.0, rtol: 1.0e-9}
materials:
  Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}
contact_materials:
  - {pair: [Steel, Steel], restitution: 0.5, friction: {mu_kinetic: 0.3}}
bodies:
  - {name: ground, fixed: true, shapes: [{name: floor, type: halfspace, material: Steel}]}
  - {name: ball, position: [0, 0, 1.1], shapes: [{name: s, type: sphere, radius: 0.1, material: Steel}]}
inputs:
  - {name: push, target: {body: ball}, signal: {constant: [0, 0, 0]}}
)";

TEST_CASE("c api: version, status strings, handles and NULL arguments") {
  CHECK(std::string(hybridsim_version()) == HYBRIDSIM_VERSION_STRING);
  CHECK(hybridsim_version_number() == HYBRIDSIM_VERSION_NUMBER);
  for (int s = HYBRIDSIM_OK; s <= HYBRIDSIM_ERROR_INTERNAL; ++s) {
    CHECK(std::string(hybridsim_status_string(static_cast<hybridsim_status>(s))) !=
          "unknown status");
  }
  // A value outside the enum, as a C caller could pass (memcpy: no conversion warning).
  hybridsim_status unknown;
  const int raw = 99;
  std::memcpy(&unknown, &raw, sizeof unknown);
  CHECK(std::string(hybridsim_status_string(unknown)) == "unknown status");
  hybridsim_free(nullptr);
  CHECK(message(nullptr).find("NULL") != std::string::npos);
  double t = 0.0;
  CHECK(hybridsim_load_file(nullptr, "x") == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_advance_to(nullptr, 1.0, 0, &t) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_get_time(nullptr, &t) == HYBRIDSIM_ERROR_NULL);

  hybridsim_simulator* sim = hybridsim_create();
  REQUIRE(sim != nullptr);
  CHECK(message(sim).empty());
  // Nothing loaded yet: every simulation call is a state error.
  size_t n = 0;
  CHECK(hybridsim_advance_to(sim, 1.0, 0, &t) == HYBRIDSIM_ERROR_STATE);
  CHECK(message(sim) == "no scene loaded");
  CHECK(hybridsim_step(sim, &t) == HYBRIDSIM_ERROR_STATE);
  CHECK(hybridsim_get_time(sim, &t) == HYBRIDSIM_ERROR_STATE);
  CHECK(hybridsim_get_state_size(sim, &n) == HYBRIDSIM_ERROR_STATE);
  CHECK(hybridsim_get_event_count(sim, &n) == HYBRIDSIM_ERROR_STATE);
  CHECK(hybridsim_clear_events(sim) == HYBRIDSIM_ERROR_STATE);
  CHECK(hybridsim_get_contact_count(sim, &n) == HYBRIDSIM_ERROR_STATE);
  // NULL arguments name themselves.
  CHECK(hybridsim_load_file(sim, nullptr) == HYBRIDSIM_ERROR_NULL);
  CHECK(message(sim) == "path_or_name is NULL");
  CHECK(hybridsim_load_string(sim, nullptr, "x") == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_set_option(sim, nullptr, "1") == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_set_option(sim, "rtol", nullptr) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_add_override(sim, nullptr) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_get_time(sim, nullptr) == HYBRIDSIM_ERROR_NULL);
  hybridsim_free(sim);
}

TEST_CASE("c api: options and overrides, and the errors of bad ones and bad scenes") {
  hybridsim_simulator* sim = hybridsim_create();
  CHECK(hybridsim_set_option(sim, "integrator", "cvode-adams") == HYBRIDSIM_OK);
  CHECK(hybridsim_set_option(sim, "integrator", "no-such") == HYBRIDSIM_ERROR_INPUT);
  CHECK(message(sim).find("no-such") != std::string::npos);
  for (const char* key : {"rtol", "atol", "stop_time", "output_interval", "max_step"}) {
    CHECK(hybridsim_set_option(sim, key, "0.5") == HYBRIDSIM_OK);
  }
  CHECK(hybridsim_set_option(sim, "rtol", "1e-9") == HYBRIDSIM_OK);
  CHECK(hybridsim_set_option(sim, "atol", "1e-11") == HYBRIDSIM_OK);
  CHECK(hybridsim_set_option(sim, "max_step", "1") == HYBRIDSIM_OK);
  CHECK(hybridsim_set_option(sim, "rtol", "fast") == HYBRIDSIM_ERROR_INPUT);
  CHECK(message(sim).find("fast") != std::string::npos);
  CHECK(hybridsim_set_option(sim, "speed", "1") == HYBRIDSIM_ERROR_NOT_FOUND);
  CHECK(hybridsim_add_override(sim, "no equals sign") == HYBRIDSIM_ERROR_INPUT);
  // A missing file and a bad scene: the message names the file, the key and the value.
  CHECK(hybridsim_load_file(sim, "/no/such/scene.yaml") == HYBRIDSIM_ERROR_INPUT);
  CHECK(message(sim).find("/no/such/scene.yaml") != std::string::npos);
  CHECK(hybridsim_load_string(sim,
                              "name: x\nbodies: [{name: b, shapes: [{type: sphere, radius: "
                              "-1, material: Steel}]}]\n",
                              "bad.yaml") == HYBRIDSIM_ERROR_INPUT);
  CHECK(message(sim).find("bad.yaml") != std::string::npos);
  CHECK(message(sim).find("radius") != std::string::npos);
  CHECK(hybridsim_load_string(sim, "name: [", nullptr) == HYBRIDSIM_ERROR_INPUT);
  CHECK(message(sim).find("<string>") != std::string::npos);
  CHECK(hybridsim_add_override(sim, "bodies.ball.position=[0, 0, 2.1]") == HYBRIDSIM_OK);
  // Loaded with the override (dropped from 2 m) and the options; options are then frozen.
  REQUIRE(hybridsim_load_string(sim, kScene, "c_api.yaml") == HYBRIDSIM_OK);
  CHECK(message(sim).empty());
  CHECK(hybridsim_set_option(sim, "rtol", "1e-6") == HYBRIDSIM_ERROR_STATE);
  double t = 0.0;
  // First contact after h = 2 m of free fall: sqrt(2h/g); rtol 1e-9 (Adams): 1e-7 relative.
  REQUIRE(hybridsim_advance_to(sim, 1.0, 1, &t) == HYBRIDSIM_OK);
  CHECK(t == relative(std::sqrt(4.0 / 9.81), 1e-7));
  hybridsim_free(sim);
  // The catalog scene by name.
  sim = hybridsim_create();
  CHECK(hybridsim_load_file(sim, "bouncing_sphere") == HYBRIDSIM_OK);
  hybridsim_free(sim);
}

TEST_CASE("c api: advancing, states, events, contacts and inputs") {
  hybridsim_simulator* sim = hybridsim_create();
  REQUIRE(hybridsim_load_string(sim, kScene, "c_api.yaml") == HYBRIDSIM_OK);
  double t = -1.0;
  CHECK(hybridsim_get_time(sim, &t) == HYBRIDSIM_OK);
  CHECK(t == 0.0);
  CHECK(hybridsim_step(sim, &t) == HYBRIDSIM_OK);
  CHECK(t > 0.0);
  CHECK(hybridsim_step(sim, nullptr) == HYBRIDSIM_OK);
  // Free fall to t = 0.3 s: z = 1.1 - g t^2/2 (rtol 1e-9: 1e-8 relative).
  REQUIRE(hybridsim_advance_to(sim, 0.3, 0, nullptr) == HYBRIDSIM_OK);
  hybridsim_body_state ball{};
  ball.size = sizeof ball;
  CHECK(hybridsim_get_body_state(sim, "ball", &ball) == HYBRIDSIM_OK);
  CHECK(ball.position[2] == relative(1.1 - 9.81 * 0.09 / 2.0, 1e-8));
  CHECK(ball.linear_velocity[2] == relative(-9.81 * 0.3, 1e-8));
  CHECK(ball.orientation[0] == 1.0);
  CHECK(hybridsim_get_body_state(sim, "nobody", &ball) == HYBRIDSIM_ERROR_NOT_FOUND);
  CHECK(message(sim).find("nobody") != std::string::npos);
  CHECK(hybridsim_get_body_state(sim, "ball", nullptr) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_advance_to(sim, 0.1, 0, &t) == HYBRIDSIM_ERROR_INPUT);  // backwards
  CHECK(hybridsim_advance_to(sim, NAN, 0, &t) == HYBRIDSIM_ERROR_INPUT);

  size_t n = 0;
  CHECK(hybridsim_get_state_size(sim, &n) == HYBRIDSIM_OK);
  CHECK(n == 13);
  CHECK(hybridsim_get_state_size(sim, nullptr) == HYBRIDSIM_ERROR_NULL);
  double x[13];
  CHECK(hybridsim_get_state(sim, x, 12) == HYBRIDSIM_ERROR_BUFFER);
  CHECK(hybridsim_get_state(sim, nullptr, 13) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_get_state(sim, x, 13) == HYBRIDSIM_OK);
  CHECK(x[2] == ball.position[2]);
  double energy = 0.0;
  CHECK(hybridsim_get_energy(sim, &energy) == HYBRIDSIM_OK);
  CHECK(hybridsim_get_energy(sim, nullptr) == HYBRIDSIM_ERROR_NULL);

  // Inputs: read, set (a time event), unknown names and NULL values.
  double push[3] = {1, 1, 1};
  CHECK(hybridsim_get_input(sim, "push", push) == HYBRIDSIM_OK);
  CHECK(push[0] == 0.0);
  const double sideways[3] = {2.0, 0.0, 0.0};
  CHECK(hybridsim_set_input(sim, "push", sideways) == HYBRIDSIM_OK);
  CHECK(hybridsim_get_input(sim, "push", push) == HYBRIDSIM_OK);
  CHECK(push[0] == 2.0);
  CHECK(hybridsim_set_input(sim, "pull", sideways) == HYBRIDSIM_ERROR_NOT_FOUND);
  CHECK(hybridsim_set_input(sim, "push", nullptr) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_get_input(sim, "push", nullptr) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_get_input(sim, nullptr, push) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_release_input(sim, "pull") == HYBRIDSIM_ERROR_NOT_FOUND);
  // The force acts for 0.1 s on m = 8000 * 4/3 pi 0.1^3 kg: v_x = F t / m (1e-8 relative).
  REQUIRE(hybridsim_advance_to(sim, 0.4, 0, nullptr) == HYBRIDSIM_OK);
  CHECK(hybridsim_release_input(sim, "push") == HYBRIDSIM_OK);
  CHECK(hybridsim_get_body_state(sim, "ball", &ball) == HYBRIDSIM_OK);
  const double mass = 8000.0 * 4.0 / 3.0 * M_PI * 1e-3;
  CHECK(ball.linear_velocity[0] == relative(2.0 * 0.1 / mass, 1e-8));

  // Events: the two input changes, then contacts; by index, with an out-of-range error.
  REQUIRE(hybridsim_advance_to(sim, 2.0, 0, &t) == HYBRIDSIM_OK);
  CHECK(t == 2.0);
  CHECK(hybridsim_get_event_count(sim, &n) == HYBRIDSIM_OK);
  REQUIRE(n >= 4);
  hybridsim_event event{};
  event.size = sizeof event;
  CHECK(hybridsim_get_event(sim, 0, &event) == HYBRIDSIM_OK);
  CHECK(event.kind == HYBRIDSIM_EVENT_TIME_EVENT);
  CHECK(event.t == relative(0.3, 1e-15));
  CHECK(std::string(event.description).find("push") != std::string::npos);
  CHECK(hybridsim_get_event(sim, 2, &event) == HYBRIDSIM_OK);
  CHECK(event.kind == HYBRIDSIM_EVENT_CONTACT_START);
  CHECK(std::string(event.shape_a) == "ground/floor");
  CHECK(std::string(event.shape_b) == "ball/s");
  CHECK(event.normal[2] == relative(1.0, 1e-12));
  CHECK(hybridsim_get_event(sim, n, &event) == HYBRIDSIM_ERROR_NOT_FOUND);
  CHECK(hybridsim_get_event(sim, 0, nullptr) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_clear_events(sim) == HYBRIDSIM_OK);
  CHECK(hybridsim_get_event_count(sim, &n) == HYBRIDSIM_OK);
  CHECK(n == 0);

  // Statistics.
  hybridsim_statistics stats{};
  stats.size = sizeof stats;
  CHECK(hybridsim_get_statistics(sim, &stats) == HYBRIDSIM_OK);
  CHECK(stats.steps > 0);
  CHECK(stats.rhs_evals >= stats.steps);
  CHECK(stats.time_events == 2);
  CHECK(stats.contact_starts >= 1);
  CHECK(stats.t == 2.0);
  CHECK(stats.simulation_status == HYBRIDSIM_SIMULATION_OK);
  CHECK(hybridsim_get_statistics(sim, nullptr) == HYBRIDSIM_ERROR_NULL);

  // Contacts: run on until the ball rests; one contact carries its weight m g (1e-6).
  REQUIRE(hybridsim_advance_to(sim, 6.0, 0, nullptr) == HYBRIDSIM_OK);
  CHECK(hybridsim_get_contact_count(sim, &n) == HYBRIDSIM_OK);
  REQUIRE(n == 1);
  hybridsim_contact contact{};
  contact.size = sizeof contact;
  CHECK(hybridsim_get_contact(sim, 0, &contact) == HYBRIDSIM_OK);
  CHECK(contact.normal_force == relative(mass * 9.81, 1e-6));
  CHECK(std::string(contact.shape_b) == "ball/s");
  CHECK(contact.penetration > 0.0);
  CHECK(hybridsim_get_contact(sim, 1, &contact) == HYBRIDSIM_ERROR_NOT_FOUND);
  CHECK(hybridsim_get_contact(sim, 0, nullptr) == HYBRIDSIM_ERROR_NULL);
  CHECK(hybridsim_get_contact_count(sim, nullptr) == HYBRIDSIM_ERROR_NULL);
  hybridsim_free(sim);
}

TEST_CASE("c api: stick and slip events, and the holding force of a sticking patch") {
  // Drake's push ramp with true stiction (the catalog's push_ramp_stick_slip): P = t N on a 1 kg
  // box, mu_s = 0.5, mu_k = 0.3. At 3 s it is stuck, held by exactly the push (1e-9 relative:
  // the multipliers' accuracy, as in tests/physics/stick_slip_test.cpp); it breaks away at
  // mu_s m g = 4.905 s and sticks again at 13.0499159021 s (the scene's closed form, 1e-8 s).
  hybridsim_simulator* sim = hybridsim_create();
  REQUIRE(hybridsim_load_file(sim, "push_ramp_stick_slip") == HYBRIDSIM_OK);
  REQUIRE(hybridsim_advance_to(sim, 3.0, 0, nullptr) == HYBRIDSIM_OK);
  size_t n = 0;
  REQUIRE(hybridsim_get_contact_count(sim, &n) == HYBRIDSIM_OK);
  REQUIRE(n == 4);  // the box's four corners
  double friction_x = 0.0;
  for (size_t i = 0; i < n; ++i) {
    hybridsim_contact contact{};
    contact.size = sizeof contact;
    REQUIRE(hybridsim_get_contact(sim, i, &contact) == HYBRIDSIM_OK);
    friction_x += std::string(contact.shape_b).starts_with("box") ? contact.friction_force[0]
                                                                  : -contact.friction_force[0];
  }
  CHECK(friction_x == relative(-3.0, 1e-9));
  REQUIRE(hybridsim_advance_to(sim, 14.0, 0, nullptr) == HYBRIDSIM_OK);
  REQUIRE(hybridsim_get_event_count(sim, &n) == HYBRIDSIM_OK);
  std::vector<hybridsim_event> switches;
  for (size_t i = 0; i < n; ++i) {
    hybridsim_event event{};
    event.size = sizeof event;
    REQUIRE(hybridsim_get_event(sim, i, &event) == HYBRIDSIM_OK);
    if (event.kind == HYBRIDSIM_EVENT_STICK || event.kind == HYBRIDSIM_EVENT_SLIP) {
      switches.push_back(event);
    }
  }
  REQUIRE(switches.size() == 3);  // stuck at the start, the break-away, the stop
  CHECK(switches[0].kind == HYBRIDSIM_EVENT_STICK);
  CHECK(switches[0].t == 0.0);
  CHECK(switches[1].kind == HYBRIDSIM_EVENT_SLIP);
  CHECK(std::abs(switches[1].t - 4.905) < 1e-9);
  CHECK(switches[2].kind == HYBRIDSIM_EVENT_STICK);
  CHECK(std::abs(switches[2].t - 13.0499159021) < 1e-8);
  CHECK(switches[1].normal[2] == relative(1.0, 1e-12));
  hybridsim_statistics stats{};
  stats.size = sizeof stats;
  REQUIRE(hybridsim_get_statistics(sim, &stats) == HYBRIDSIM_OK);
  CHECK(stats.stick_slip_switches == 3);
  hybridsim_free(sim);
}

TEST_CASE("c api: a numerical stop is HYBRIDSIM_ERROR_HALTED and keeps the state") {
  // A tiny, nearly elastic ball whose bounces accumulate (v_small far below the impact speeds)
  // trips the Zeno guard at 1000 events per second; the last state stays readable.
  hybridsim_simulator* sim = hybridsim_create();
  for (const char* o :
       {"contact_materials.0.restitution=0.9", "contact_materials.0.v_small=1e-7",
        "bodies.ball.shapes.sphere.radius=0.005", "bodies.ball.position=[0, 0, 1.005]",
        "contact.max_events_per_second=1000"}) {
    REQUIRE(hybridsim_add_override(sim, o) == HYBRIDSIM_OK);
  }
  REQUIRE(hybridsim_set_option(sim, "stop_time", "20") == HYBRIDSIM_OK);
  REQUIRE(hybridsim_load_file(sim, "bouncing_sphere") == HYBRIDSIM_OK);
  double t = 0.0;
  CHECK(hybridsim_advance_to(sim, 20.0, 0, &t) == HYBRIDSIM_ERROR_HALTED);
  CHECK(t < 20.0);
  CHECK(message(sim).find("Zeno guard") != std::string::npos);
  hybridsim_statistics stats{};
  stats.size = sizeof stats;
  CHECK(hybridsim_get_statistics(sim, &stats) == HYBRIDSIM_OK);
  CHECK(stats.simulation_status == HYBRIDSIM_SIMULATION_ZENO_GUARD);
  CHECK(stats.t == t);
  hybridsim_body_state ball{};
  ball.size = sizeof ball;
  CHECK(hybridsim_get_body_state(sim, "ball", &ball) == HYBRIDSIM_OK);
  CHECK(std::isfinite(ball.position[2]));
  double again = 0.0;
  CHECK(hybridsim_advance_to(sim, 20.0, 0, &again) == HYBRIDSIM_ERROR_HALTED);
  CHECK(again == t);
  CHECK(hybridsim_step(sim, &again) == HYBRIDSIM_ERROR_HALTED);
  hybridsim_free(sim);
}

TEST_CASE("c api: versioned structs are filled as far as the caller's size reaches") {
  hybridsim_simulator* sim = hybridsim_create();
  REQUIRE(hybridsim_load_string(sim, kScene, "sized.yaml") == HYBRIDSIM_OK);
  double t = 0.0;
  REQUIRE(hybridsim_advance_to(sim, 0.5, 0, &t) == HYBRIDSIM_OK);
  hybridsim_statistics full{};
  full.size = sizeof full;
  REQUIRE(hybridsim_get_statistics(sim, &full) == HYBRIDSIM_OK);
  CHECK(full.size == sizeof full);
  CHECK(full.steps > 0);
  CHECK(full.t == 0.5);
  // A host built when the struct ended before `t`: the fields beyond its size are not written.
  hybridsim_statistics older{};
  older.size = offsetof(hybridsim_statistics, t);
  older.t = -7.0;
  older.bilateral_switches = -7;
  REQUIRE(hybridsim_get_statistics(sim, &older) == HYBRIDSIM_OK);
  CHECK(older.steps == full.steps);
  CHECK(older.restarts == full.restarts);
  CHECK(older.t == -7.0);
  CHECK(older.bilateral_switches == -7);
  // A size left at zero is refused, naming the field.
  hybridsim_body_state unset{};
  CHECK(hybridsim_get_body_state(sim, "ball", &unset) == HYBRIDSIM_ERROR_INPUT);
  CHECK(message(sim).find("state->size = 0") != std::string::npos);
  hybridsim_free(sim);
}

TEST_CASE("c api: warnings reach the callback as raised, and stay readable") {
  // The ball of kScene started 5 mm inside the half-space: an initial_overlap warning at t = 0,
  // given to the callback during the first advance.
  struct Seen {
    int calls = 0;
    std::string kind, message;
  } seen;
  hybridsim_simulator* sim = hybridsim_create();
  REQUIRE(hybridsim_set_warning_callback(
              sim,
              [](double t, const char* kind, const char* text, void* user) {
                auto* s = static_cast<Seen*>(user);
                ++s->calls;
                s->kind = kind;
                s->message = text;
                CHECK(t == 0.0);
              },
              &seen) == HYBRIDSIM_OK);
  REQUIRE(hybridsim_add_override(sim, "bodies.ball.position=[0, 0, 0.095]") == HYBRIDSIM_OK);
  REQUIRE(hybridsim_load_string(sim, kScene, "overlap.yaml") == HYBRIDSIM_OK);
  double t = 0.0;
  REQUIRE(hybridsim_advance_to(sim, 1e-3, 0, &t) == HYBRIDSIM_OK);
  CHECK(seen.calls == 1);
  CHECK(seen.kind == "initial_overlap");
  CHECK(seen.message.find("ball/s overlap by 0.005 m") != std::string::npos);
  size_t count = 0;
  REQUIRE(hybridsim_get_warning_count(sim, &count) == HYBRIDSIM_OK);
  REQUIRE(count == 1);
  const char* kind = nullptr;
  const char* text = nullptr;
  double when = -1.0;
  CHECK(hybridsim_get_warning(sim, 0, &when, &kind, &text) == HYBRIDSIM_OK);
  CHECK(std::string(kind) == "initial_overlap");
  CHECK(when == 0.0);
  CHECK(hybridsim_get_warning(sim, 1, &when, &kind, &text) == HYBRIDSIM_ERROR_NOT_FOUND);
  hybridsim_free(sim);

  // The work guard's options and the output interval are validated as on the command line.
  hybridsim_simulator* zero = hybridsim_create();
  CHECK(hybridsim_set_option(zero, "output_interval", "0") == HYBRIDSIM_ERROR_INPUT);
  CHECK(hybridsim_set_option(zero, "output_interval", "-0.01") == HYBRIDSIM_ERROR_INPUT);
  CHECK(message(zero).find("must be positive") != std::string::npos);
  hybridsim_free(zero);
  hybridsim_simulator* bad = hybridsim_create();
  REQUIRE(hybridsim_set_option(bad, "time_limit", "-1") == HYBRIDSIM_OK);
  CHECK(hybridsim_load_string(bad, kScene, "bad.yaml") == HYBRIDSIM_ERROR_INPUT);
  CHECK(message(bad).find("time_limit = -1") != std::string::npos);
  hybridsim_free(bad);
}

}  // namespace
