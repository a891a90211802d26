// cvode-bdf with linear_solver klu: the block pattern of the bodies' coupling, its coloured
// difference quotients, and runs that agree with the dense solver for fewer right-hand sides.
//  - BlockJacobian on a linear f = A y with block-diagonal A: the difference quotient of a linear
//    function is exact up to round-off, so the values equal A's entries.
//  - BlockJacobian with coupled blocks (a chain and a star): distance-2 colours, exact values.
//  - MultibodySystem::state_blocks is honest the same way: a state moves only its block's and
//    its coupled blocks' derivatives.
//  - MultibodySystem::state_coupling must be honest: perturbing a state changes no derivative
//    outside its group, bit for bit (other bodies' computations never read that state).
//  - A rain of spheres on a plate: each first contact at sqrt(2h/g); klu and dense give the same
//    events, and klu's Jacobian takes 13 right-hand sides (one body) where dense takes 13 N.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include "core/rigid_body.hpp"
#include "integrators/block_jacobian.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

// The difference-quotient Jacobian of the linear f = A y at y = linspace(-2, 3), unpacked from
// its compressed columns (checking that rows ascend and that y is restored bit for bit); `calls`
// counts the right-hand sides it took.
Eigen::MatrixXd quotient_of_linear(BlockJacobian& jacobian, const Eigen::MatrixXd& A, int& calls) {
  const auto n = static_cast<int>(A.rows());
  Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(n, -2.0, 3.0);
  const Eigen::VectorXd y_saved = y;
  const Eigen::VectorXd fy = A * y;
  const Eigen::VectorXd weight = Eigen::VectorXd::Constant(n, 1e6);
  Eigen::VectorXd f_perturbed(n);
  std::vector<double> values(static_cast<std::size_t>(jacobian.nonzero_count()));
  calls = 0;
  auto rhs = [&](double, const double* state, double* derivative, std::span<const int>) {
    ++calls;
    Eigen::Map<Eigen::VectorXd>(derivative, n) = A * Eigen::Map<const Eigen::VectorXd>(state, n);
    return 0;
  };
  REQUIRE(jacobian.compute(0.0, 1e-3, y.data(), fy.data(), weight.data(), f_perturbed.data(),
                           values.data(), rhs) == 0);
  CHECK(y == y_saved);
  std::vector<long> starts(static_cast<std::size_t>(n) + 1);
  std::vector<long> rows(static_cast<std::size_t>(jacobian.nonzero_count()));
  jacobian.write_pattern(starts.data(), rows.data());
  CHECK(starts[n] == jacobian.nonzero_count());
  // The diagonal's positions (where the Newton matrix adds its identity) hold row j of column j.
  REQUIRE(jacobian.diagonal_positions().size() == static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    const std::int64_t diagonal = jacobian.diagonal_positions()[j];
    REQUIRE(diagonal >= starts[j]);
    REQUIRE(diagonal < starts[j + 1]);
    CHECK(rows[diagonal] == j);
  }
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n, n);
  for (int j = 0; j < n; ++j) {
    for (long k = starts[j]; k < starts[j + 1]; ++k) {
      if (k > starts[j]) CHECK(rows[k] > rows[k - 1]);
      J(rows[k], j) = values[k];
    }
  }
  return J;
}

TEST_CASE("block jacobian: pattern and values of a block-diagonal linear function") {
  // Groups given by arbitrary ids, interleaved: states {0, 3, 5}, {1, 4}, {2}, {6, 7, 8, 9}.
  const std::vector<int> ids = {7, -2, 40, 7, -2, 7, 11, 11, 11, 11};
  const int n = static_cast<int>(ids.size());
  BlockJacobian jacobian;
  REQUIRE(jacobian.assign_groups(ids));
  CHECK(jacobian.block_count() == 4);
  CHECK(jacobian.nonzero_count() == 9 + 4 + 1 + 16);
  CHECK(jacobian.colour_count() == 4);
  // The same partition under other ids is no change (a sparse analysis can be kept).
  CHECK_FALSE(jacobian.assign_groups(std::vector<int>{0, 1, 2, 0, 1, 0, 3, 3, 3, 3}));

  // A with entries only inside the groups, all distinct.
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (ids[i] == ids[j]) A(i, j) = 1.0 + 0.37 * i - 0.71 * j + 0.05 * i * j;
    }
  }
  // The quotient's round-off is about u |f| / increment with increment sqrt(u) |y_j| (or more):
  // 1e-7 relative to |A| ~ 10 bounds it.
  int calls = 0;
  const Eigen::MatrixXd J = quotient_of_linear(jacobian, A, calls);
  CHECK(calls == jacobian.colour_count());
  CHECK((J - A).cwiseAbs().maxCoeff() < 1e-6);
}

