/* A C host: loads a scene through the C API, advances it in 0.25 s pieces, and reads the ball's
 * state, the statistics and the event records. The scene: a steel ball dropped from h = 1 m
 * (bottom above a steel plate). It checks that the first contact starts at sqrt(2 h / g) with
 * pre-impact speed sqrt(2 g h), to 1e-6 relative, and exits non-zero otherwise. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "hybridsim/hybridsim.h"

static const char* const kScene =
    "name: c_bounce\n"
    "simulation: {stop_time: 2.0, rtol: 1.0e-9}\n"
    "materials:\n"
    "  Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}\n"
    "contact_materials:\n"
    "  - {pair: [Steel, Steel], restitution: 0.7}\n"
    "bodies:\n"
    "  - name: ground\n"
    "    fixed: true\n"
    "    shapes: [{name: plate, type: halfspace, material: Steel}]\n"
    "  - name: ball\n"
    "    position: [0, 0, 1.1]\n"
    "    shapes: [{name: sphere, type: sphere, radius: 0.1, material: Steel}]\n";

static int check(hybridsim_simulator* sim, hybridsim_status status, const char* what) {
  if (status == HYBRIDSIM_OK) return 1;
  fprintf(stderr, "bounce_c: %s: %s: %s\n", what, hybridsim_status_string(status),
          hybridsim_error_message(sim));
  return 0;
}

int main(void) {
  const double h = 1.0, g = 9.81;
  hybridsim_simulator* sim = hybridsim_create();
  int ok = sim != NULL;
  double t = 0.0;
  size_t events = 0, i;
  hybridsim_body_state ball = {.size = sizeof ball};
  hybridsim_statistics stats = {.size = sizeof stats};
  hybridsim_event event = {.size = sizeof event};

  printf("bounce_c: hybridsim %s\n", hybridsim_version());
  ok = ok && check(sim, hybridsim_load_string(sim, kScene, "c_bounce"), "load");
  while (ok && t < 2.0 - 1e-12) {
    ok = check(sim, hybridsim_advance_to(sim, t + 0.25, 0, &t), "advance") &&
         check(sim, hybridsim_get_body_state(sim, "ball", &ball), "body state");
    if (ok)
      printf("  t = %.2f s  z = %.6f m  vz = %+.4f m/s\n", t, ball.position[2],
             ball.linear_velocity[2]);
  }
  ok = ok && check(sim, hybridsim_get_statistics(sim, &stats), "statistics");
  if (ok) {
    printf("  %" PRId64 " steps, %" PRId64 " RHS evaluations, %" PRId64 " contact starts, %" PRId64
           " contact ends\n",
           stats.steps, stats.rhs_evals, stats.contact_starts, stats.contact_ends);
  }
  ok = ok && check(sim, hybridsim_get_event_count(sim, &events), "event count") && events > 0;
  for (i = 0; ok && i < events; ++i) {
    ok = check(sim, hybridsim_get_event(sim, i, &event), "event");
    if (ok && event.kind == HYBRIDSIM_EVENT_CONTACT_START) {
      const double t_expected = sqrt(2.0 * h / g), v_expected = sqrt(2.0 * g * h);
      printf("  first contact %s - %s at t = %.9f s (closed form %.9f), v- = %.6f m/s (%.6f)\n",
             event.shape_a, event.shape_b, event.t, t_expected, event.pre_impact_velocity,
             v_expected);
      ok = fabs(event.t - t_expected) < 1e-6 * t_expected &&
           fabs(event.pre_impact_velocity - v_expected) < 1e-6 * v_expected;
      break;
    }
  }
  hybridsim_free(sim);
  if (!ok) fprintf(stderr, "bounce_c: failed\n");
  return ok ? 0 : 1;
}
