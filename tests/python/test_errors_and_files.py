"""Errors a user can make, and the files of a run read back."""
import math
import subprocess
import time

import numpy as np
import pytest

import hybridsim


def test_scene_errors_carry_file_key_and_value(tmp_path):
    scene = tmp_path / "bad.yaml"
    scene.write_text("name: bad\nbodies:\n  - name: b\n    mass: -5\n")
    with pytest.raises(hybridsim.SceneError) as error:
        hybridsim.load(str(scene))
    assert "bad.yaml" in str(error.value) and "mass" in str(error.value)
    assert isinstance(error.value, ValueError)
    with pytest.raises(hybridsim.SceneError, match="no_such_scene"):
        hybridsim.load("no_such_scene")
    with pytest.raises(hybridsim.SceneError, match="rtol"):
        hybridsim.Simulator("bouncing_sphere", rtol=-1.0)
    with pytest.raises(hybridsim.SceneError, match="stop_time"):
        hybridsim.Simulator("bouncing_sphere", set={"simulation.stop_time": -1})


def test_wrong_types_and_values_raise():
    with pytest.raises(TypeError):
        hybridsim.load(42)
    with pytest.raises(TypeError):
        hybridsim.Simulator("bouncing_sphere", rtol="tight")
    sim = hybridsim.Simulator("bouncing_sphere")
    with pytest.raises(hybridsim.SceneError):
        sim.advance(math.nan)
    with pytest.raises(hybridsim.SceneError, match="nobody"):
        sim.body_state("nobody")
    with pytest.raises(hybridsim.SceneError):
        sim.set_input("nothing", [1, 2, 3])
    with pytest.raises(TypeError):
        sim.body_state(3)


def test_calls_on_a_closed_simulator_raise():
    with hybridsim.Simulator("bouncing_sphere") as sim:
        sim.advance(0.1)
        state = sim.state
    # A view taken before close() still reads its (last) values.
    assert state[2] == pytest.approx(1.1 - 9.81 * 0.1 ** 2 / 2, rel=1e-7)
    for call in (lambda: sim.time, lambda: sim.advance(0.2), lambda: sim.trajectory(),
                 lambda: sim.state, lambda: sim.events()):
        with pytest.raises(RuntimeError, match="closed"):
            call()


def test_model_description():
    model = hybridsim.load("bouncing_sphere")
    description = model.describe()
    ball = next(b for b in description["bodies"] if b["name"] == "ball")
    # A steel sphere of 0.1 m: m = 8000 * 4/3 pi r^3, I = 2/5 m r^2 about every axis.
    mass = 8000 * 4 / 3 * math.pi * 0.1 ** 3
    assert ball["mass"] == pytest.approx(mass, rel=1e-12)
    assert np.allclose(ball["inertia"], np.eye(3) * 0.4 * mass * 0.01, rtol=1e-12)
    assert ball["shapes"][0]["type"] == "sphere"
    assert any(entry["name"] == "bouncing_sphere" for entry in hybridsim.catalog())


def test_read_run_folder(executable, tmp_path):
    out = tmp_path / "run"
    subprocess.run([executable, "run", "bouncing_sphere", "--out", str(out), "--quiet"], check=True)
    run = hybridsim.read_run(out)
    assert run["summary"]["status"] == "ok"
    assert len([e for e in run["events"] if e["kind"] == "contact_start"]) == 16
    assert run["trajectory"]["t"][-1] == 3.0
    # The diagnostics' energy parts sum to the trajectory's energy, row by row.
    d = run["diagnostics"]
    total = d["energy.kinetic"] + d["energy.potential"] + d["energy.elastic"]
    assert np.allclose(total, d["energy.total"], rtol=1e-12, atol=1e-9)
    assert "normal_force" in run["contacts"]


def test_a_million_row_trajectory_reads_in_under_a_second(executable, tmp_path):
    # bouncing_sphere with an output every 3 microseconds: 1,000,032 rows of 28 columns, written
    # by the CLI (124 MB).
    path = tmp_path / "trajectory.csv"
    subprocess.run([executable, "run", "bouncing_sphere", "--output-interval", "3e-6",
                    "--trajectory", str(path), "--quiet"], check=True)
    started = time.perf_counter()
    table = hybridsim.read_csv(path)["__table__"]
    elapsed = time.perf_counter() - started
    assert table.shape[0] > 1_000_000 and table.shape[1] == 28
    assert elapsed < 1.0, f"{elapsed:.2f} s"
    # Every 10,007th line parsed by Python's own float() gives the same doubles.
    with open(path) as file:
        lines = file.read().splitlines()[1:]
    for row in range(0, len(lines), 10_007):
        assert table[row].tolist() == [float(v) for v in lines[row].split(",")]


def test_batch_from_a_dict(executable, tmp_path, monkeypatch):
    # Two tolerances of one integrator on the pendulum (closed form by elliptic functions): the
    # tighter tolerance has the smaller error, as a work-precision table must show.
    monkeypatch.setenv("HYBRIDSIM_EXECUTABLE", executable)
    experiment = {"name": "py", "scenes": [{"scene": "pendulum", "stop_time": 1.0}],
                  "integrators": ["cvode-bdf"], "tolerances": {"rtol": [1e-4, 1e-8]},
                  "warmup": False}
    result = hybridsim.batch(experiment, out=tmp_path / "out", plots=False)
    columns = result["columns"]
    assert list(columns["rtol"]) == [1e-4, 1e-8]
    assert all(status == "ok" for status in columns["status"])
    error = columns["final_error"]
    assert error[1] < error[0]
    with pytest.raises(hybridsim.SceneError):
        hybridsim.batch({"scenes": ["no_such_scene"], "integrators": ["cvode-bdf"]},
                        out=tmp_path / "bad", plots=False)
