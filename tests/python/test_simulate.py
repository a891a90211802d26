"""hybridsim from Python against the CLI and against physics."""
import math
import subprocess

import numpy as np
import pytest

import hybridsim


@pytest.mark.parametrize("scene", ["bouncing_sphere", "pendulum", "box_incline"])
def test_trajectory_is_the_clis_bit_for_bit(scene, executable, tmp_path):
    # The same scene, options and integrator through the CLI and through Python: the same steps,
    # events and rows, so the numbers agree exactly (the CSV prints 17 digits, which read back
    # to the same doubles).
    csv = tmp_path / "trajectory.csv"
    subprocess.run([executable, "run", scene, "--stop-time", "1", "--trajectory", str(csv),
                    "--quiet"], check=True)
    cli = hybridsim.read_csv(csv)
    sim = hybridsim.Simulator(scene, stop_time=1.0)
    assert sim.run() == "ok"
    python = sim.trajectory()
    assert [c for c in python if c != "__table__"] == [c for c in cli if c != "__table__"]
    assert python["__table__"].shape == cli["__table__"].shape
    assert np.array_equal(python["__table__"], cli["__table__"])


@pytest.mark.parametrize("flags,keywords", [
    (["--trajectory-columns", "ball.[xyz],energy"],
     {"trajectory_columns": ["ball.[xyz]", "energy"]}),
    (["--trajectory-instants", "outputs"], {"trajectory_instants": "outputs"}),
    (["--trajectory-max-rate", "20", "--trajectory-columns", "ball.v*"],
     {"trajectory_max_rate": 20, "trajectory_columns": "ball.v*"}),
])
def test_trajectory_selection_is_the_clis(flags, keywords, executable, tmp_path):
    # The CLI's --trajectory-* flags and the Simulator's keywords choose the same columns and
    # rows, bit for bit; each selection is checked against the full trajectory independently.
    csv = tmp_path / "trajectory.csv"
    subprocess.run([executable, "run", "bouncing_sphere", "--stop-time", "2", "--trajectory",
                    str(csv), "--quiet"] + flags, check=True)
    cli = hybridsim.read_csv(csv)
    sim = hybridsim.Simulator("bouncing_sphere", stop_time=2.0, **keywords)
    assert sim.run() == "ok"
    python = sim.trajectory()
    assert list(python) == list(cli)
    assert np.array_equal(python["__table__"], cli["__table__"])
    full = hybridsim.Simulator("bouncing_sphere", stop_time=2.0)
    full.run()
    everything = full.trajectory()
    outputs = np.isclose(everything["t"] / 0.01, np.round(everything["t"] / 0.01), atol=1e-9)
    if "trajectory_columns" in keywords:
        for name in python:
            if name != "__table__":
                rows = python["t"]
                kept = np.isin(everything["t"], rows)
                assert np.array_equal(python[name], everything[name][kept])
    if keywords.get("trajectory_instants") == "outputs":
        # One row per output instant, none at the events between them.
        assert len(python["t"]) == int(round(2.0 / 0.01)) + 1
        assert len(everything["t"]) > len(python["t"])
        assert np.array_equal(python["__table__"], everything["__table__"][outputs])
    if "trajectory_max_rate" in keywords:
        event_times = [t for t in python["t"] if not np.isclose(t / 0.01, round(t / 0.01),
                                                                 atol=1e-9)]
        assert all(b - a >= 1 / 20 - 1e-12 for a, b in zip(event_times, event_times[1:]))


def test_trajectory_selection_errors():
    with pytest.raises(hybridsim.SceneError,
                       match="trajectory_columns: 'nothing.*' matches no column"):
        hybridsim.Simulator("bouncing_sphere", trajectory_columns=["nothing.*"])
    with pytest.raises(hybridsim.SceneError, match="trajectory_instants 'events'"):
        hybridsim.Simulator("bouncing_sphere", trajectory_instants="events")
    with pytest.raises(hybridsim.SceneError, match="trajectory_max_rate = 0"):
        hybridsim.Simulator("bouncing_sphere", trajectory_max_rate=0)
    with pytest.raises(TypeError):
        hybridsim.Simulator("bouncing_sphere", trajectory_columns=[3])