TEST_CASE("block jacobian: coupled blocks, distance-2 colours, exact values of a linear function") {
  // A chain of 40 blocks of 3 states (b couples to b + 1) plus a star: block 40 coupled to
  // blocks 0, 10, 20, 30. Grouping them (what state_coupling gives) would make one dense block
  // of 123 states; the coupled blocks keep the pattern sparse and the colours few.
  constexpr int kBlocks = 41, kSize = 3, n = kBlocks * kSize;
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) ids[i] = 100 + i / kSize;
  std::vector<std::pair<int, int>> pairs;
  for (int b = 0; b + 1 < 40; ++b) pairs.emplace_back(100 + b + 1, 100 + b);  // either order
  for (int b : {0, 10, 20, 30}) pairs.emplace_back(140, 100 + b);
  pairs.emplace_back(105, 105);  // a self pair and a repeat change nothing
  pairs.emplace_back(100, 101);
  BlockJacobian jacobian;
  REQUIRE(jacobian.assign_blocks(ids, pairs));
  CHECK(jacobian.block_count() == kBlocks);
  CHECK_FALSE(jacobian.assign_blocks(ids, pairs));
  // Nonzeros: each block's columns hold its own and its neighbours' states (3 x 3 per coupling).
  std::int64_t expected_nonzeros = 0;
  std::vector<std::vector<int>> neighbours(kBlocks);
  for (int b = 0; b < kBlocks; ++b) neighbours[b].push_back(b);
  for (int b = 0; b + 1 < 40; ++b) {
    neighbours[b].push_back(b + 1);
    neighbours[b + 1].push_back(b);
  }
  for (int b : {0, 10, 20, 30}) {
    neighbours[40].push_back(b);
    neighbours[b].push_back(40);
  }
  for (const auto& list : neighbours) expected_nonzeros += kSize * kSize * list.size();
  CHECK(jacobian.nonzero_count() == expected_nonzeros);
  // The star's centre has 4 neighbours, and the chain blocks next to a star point see 4 blocks
  // within two couplings: a few colours of 3 right-hand sides, not one per state.
  CHECK(jacobian.colour_count() <= 3 * 7);

  // A with entries exactly on the coupled blocks, all distinct; its difference quotient is exact
  // up to round-off, so any two columns wrongly perturbed together would show.
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (int b = 0; b < kBlocks; ++b) {
    for (int c : neighbours[b]) {
      for (int i = 0; i < kSize; ++i) {
        for (int j = 0; j < kSize; ++j) {
          const int row = c * kSize + i, column = b * kSize + j;
          A(row, column) = 1.0 + 0.013 * row - 0.027 * column + 0.001 * row * column;
        }
      }
    }
  }
  int calls = 0;
  const Eigen::MatrixXd J = quotient_of_linear(jacobian, A, calls);
  CHECK(calls == jacobian.colour_count());
  // Round-off of the quotient as above: 1e-7 relative to entries up to ~20.
  CHECK((J - A).cwiseAbs().maxCoeff() < 1e-5);
  // Without the star, a chain needs three colours (b, b + 1 and b + 2 see each other).
  pairs.resize(39);
  REQUIRE(jacobian.assign_blocks(ids, pairs));
  CHECK(jacobian.colour_count() == 3 * kSize);

  // Local rows (here the first state of every block) depend on their own block only: the
  // coupled blocks' columns leave them out, and the quotients stay exact for such an A.
  std::vector<char> local(n, 0);
  for (int b = 0; b < kBlocks; ++b) local[b * kSize] = 1;
  REQUIRE(jacobian.assign_blocks(ids, pairs, local));
  std::int64_t chain_nonzeros = 0;
  for (int b = 0; b < 40; ++b) {
    const int coupled_blocks = (b > 0 ? 1 : 0) + (b < 39 ? 1 : 0);
    chain_nonzeros += kSize * kSize + coupled_blocks * kSize * (kSize - 1);
  }
  chain_nonzeros += kSize * kSize;  // block 40, alone now
  CHECK(jacobian.nonzero_count() == chain_nonzeros);
  Eigen::MatrixXd A_local = A;
  for (int row = 0; row < n; ++row) {
    for (int column = 0; column < n; ++column) {
      const bool other_block = row / kSize != column / kSize;
      const bool chained =
          std::abs(row / kSize - column / kSize) == 1 && row / kSize < 40 && column / kSize < 40;
      if (other_block && (local[row] != 0 || !chained)) A_local(row, column) = 0.0;
    }
  }
  const Eigen::MatrixXd J_local = quotient_of_linear(jacobian, A_local, calls);
  CHECK((J_local - A_local).cwiseAbs().maxCoeff() < 1e-5);
}

