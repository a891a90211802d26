"""hybridsim from Python: scenes, simulations, results and run folders as NumPy arrays.

    import hybridsim
    sim = hybridsim.Simulator("bouncing_sphere", rtol=1e-8)
    sim.run()                               # to the scene's stop time
    z = sim.trajectory()["ball.z"]          # NumPy array, one value per output and event row
    starts = [e for e in sim.events() if e["kind"] == "contact_start"]

docs/python.md in the source tree documents every name.
"""
import json as _json
import math as _math
import numbers as _numbers
import os as _os

import numpy as _np

from ._hybridsim import Model, SceneError, __version__  # noqa: F401
from . import _hybridsim

__all__ = ["Model", "ModelBuilder", "SceneError", "Simulator", "load", "convert", "catalog", "read_csv",
           "read_run", "batch", "executable", "__version__"]


def load(scene, set=None, resource_path=None, urdf_root="fixed",  # noqa: A002 - `set` as on the CLI
         default_material="Steel"):
    """The Model of a scene file (YAML, URDF or MJCF) or catalog name, with `set` overrides
    ("KEY=VALUE" strings or a dict {KEY: VALUE}). resource_path, urdf_root and default_material
    apply to SDFormat, URDF and MJCF files (docs/import.md). A malformed scene raises SceneError naming the
    file, key and value (for SDFormat, URDF and MJCF: the line and element)."""
    if isinstance(scene, Model):
        if set:
            raise TypeError("overrides apply to a scene file or name, not to a loaded Model")
        return scene
    if not isinstance(scene, (str, _os.PathLike)):
        raise TypeError(f"scene: a file path or a catalog name, not {type(scene).__name__}")
    return _hybridsim.load_scene(_os.fspath(scene), _overrides(set), _paths(resource_path), urdf_root,
                                 default_material)


def convert(path, output=None, resource_path=None, urdf_root="fixed", default_material="Steel"):
    """The hybridsim scene YAML of a URDF or MJCF file, as `hybridsim convert` writes it (to
    `output` too when given), and the warnings of what the scene does differently: (yaml, warnings)."""
    return _hybridsim.convert_scene(_os.fspath(path), _os.fspath(output) if output else "",
                                    _paths(resource_path), urdf_root, default_material)


def _paths(value):
    if value is None:
        return []
    if isinstance(value, (str, _os.PathLike)):
        return [_os.fspath(value)]
    return [_os.fspath(v) for v in value]


def _overrides(values):
    if values is None:
        return []
    if isinstance(values, dict):
        return [f"{key}={_format(value)}" for key, value in values.items()]
    if isinstance(values, str):
        return [values]
    return [str(value) for value in values]


def _format(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, _np.ndarray)):
        return "[" + ", ".join(_format(v) for v in value) + "]"
    return repr(value) if isinstance(value, float) else str(value)


class ModelBuilder(_hybridsim.ModelBuilder):
    """A scene built in code (docs/python.md). The chained calls of the C++ ModelBuilder
    (gravity, material, body, sphere, box, capsule, halfspace, force_input, joint_input, joint,
    set, to_yaml, build), and, with the scene format's own keys (docs/scene-reference.md):
    contact_material(a, b, **keys), wheel(**keys) and servo(joint, **keys)."""

    def __init__(self, name, description=""):
        super().__init__(name, description)
        self._lists = {"contact_materials": [], "wheels": []}

    def _append(self, key, entry):
        self._lists[key].append(entry)
        return self.set(key, _json.dumps(self._lists[key]))  # JSON is YAML

    def contact_material(self, material_a, material_b, **keys):
        """The contact law of a pair of materials: restitution, normal_law, damping_model,
        v_small, friction={...}, rolling_resistance, ... as in a scene's contact_materials."""
        return self._append("contact_materials", {"pair": [material_a, material_b], **keys})

    def wheel(self, **keys):
        """A wheel, as an entry of a scene's wheels (name, body, axis, ...)."""
        return self._append("wheels", keys)

    def servo(self, joint, **keys):
        """A servo on a joint added with joint(): mode, velocity or position signal, gain, ..."""
        return self.set(f"joints.{joint}.servo", _json.dumps(keys))


def catalog():
    """The catalog scenes: a list of {"name", "description", "reference"}."""
    return _hybridsim.catalog()