def test_first_impact_of_the_dropped_ball():
    # bouncing_sphere: the ball's lowest point falls h = 1 m, so the first contact is at
    # sqrt(2 h / g) = 0.451523641 s with v- = sqrt(2 g h) (the scene's reference). rtol 1e-8 and
    # the event location: 1e-7 s.
    sim = hybridsim.Simulator("bouncing_sphere")
    sim.run(0.5)
    start = next(e for e in sim.events() if e["kind"] == "contact_start")
    g = 9.81
    assert start["t"] == pytest.approx(math.sqrt(2 * 1.0 / g), abs=1e-7)
    assert start["v_pre"] == pytest.approx(math.sqrt(2 * g * 1.0), rel=1e-6)
    assert start["pair"] == ["ground/plate", "ball/sphere"]


def test_structured_trajectory_and_summary():
    sim = hybridsim.Simulator("bouncing_sphere", stop_time=0.3)
    sim.run()
    records = sim.trajectory(structured=True)
    columns = sim.trajectory()
    assert np.array_equal(records["ball.z"], columns["ball.z"]) and records.shape == (31,)
    summary = sim.summary()
    assert summary["status"] == "ok" and summary["t_end"] == 0.3
    assert summary["energy"] == pytest.approx(columns["energy"][-1], rel=1e-12)


def test_advance_step_and_events():
    sim = hybridsim.Simulator("bouncing_sphere")
    assert sim.advance(1.0, stop_at_events=True) == "event"
    assert sim.time == pytest.approx(0.4515236, abs=1e-6)
    t = sim.time
    assert sim.step() == "step_taken"
    assert sim.time > t
    stats = sim.statistics()
    assert stats["steps"] > 0 and stats["contact_starts"] == 1


def test_state_is_a_read_only_view():
    sim = hybridsim.Simulator("bouncing_sphere")
    sim.advance(0.2)
    state = sim.state
    assert state.shape == (13,) and not state.flags.writeable
    # Free fall from rest at 1.1 m: z = 1.1 - g t^2 / 2 (rtol 1e-8).
    assert state[2] == pytest.approx(1.1 - 9.81 * 0.2 ** 2 / 2, rel=1e-7)
    with pytest.raises(ValueError):
        state[0] = 1.0
    ball = sim.body_state("ball")
    assert ball["velocity"][2] == pytest.approx(-9.81 * 0.2, rel=1e-7)


def test_reset_from_a_changed_state():
    # Run, then start again from the state with the ball lifted to 2.1 m and at rest: the first
    # impact comes after sqrt(2 h / g) with h = 2 m, the trajectory starting over at t = 0.
    sim = hybridsim.Simulator("bouncing_sphere")
    sim.run(1.0)
    state = sim.state.copy()
    state[0:3] = [0.0, 0.0, 2.1]
    state[3:7] = [1.0, 0.0, 0.0, 0.0]
    state[7:13] = 0.0
    sim.reset(state)
    assert sim.time == 0.0 and len(sim.trajectory()["t"]) == 0
    sim.run(1.0)
    start = next(e for e in sim.events() if e["kind"] == "contact_start")
    assert start["t"] == pytest.approx(math.sqrt(2 * 2.0 / 9.81), abs=1e-7)
    assert sim.trajectory()["ball.z"][0] == 2.1
    with pytest.raises(hybridsim.SceneError, match="13 numbers"):
        sim.reset(state[:5])
    state[2] = math.nan
    with pytest.raises(hybridsim.SceneError, match="finite"):
        sim.reset(state)