// N spheres (r = 0.1 m) dropped from heights h_i onto a plate, and two more resting on it
// pressed together, so that one group holds two bodies.
Model sphere_rain(int falling) {
  std::string text = testing::steel_materials(0.5, "    damping_model: exact\n") +
                     "simulation: {stop_time: 0.6, integrator: cvode-bdf, rtol: 1.0e-8}\n"
                     "bodies:\n"
                     "  - name: ground\n"
                     "    fixed: true\n"
                     "    shapes: [{type: box, size: [20, 20, 0.1], position: [0, 0, -0.05], "
                     "material: Steel}]\n";
  for (int i = 0; i < falling; ++i) {
    text += fmt::format(
        "  - name: ball{}\n    position: [{}, 0, {}]\n"
        "    shapes: [{{type: sphere, radius: 0.1, material: Steel}}]\n",
        i, 0.5 * i, 0.1 + 0.2 + 0.15 * i);
  }
  // Resting pair: 1e-5 m into the plate, 1e-4 m into each other.
  text +=
      "  - name: left\n    position: [-1.0, 0, 0.09999]\n"
      "    shapes: [{type: sphere, radius: 0.1, material: Steel}]\n"
      "  - name: right\n    position: [-0.8001, 0, 0.09999]\n"
      "    shapes: [{type: sphere, radius: 0.1, material: Steel}]\n";
  return load_scene_text(text, "sphere_rain");
}

// Perturbs each state of x in turn: every derivative that `may_depend(i, j)` denies stays equal
// bit for bit (no computation for row i reads state j); returns how many derivatives that
// `counts(i, j)` names did change.
template <typename MayDepend, typename Counts>
int check_dependencies(MultibodySystem& system, const VectorX& x, MayDepend may_depend,
                       Counts counts) {
  const auto n = static_cast<int>(x.size());
  VectorX f(n), f_perturbed(n);
  system.compute_derivatives(0.0, x, f);
  int changed = 0;
  for (int j = 0; j < n; ++j) {
    VectorX x_perturbed = x;
    x_perturbed[j] += 1e-6 * (1.0 + std::abs(x[j]));
    system.compute_derivatives(0.0, x_perturbed, f_perturbed);
    for (int i = 0; i < n; ++i) {
      if (!may_depend(i, j)) {
        CHECK(f_perturbed[i] == f[i]);
      } else if (counts(i, j) && f_perturbed[i] != f[i]) {
        ++changed;
      }
    }
  }
  return changed;
}

TEST_CASE("multibody coupling: a state changes no derivative outside its group") {
  const Model model = sphere_rain(3);
  MultibodySystem system(model);
  const int n = system.state_size();
  VectorX x(n);
  system.initial_state(x);
  system.initialize(0.0, x);

  std::vector<int> group(static_cast<std::size_t>(n));
  system.state_coupling(group);
  const int left = model.bodies[model.find_body("left")].state_offset;
  const int right = model.bodies[model.find_body("right")].state_offset;
  const int ball0 = model.bodies[model.find_body("ball0")].state_offset;
  CHECK(group[left] == group[right]);  // the pair in contact
  CHECK(group[left] != group[ball0]);  // the plate is fixed: it couples nothing

  const auto same_group = [&group](int i, int j) { return group[i] == group[j]; };
  const int coupled_entries_changed = check_dependencies(system, x, same_group, same_group);
  // Within the pair the contact force does depend on both bodies (the test sees the coupling).
  CHECK(coupled_entries_changed > 0);
}

// A scene's system at its initial state (contacts found), with its blocks and coupled pairs.
struct BlockProbe {
  explicit BlockProbe(const Model& scene)
      : model(scene), system(model), x(system.state_size()), block(model.state_size) {
    system.initial_state(x);
    system.initialize(0.0, x);
    system.state_blocks(block, pairs);
  }
  int block_of(const std::string& body) const {
    return block[model.bodies[model.find_body(body)].state_offset];
  }
  Model model;
  MultibodySystem system;
  VectorX x;
  std::vector<int> block;
  std::vector<std::pair<int, int>> pairs;
};