def read_csv(path):
    """A numeric CSV file with a header (a trajectory, contacts or diagnostics file) as a dict
    of NumPy arrays, one per column; the arrays are views of one 2-D table (table["__table__"])."""
    names, table = _hybridsim.read_csv(_os.fspath(path))
    columns = {name: table[:, i] for i, name in enumerate(names)}
    columns["__table__"] = table
    return columns


def read_run(folder):
    """The files of `hybridsim run --out FOLDER`: {"trajectory": dict of arrays, "events": list of
    dicts, "summary": dict, "contacts" and "diagnostics": dicts of arrays} (those present)."""
    folder = _os.fspath(folder)
    if not _os.path.isdir(folder):
        raise FileNotFoundError(f"{folder}: not a folder (of hybridsim run --out)")
    if not _os.path.exists(_os.path.join(folder, "trajectory.csv")):
        raise FileNotFoundError(f"{folder}: no trajectory.csv (a folder of hybridsim run --out?)")
    run = {}
    for key, name in (("trajectory", "trajectory.csv"), ("diagnostics", "diagnostics.csv")):
        path = _os.path.join(folder, name)
        if _os.path.exists(path):
            run[key] = read_csv(path)
    path = _os.path.join(folder, "events.jsonl")
    if _os.path.exists(path):
        run["events"] = []
        with open(path) as file:
            for number, line in enumerate(file, 1):
                if line.strip():
                    try:
                        run["events"].append(_json.loads(line))
                    except ValueError as error:
                        raise SceneError(f"{path}:{number}: {error}") from None
    path = _os.path.join(folder, "summary.json")
    if _os.path.exists(path):
        with open(path) as file:
            try:
                run["summary"] = _json.load(file)
            except ValueError as error:
                raise SceneError(f"{path}: {error}") from None
    path = _os.path.join(folder, "contacts.csv")
    if _os.path.exists(path):
        # Its labels are text: read with the csv module, numbers as floats.
        import csv
        with open(path, newline="") as file:
            rows = list(csv.reader(file))
        if not rows:
            raise SceneError(f"{path}: empty file")
        header, body = rows[0], rows[1:]
        if any(len(row) != len(header) for row in body):
            raise SceneError(f"{path}: rows of another length than the header's")
        contacts = {}
        for i, name in enumerate(header):
            values = [row[i] for row in body]
            try:
                contacts[name] = _np.array([float(v) for v in values])
            except ValueError:
                contacts[name] = values
        run["contacts"] = contacts
    return run


def executable():
    """The hybridsim command line beside this package: $HYBRIDSIM_EXECUTABLE, else PREFIX/bin
    of an installed package, else the build tree's tools/hybridsim, else `hybridsim` on PATH."""
    import shutil
    if _os.environ.get("HYBRIDSIM_EXECUTABLE"):
        return _os.environ["HYBRIDSIM_EXECUTABLE"]
    here = _os.path.dirname(_os.path.abspath(__file__))
    # PREFIX/lib/python3.X/site-packages/hybridsim, or BUILD/python/hybridsim.
    for candidate in (_os.path.join(here, "..", "..", "..", "..", "bin", "hybridsim"),
                      _os.path.join(here, "..", "..", "tools", "hybridsim")):
        if _os.access(candidate, _os.X_OK):
            return _os.path.normpath(candidate)
    found = shutil.which("hybridsim")
    if not found:
        raise FileNotFoundError("the hybridsim executable: set HYBRIDSIM_EXECUTABLE")
    return found