PD_SCENE = """
name: pd_wheel
simulation: {stop_time: 1.0, rtol: 1.0e-10, atol: 1.0e-12, output_interval: 0.01}
gravity: [0, 0, 0]
materials:
  Light: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.3}
inputs:
  - {name: torque, signal: {constant: [0, 0, 0]}}
bodies:
  - {name: ground, fixed: true}
  - name: wheel
    shapes:
      - {name: disc, type: sphere, radius: 0.1, material: Light, collision: false}
joints:
  - {name: axle, type: revolute, parent: ground, child: wheel, anchor: [0, 0, 0],
     axis: [0, 0, 1], input: torque}
"""


def test_pd_control_loop_follows_the_sampled_closed_form(tmp_path):
    # A PD controller at 1 kHz turns a free wheel (no gravity, no friction) to 1 rad. Between
    # samples the torque is constant, so the exact response of the sampled loop is the double
    # integrator's: q+ = q + h qd + h^2 tau / (2 I), qd+ = qd + h tau / I, with I = 2/5 m r^2.
    scene = tmp_path / "pd.yaml"
    scene.write_text(PD_SCENE)
    sim = hybridsim.Simulator(str(scene))
    radius, density = 0.1, 1000.0
    inertia = 0.4 * density * 4 / 3 * math.pi * radius ** 3 * radius ** 2
    kp, kd, target, h = 2.0, 0.3, 1.0, 1e-3
    q_ref, qd_ref = 0.0, 0.0
    worst = 0.0
    for k in range(1000):
        q, qd = sim.joint_state("axle")
        worst = max(worst, abs(q - q_ref))
        tau = kp * (target - q) - kd * qd
        sim.set_input("torque", tau)
        sim.advance((k + 1) * h)
        tau_ref = kp * (target - q_ref) - kd * qd_ref
        q_ref, qd_ref = q_ref + h * qd_ref + h * h * tau_ref / (2 * inertia), qd_ref + h * tau_ref / inertia
    assert sim.time == pytest.approx(1.0, abs=1e-12)
    # rtol 1e-10 on a 1 rad motion, its local errors summed over 1,000 restarts (each a new
    # initial-value problem) and fed back through the loop's gain: 1e-6 rad (1.0e-7 seen).
    assert worst < 1e-6
    q, _ = sim.joint_state("axle")
    assert q == pytest.approx(q_ref, abs=1e-6)
    assert abs(q - target) < abs(0.0 - target)  # and it did move towards the target


def test_contacts_jacobian_and_cone():
    sim = hybridsim.Simulator("bouncing_sphere")
    sim.run(3.0)  # at rest on the plate
    contacts = sim.contacts()
    assert len(contacts["ids"]) == 1
    # At rest the normal force carries the ball's weight: m g, m = rho 4/3 pi r^3 (0.1 m steel).
    weight = 8000 * 4 / 3 * math.pi * 0.1 ** 3 * 9.81
    assert contacts["normal_force"][0] == pytest.approx(weight, rel=1e-4)
    pair, slot = contacts["ids"][0]
    jacobian, drift = sim.contact_jacobian(pair, slot)
    assert jacobian.shape == (6, sim.velocity_size())
    cone = sim.friction_cone(pair, slot, edges=6)
    assert cone.shape == (6, 3)
    assert (cone @ np.array([0.0, 0.0, 1.0]) <= 0).all()  # the normal direction is inside