TEST_CASE("multibody blocks: a state changes only its block's and its coupled blocks' rates") {
  // Three spheres in a row on the plate, each pressed 1e-4 m into the next: blocks a-b and b-c
  // are coupled by contacts, a and c are not (state_coupling would make one group of three).
  const std::string text = testing::steel_materials(0.5, "    damping_model: exact\n") +
                           "bodies:\n"
                           "  - name: ground\n    fixed: true\n"
                           "    shapes: [{type: halfspace, material: Steel}]\n"
                           "  - name: a\n    position: [0.0, 0, 0.09999]\n"
                           "    shapes: [{type: sphere, radius: 0.1, material: Steel}]\n"
                           "  - name: b\n    position: [0.1999, 0, 0.09999]\n"
                           "    shapes: [{type: sphere, radius: 0.1, material: Steel}]\n"
                           "  - name: c\n    position: [0.3998, 0, 0.09999]\n"
                           "    shapes: [{type: sphere, radius: 0.1, material: Steel}]\n";
  BlockProbe probe(load_scene_text(text, "three_in_a_row"));
  const std::vector<int>& block = probe.block;
  const std::vector<std::pair<int, int>>& pairs = probe.pairs;
  const int a = probe.block_of("a"), b = probe.block_of("b"), c = probe.block_of("c");
  std::vector<char> local(probe.block.size());
  probe.system.local_states(local);
  const int a_offset = probe.model.bodies[probe.model.find_body("a")].state_offset;
  CHECK(local[a_offset + kFreeBodyVelocityOffset - 1] == 1);  // the quaternion's last entry
  CHECK(local[a_offset + kFreeBodyVelocityOffset] == 0);      // the first velocity
  CHECK(a != b);
  CHECK(b != c);
  CHECK(a != c);
  const auto coupled = [&pairs](int p, int q) {
    if (p == q) return true;
    return std::any_of(pairs.begin(), pairs.end(), [&](const std::pair<int, int>& e) {
      return (e.first == p && e.second == q) || (e.first == q && e.second == p);
    });
  };
  CHECK(coupled(a, b));
  CHECK(coupled(b, c));
  CHECK_FALSE(coupled(a, c));

  const int coupled_entries_changed = check_dependencies(
      probe.system, probe.x,
      [&](int i, int j) {
        // A free body's position and orientation rates are its own velocities: local rows.
        return block[i] == block[j] || (coupled(block[i], block[j]) && local[i] == 0);
      },
      [&block](int i, int j) { return block[i] != block[j]; });
  CHECK(coupled_entries_changed > 0);  // the contacts do couple their two bodies
}

TEST_CASE("multibody blocks: bodies joined by a joint share one block") {
  // The double pendulum: the elbow joins the two free links (the constraint forces couple them),
  // the shoulder joins the upper one to the fixed ground (which couples nothing).
  BlockProbe probe(load_scene_file("double_pendulum"));
  CHECK(probe.block_of("upper") == probe.block_of("lower"));
  CHECK(probe.pairs.empty());
  // The block is needed: a state of one link moves rates of the other.
  const int upper = probe.model.bodies[probe.model.find_body("upper")].state_offset;
  const auto link = [upper](int state) {
    return state >= upper && state < upper + kFreeBodyStateSize ? 0 : 1;
  };
  const int across = check_dependencies(
      probe.system, probe.x, [](int, int) { return true; },
      [&link](int i, int j) { return link(i) != link(j); });
  CHECK(across > 0);
}