def batch(experiment, out=None, jobs=None, plots=True):
    """Runs a batch experiment (docs/batch.md): a YAML file, or a dict of the same content.
    Returns {"columns": dict of arrays (text columns as lists), "runs": list of dicts,
    "folder": the output folder}, with the work-precision plots in folder/plots unless
    plots=False. Errors in the experiment raise SceneError with the CLI's message."""
    import subprocess
    import tempfile
    if out is None:
        out = tempfile.mkdtemp(prefix="hybridsim_batch_")
    out = _os.fspath(out)
    if isinstance(experiment, dict):
        _os.makedirs(out, exist_ok=True)
        path = _os.path.join(out, "experiment.yaml")
        with open(path, "w") as file:
            _json.dump(experiment, file)  # JSON is YAML
        experiment = path
    command = [executable(), "batch", _os.fspath(experiment), "--out", out, "--quiet"]
    if jobs is not None:
        command += ["-j", str(int(jobs))]
    if not plots:
        command.append("--no-plots")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 2:
        raise SceneError(result.stderr.strip().removeprefix("hybridsim: "))
    if result.returncode != 0:
        raise RuntimeError(f"hybridsim batch exited {result.returncode}: {result.stderr.strip()}")
    with open(_os.path.join(out, "results.json")) as file:
        results = _json.load(file)
    columns = {}
    for name in results["columns"]:
        values = [run.get(name) for run in results["runs"]]
        if all(isinstance(v, (int, float)) or v is None for v in values):
            columns[name] = _np.array([_np.nan if v is None else v for v in values], dtype=float)
        else:
            columns[name] = values
    return {"columns": columns, "runs": results["runs"], "folder": out}