def test_model_builder_ball_on_ground(executable, tmp_path):
    # A ball built in code (the palette's Steel and its Steel-Steel law), dropped from 0.5 m onto a
    # half-space: first contact after sqrt(2 h / g) (h = 0.5 m between the lowest point and the
    # ground), as for a scene file.
    builder = (hybridsim.ModelBuilder("coded_ball")
               .body("ground", fixed=True)
               .halfspace("ground", "floor", [0, 0, 1], 0.0, "Steel")
               .body("ball", position=[0, 0, 0.55])
               .sphere("ball", "sphere", 0.05, "Steel")
               .set("simulation.stop_time", "0.5")
               .set("simulation.rtol", "1.0e-9"))
    sim = hybridsim.Simulator(builder.build())
    sim.run()
    start = next(e for e in sim.events() if e["kind"] == "contact_start")
    assert start["t"] == pytest.approx(math.sqrt(2 * 0.5 / 9.81), abs=1e-7)
    # The builder's YAML is a scene file: the CLI gives the same trajectory, number for number.
    scene = tmp_path / "coded.yaml"
    scene.write_text(builder.to_yaml())
    csv = tmp_path / "t.csv"
    subprocess.run([executable, "run", str(scene), "--trajectory", str(csv), "--quiet"],
                   check=True)
    assert np.array_equal(hybridsim.read_csv(csv)["__table__"], sim.trajectory()["__table__"])
    with pytest.raises(hybridsim.SceneError):
        hybridsim.ModelBuilder("bad").body("b").sphere("b", "s", -1.0, "Steel").build()


def test_model_builder_contact_material_restitution():
    # A law given in code: restitution 0.5 with the exact damping model, no gravity, the ball
    # thrown at the ground at 2 m/s. It leaves with e times its approach speed: 1 m/s (the elastic
    # law's restitution is exact to 1e-5 above its v_small).
    builder = (hybridsim.ModelBuilder("bouncy")
               .gravity([0, 0, 0])
               .body("ground", fixed=True)
               .halfspace("ground", "floor", [0, 0, 1], 0.0, "Steel")
               .body("ball", position=[0, 0, 0.15], velocity=[0, 0, -2.0])
               .sphere("ball", "sphere", 0.05, "Steel")
               .contact_material("Steel", "Steel", restitution=0.5, damping_model="exact",
                                 friction={"model": "none"})
               .set("simulation.rtol", "1.0e-10"))
    sim = hybridsim.Simulator(builder.build(), stop_time=0.2)
    sim.run()
    kinds = [e["kind"] for e in sim.events()]
    assert kinds == ["contact_start", "contact_end"]
    assert sim.body_state("ball")["velocity"][2] == pytest.approx(1.0, rel=1e-5)
    with pytest.raises(hybridsim.SceneError, match="joint type"):
        hybridsim.ModelBuilder("bad").joint("j", "hinge", "a", "b")


def test_controls_callable_at_control_instants(tmp_path):
    # The PD loop above written as a control law: the same sampled closed form.
    scene = tmp_path / "pd.yaml"
    scene.write_text(PD_SCENE)
    sim = hybridsim.Simulator(str(scene))
    instants = []

    def pd(s):
        instants.append(s.time)
        q, qd = s.joint_state("axle")
        return 2.0 * (1.0 - q) - 0.3 * qd

    assert sim.run(0.5, controls={"torque": pd}, period=1e-3) == "ok"
    assert len(instants) == 500 and instants[1] == pytest.approx(1e-3, abs=1e-15)
    inertia = 0.4 * 1000.0 * 4 / 3 * math.pi * 0.1 ** 3 * 0.1 ** 2
    q_ref = qd_ref = 0.0
    for _ in range(500):
        tau = 2.0 * (1.0 - q_ref) - 0.3 * qd_ref
        q_ref, qd_ref = q_ref + 1e-3 * qd_ref + 1e-6 * tau / (2 * inertia), qd_ref + 1e-3 * tau / inertia
    assert sim.joint_state("axle")[0] == pytest.approx(q_ref, abs=1e-6)
    with pytest.raises(ValueError, match="period"):
        sim.run(0.6, controls={"torque": pd}, period=0.0)
    # Without a period the law runs at the output instants (the scene's 0.01 s).
    instants.clear()
    sim.run(0.6, controls={"torque": pd})
    assert len(instants) == 10 and instants[1] - instants[0] == pytest.approx(0.01, abs=1e-12)
    with pytest.raises(TypeError):
        sim.run(0.6, controls={"torque": 3.0}, period=1e-3)