TEST_CASE("cvode-bdf klu: same events as dense, 13 right-hand sides per Jacobian") {
  constexpr int kFalling = 8;
  const Model model = sphere_rain(kFalling);
  const int n = model.state_size;

  Model dense_model = model;
  dense_model.simulation.linear_solver = "dense";
  Model klu_model = model;
  klu_model.simulation.linear_solver = "klu";
  const auto dense = testing::run_scene(dense_model);
  const auto klu = testing::run_scene(klu_model);
  REQUIRE(dense->result.status == SimulationStatus::ok);
  REQUIRE(klu->result.status == SimulationStatus::ok);

  // First contact of each falling sphere at sqrt(2 h / g), h its drop height; at rtol 1e-8 the
  // located root is within 1e-6 s (the root finder's tolerance is far below, the state's error
  // near 1e-8 m moves it by 1e-8 / 3 m/s).
  const double g = model.gravity_W.norm();
  std::vector<double> first_contact(kFalling, -1.0);
  const auto records = klu->recorder.contact_records();
  for (const EventRecord& record : records) {
    for (int i = 0; i < kFalling; ++i) {
      const bool ball_i = record.pair_a.starts_with(fmt::format("ball{}/", i)) ||
                          record.pair_b.starts_with(fmt::format("ball{}/", i));
      if (ball_i && record.kind == EventRecord::Kind::contact_start && first_contact[i] < 0.0) {
        first_contact[i] = record.t;
      }
    }
  }
  for (int i = 0; i < kFalling; ++i) {
    CAPTURE(i);
    const double drop = 0.2 + 0.15 * i;
    CHECK(first_contact[i] == doctest::Approx(std::sqrt(2.0 * drop / g)).epsilon(1e-6));
  }

  // Both solvers see the same event sequence, at times equal within the tolerance's reach.
  const auto dense_records = dense->recorder.contact_records();
  REQUIRE(dense_records.size() == records.size());
  for (std::size_t k = 0; k < records.size(); ++k) {
    CHECK(records[k].pair_a == dense_records[k].pair_a);
    CHECK(records[k].kind == dense_records[k].kind);
    CHECK(std::abs(records[k].t - dense_records[k].t) < 1e-6);
  }
  CHECK((klu->final_state - dense->final_state).lpNorm<Eigen::Infinity>() < 1e-4);

  // The evaluations outside Jacobians are the same work for both, within the few per cent that
  // their slightly different step sequences differ by: dense spends n per Jacobian, klu 13 (the
  // largest group is one body, or the resting pair's 26 while they touch: at most 26).
  const IntegratorStats& d = dense->result.stats;
  const IntegratorStats& s = klu->result.stats;
  const double dense_other = static_cast<double>(d.rhs_evals - n * d.jac_evals);
  const double klu_other_min = static_cast<double>(s.rhs_evals - 26 * s.jac_evals);
  const double klu_other_max = static_cast<double>(s.rhs_evals - 13 * s.jac_evals);
  MESSAGE("dense: ", d.rhs_evals, " rhs, ", d.jac_evals, " jac; klu: ", s.rhs_evals, " rhs, ",
          s.jac_evals, " jac");
  CHECK(klu_other_max > 0.9 * dense_other);
  CHECK(klu_other_min < 1.1 * dense_other);
  CHECK(s.rhs_evals < d.rhs_evals / 2);
}

TEST_CASE("cvode-bdf klu: Newton's cradle agrees with dense through its pattern changes") {
  // Every impact joins two pendulums' groups and every separation splits them: the pattern, and
  // KLU's analysis, change at each contact event.
  Model model = load_scene_file("newtons_cradle");
  model.simulation.linear_solver = "klu";
  const auto klu = testing::run_scene(model);
  model.simulation.linear_solver = "dense";
  const auto dense = testing::run_scene(model);
  REQUIRE(klu->result.status == SimulationStatus::ok);
  REQUIRE(dense->result.status == SimulationStatus::ok);
  const auto records = klu->recorder.contact_records();
  const auto dense_records = dense->recorder.contact_records();
  REQUIRE(records.size() == dense_records.size());
  REQUIRE(records.size() >= 8);
  // rtol 1e-10 on speeds of 0.6 m/s: event times agree far inside 1e-7 s.
  for (std::size_t k = 0; k < records.size(); ++k) {
    CHECK(records[k].pair_b == dense_records[k].pair_b);
    CHECK(std::abs(records[k].t - dense_records[k].t) < 1e-7);
  }
  CHECK((klu->final_state - dense->final_state).lpNorm<Eigen::Infinity>() < 1e-6);
  CHECK(klu->result.stats.rhs_evals < dense->result.stats.rhs_evals);
}

TEST_CASE("cvode-bdf klu-plain: KLU without the block LU gives grid_10x10's run to tolerance") {
  // grid_10x10's 100 spheres (over the block LU's 32) settle onto a plate: the block LU and KLU
  // solve the same Newton systems to rounding, so the runs take the same events and end within
  // the tolerance (rtol 1e-8 on positions near 0.1 m: 1e-8 m bounds both).
  Model model = load_scene_file("grid_10x10");
  model.simulation.stop_time = 0.05;
  const auto block = testing::run_scene(model);
  model.simulation.linear_solver = "klu-plain";
  const auto plain = testing::run_scene(model);
  REQUIRE(block->result.status == SimulationStatus::ok);
  REQUIRE(plain->result.status == SimulationStatus::ok);
  CHECK(block->result.contact_starts == plain->result.contact_starts);
  CHECK(block->result.contact_starts >= 100);
  CHECK((block->final_state - plain->final_state).lpNorm<Eigen::Infinity>() < 1e-8);
}

}  // namespace
}  // namespace hybridsim