class Simulator:
    """A simulation of a scene (a Model, a file path or a catalog name).

    Keyword options as on the command line: integrator, rtol, atol, stop_time, output_interval,
    step_size, max_step; `set` overrides scene values. The trajectory records a row at every
    output time and every event, the CLI's columns and numbers (bit for bit); as its
    --trajectory-* flags, trajectory_columns (shell patterns, a list or "t,ball.*,energy") keeps
    only the columns they match, trajectory_instants="outputs" leaves the event rows out, and
    trajectory_max_rate (rows per simulated second) leaves out an event row closer than
    1/rate to the event row kept before it."""

    def __init__(self, scene, *, set=None, integrator=None, rtol=None, atol=None,  # noqa: A002
                 stop_time=None, output_interval=None, step_size=None, max_step=None,
                 trajectory_columns=None, trajectory_instants="all", trajectory_max_rate=None):
        model = load(scene, set)
        if isinstance(trajectory_columns, str):
            trajectory_columns = [p.strip() for p in trajectory_columns.split(",")]
        patterns = list(trajectory_columns or [])
        if not all(isinstance(p, str) and p for p in patterns):
            raise TypeError("trajectory_columns: non-empty strings (shell patterns)")
        if trajectory_max_rate is not None and (not isinstance(trajectory_max_rate, _numbers.Real)
                                                or isinstance(trajectory_max_rate, bool)):
            raise TypeError("trajectory_max_rate: a number, not "
                            f"{type(trajectory_max_rate).__name__}")
        for name, value in (("rtol", rtol), ("atol", atol), ("stop_time", stop_time),
                            ("output_interval", output_interval), ("step_size", step_size),
                            ("max_step", max_step)):
            if value is not None and (not isinstance(value, _numbers.Real)
                                      or isinstance(value, bool)):
                raise TypeError(f"{name}: a number, not {type(value).__name__}")
        number = (lambda v: None if v is None else float(v))
        self._sim = _hybridsim.Simulator(
            model, integrator, number(rtol), number(atol), number(stop_time),
            number(output_interval), number(step_size), number(max_step), patterns,
            str(trajectory_instants),
            _math.inf if trajectory_max_rate is None else float(trajectory_max_rate))
        self.model = model

    # --- advancing ---------------------------------------------------------------------------
    def run(self, stop_time=None, controls=None, period=None):
        """Advances to stop_time (default: the run's stop time); returns the status.

        controls: {input name: callable(sim) -> value}, evaluated every `period` seconds of
        simulated time from now on (at the control instants t0, t0 + period, ...; by default at
        the output instants, period = the output interval), each value set with set_input and
        held until the next instant (a sampled controller)."""
        stop = self._sim.stop_time if stop_time is None else float(stop_time)
        if not _math.isfinite(stop):
            raise SceneError(f"run stop_time = {stop}: must be a finite time")
        if not controls:
            self._sim.advance(stop)
            return self.status
        if period is None:
            period = self._sim.output_interval
        if not float(period) > 0:
            raise ValueError(f"period = {period}: controls need a positive period (s)")
        for name, law in controls.items():
            if not callable(law):
                raise TypeError(f"controls[{name!r}]: a callable of the simulator")
        start, k = self.time, 0
        last = {}
        while self.time < stop and self.status == "ok":
            for name, law in controls.items():
                value = _np.asarray(law(self), dtype=float)
                # An unchanged value is not set again: each change is a time event (a restart).
                if name not in last or not _np.array_equal(value, last[name]):
                    self.set_input(name, value)
                    last[name] = value
            k += 1
            self._sim.advance(min(start + k * float(period), stop))
        return self.status

    def advance(self, t, stop_at_events=False):
        """Advances to time t (s); with stop_at_events returns after the first event instant.
        Returns why it returned: "target_reached", "event" or "halted"."""
        return self._sim.advance(float(t), bool(stop_at_events))

    def step(self):
        """One integrator step (and the events at its end)."""
        return self._sim.step()

    def reset(self, state):
        """A new run of the same scene and options from `state` (a copy of `state` changed as
        wanted: 13 numbers per free body, the state's layout) at the scene's start time; the
        trajectory and the events start over."""
        self._sim.reset([float(v) for v in _np.asarray(state, dtype=float).ravel()])

    def close(self):
        """Frees the simulator; any later call raises RuntimeError."""
        self._sim.close()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    # --- reading -----------------------------------------------------------------------------
    time = property(lambda self: self._sim.time, doc="The simulator's time, s.")
    status = property(lambda self: self._sim.status,
                      doc='"ok", "step_failure", "zeno_guard", "error" or "interrupted".')
    status_message = property(lambda self: self._sim.status_message)
    integrator = property(lambda self: self._sim.integrator)
    state = property(lambda self: self._sim.state,
                     doc="The state vector at time(), a read-only view (13 per free body).")

    def trajectory(self, structured=False):
        """The trajectory so far as a dict of NumPy arrays (views of one table, "__table__"), or
        with structured=True as one structured array with a field per column."""
        names = self._sim.trajectory_columns()
        table = self._sim.trajectory_table()
        if table.shape[0] == 0:
            table = _np.empty((0, len(names)))
        if structured:
            return _np.rec.fromarrays(table.T, names=names)
        columns = {name: table[:, i] for i, name in enumerate(names)}
        columns["__table__"] = table
        return columns

    def summary(self):
        """The run so far as the summary file's main keys: status, message, t_end, integrator,
        stats and the energy now (J)."""
        return {"status": self.status, "message": self.status_message, "t_end": self.time,
                "integrator": self.integrator, "stats": self.statistics(),
                "energy": self.energy()}

    def events(self):
        """Every event record so far, as the lines of events.jsonl (dicts)."""
        return [_json.loads(line) for line in self._sim.events_json()]

    def statistics(self):
        """The run's counters, as the summary's "stats"."""
        return _json.loads(self._sim.statistics_json())

    def body_state(self, body):
        return self._sim.body_state(body)

    def joint_state(self, joint):
        """(position, velocity) of a joint: rad and rad/s, or m and m/s."""
        return self._sim.joint_state(joint)

    def energy(self):
        return self._sim.energy()

    def contacts(self):
        """The contact points at time(): {"ids": [(pair, slot)], "normal_force", "point",
        "normal", "friction"} as arrays (N, m, unit, N; world frame)."""
        ids, table = self._sim.contact_table()
        return {"ids": ids, "normal_force": table[:, 2], "point": table[:, 3:6],
                "normal": table[:, 6:9], "friction": table[:, 9:12]}

    # --- inputs and controllers --------------------------------------------------------------
    def set_input(self, name, value):
        """Sets a scene input (force N, torque N m, a joint effort, a servo command) from now on;
        a scalar for a joint input."""
        value = _np.asarray(value, dtype=float)
        if value.ndim == 0:
            value = _np.array([float(value), 0.0, 0.0])
        self._sim.set_input(name, [float(v) for v in value.ravel()])

    def release_input(self, name):
        self._sim.release_input(name)

    def input_value(self, name):
        return self._sim.input_value(name)

    def velocity_size(self):
        return self._sim.velocity_size()

    def contact_jacobian(self, pair, slot=0):
        """(J, drift): the 6 x nv contact Jacobian and J' v of a contact point (docs/controllers.md)."""
        return self._sim.contact_jacobian(pair, slot)

    def friction_cone(self, pair, slot=0, edges=6, inscribed=True):
        """The edges x 3 matrix C with C f <= 0 for a force f on B inside the linearised cone."""
        return self._sim.friction_cone(pair, slot, edges, inscribed)

    def set_bilateral(self, name, on):
        self._sim.set_bilateral(name, bool(on))
