#!/usr/bin/env python3
"""The HDF5 trajectory of `hybridsim run`, read as its users read it: with h5py.

Usage: hdf5_trajectory_test.py HYBRIDSIM   (ctest runs it; exit 77, skipped, without h5py)

The same run writes the CSV trajectory, the events JSON lines and the HDF5 file; every dataset
must hold exactly the CSV's numbers (17 significant digits round-trip a double) and every event
record its line. The first impact is checked against free fall besides: a sphere dropped from
rest meets the plate at v_pre = g t.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
try:
    import h5py
except ImportError:
    print("h5py is not installed (Debian's python3-h5py): skipped")
    sys.exit(SKIP)

HYBRIDSIM = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="hybridsim_hdf5_test_")


def check(condition, message):
    if not condition:
        print("FAIL: " + message)
        sys.exit(1)
    print("ok: " + message)


def hybridsim(*args, expect=0):
    result = subprocess.run([HYBRIDSIM, *args], capture_output=True, text=True, timeout=300)
    check(result.returncode == expect,
          f"hybridsim {' '.join(args)} exits {expect} ({result.returncode}: {result.stderr})")
    return result


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [[float(v) for v in line.split(",")] for line in f if line.strip()]
    return header, rows


def main():
    # 1,501 outputs and 30 events: the rows span two chunks of 1,024.
    run = ["run", "bouncing_sphere", "--quiet", "--stop-time", "3", "--output-interval", "0.002"]
    csv, events, h5 = (os.path.join(WORK, n) for n in ("t.csv", "e.jsonl", "t.h5"))
    hybridsim(*run, "--trajectory", csv, "--events", events)
    # The format told by the extension.
    hybridsim(*run, "--trajectory", h5)
    header, rows = read_csv(csv)
    with open(events) as f:
        lines = [json.loads(line) for line in f]

    with h5py.File(h5, "r") as f:
        group = f["trajectory"]
        columns = [c.decode() if isinstance(c, bytes) else c for c in group.attrs["columns"]]
        check(columns == header, "the attribute `columns` is the CSV header, t first")
        check(all(group[c].shape == (len(rows),) for c in columns),
              f"every column has a value per row ({len(rows)})")
        check(len(rows) > 1024, f"{len(rows)} rows: more than one chunk")
        same = all(list(group[c][:]) == [row[j] for row in rows] for j, c in enumerate(columns))
        check(same, "every value is the CSV's, bit for bit")

        table = f["events"]
        check(table.shape == (len(lines),), f"/events has a row per event record ({len(lines)})")
        text = lambda v: v.decode() if isinstance(v, bytes) else v
        def same_event(row, line):
            v_pre = (row["v_pre"] == line["v_pre"] if line["kind"] == "contact_start"
                     else math.isnan(row["v_pre"]))
            return (row["t"] == line["t"] and text(row["kind"]) == line["kind"]
                    and text(row["pair_a"]) == line["pair"][0]
                    and text(row["contact_id"]) == line["contact_id"]
                    and [row["point_x"], row["point_y"], row["point_z"]] == line["point"]
                    and v_pre)
        check(all(same_event(row, line) for row, line in zip(table, lines)),
              "every event row is its JSON line (t, kind, pair, id, point, v_pre)")
        first = table[0]
        # Free fall from rest under g = 9.81: v = g t at the first contact start. The crossing is
        # found to the root finder's tolerance (1e-10 s here), far below the 1e-6 relative bound.
        check(text(first["kind"]) == "contact_start"
              and abs(first["v_pre"] - 9.81 * first["t"]) < 1e-6 * first["v_pre"],
              f"first impact at v_pre = g t ({first['v_pre']:.9f} m/s at t = {first['t']:.9f} s)")

    # Selected columns and --out: trajectory.h5 in the folder, t and the chosen columns only.
    out = os.path.join(WORK, "out")
    hybridsim(*run, "--out", out, "--trajectory-format", "hdf5", "--trajectory-columns", "ball.z")
    with h5py.File(os.path.join(out, "trajectory.h5"), "r") as f:
        check(sorted(f["trajectory"].keys()) == ["ball.z", "t"], "--out writes trajectory.h5 "
              "with the chosen columns")
        z = header.index("ball.z")
        check(list(f["trajectory/ball.z"][:]) == [r[z] for r in rows], "the same heights")
    check(not os.path.exists(os.path.join(out, "trajectory.h5.tmp")), "no temporary file left")

    # Bad input: an unknown format, a folder that does not exist (exit 2, naming the file).
    bad = hybridsim(*run, "--trajectory", h5, "--trajectory-format", "parquet", expect=2)
    check("--trajectory-format 'parquet': expected csv or hdf5" in bad.stderr, "unknown format")
    missing = os.path.join(WORK, "nowhere", "t.h5")
    bad = hybridsim(*run, "--trajectory", missing, expect=2)
    check(missing in bad.stderr, "an unwritable path is named")
    bad = hybridsim(*run, "--trajectory", "/dev/null", "--trajectory-format", "hdf5", expect=2)
    check("/dev/null: an HDF5 trajectory needs a regular file" in bad.stderr,
          "a device is refused, not replaced")
    # A '/' in a column name would be a group in HDF5: refused before the run, naming it.
    scene = os.path.join(WORK, "slash.yaml")
    with open(scene, "w") as f:
        f.write("simulation: {stop_time: 0.1}\nbodies:\n"
                "  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}\n"
                "  - {name: left/ball, position: [0, 0, 1], shapes: [{type: sphere, radius: 0.1, "
                "material: Steel}]}\n")
    bad = hybridsim("run", scene, "--quiet", "--trajectory", h5, expect=2)
    check("the column 'left/ball.x' holds a '/'" in bad.stderr, "a '/' in a name is refused")
    shutil.rmtree(WORK)


if __name__ == "__main__":
    main()
