#!/usr/bin/env python3
"""The catalog's gallery: docs/gallery.md and one picture per scene in docs/gallery/.

Usage: make_gallery.py HYBRIDSIM [SCENE ...]   (from the source tree's root)

Each scene runs with `hybridsim run SCENE --trajectory` (at most 3 s of simulated time and 60 s
of wall time; the piles over their first instants), and its bodies are drawn from the shapes that
`hybridsim check --json` reports, side on, at six instants from light to dark, with the path of
each free body's centre of mass. The view looks along y, or along x when the bodies move more in y; a
half-space is drawn as ground, meshes and heightmaps as their outline is not projected (a note
says so). Needs matplotlib (Debian's python3-matplotlib).
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402

# Simulated time for scenes whose whole run takes minutes (their first instants show the set-up).
SHORT_RUNS = {"pile_1000": 0.02, "pile_100": 0.1, "grid_10x10": 0.5}
MAX_STOP_TIME = 3.0
WALL_LIMIT_S = 60


def quat_rotate(q, v):
    w, x, y, z = q
    # v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z)
    ux, uy, uz = x, y, z
    cx = uy * v[2] - uz * v[1]
    cy = uz * v[0] - ux * v[2]
    cz = ux * v[1] - uy * v[0]
    ccx = uy * cz - uz * cy
    ccy = uz * cx - ux * cz
    ccz = ux * cy - uy * cx
    return (v[0] + 2 * (w * cx + ccx), v[1] + 2 * (w * cy + ccy), v[2] + 2 * (w * cz + ccz))


def quat_multiply(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def hull(points):
    """Convex hull of 2-D points (monotone chain), counter-clockwise."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def shape_points(shape):
    """Points of a shape's surface in its own frame, whose projected hull is its outline."""
    g = shape["geometry"]
    kind = shape["type"]
    ring = [(math.cos(2 * math.pi * k / 24), math.sin(2 * math.pi * k / 24)) for k in range(24)]
    if kind == "box":
        sx, sy, sz = (s / 2 for s in g["size"])
        return [(a * sx, b * sy, c * sz) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]
    if kind in ("cylinder", "cone"):
        top = g.get("top_radius", g["radius"]) if kind == "cone" else g["radius"]
        half = g["length"] / 2
        return ([(g["radius"] * c, g["radius"] * s, -half) for c, s in ring] +
                [(top * c, top * s, half) for c, s in ring])
    if kind == "capsule":
        r, half = g["radius"], g["length"] / 2
        sphere = [(r * math.cos(a) * math.cos(b), r * math.cos(a) * math.sin(b), r * math.sin(a))
                  for a in [math.pi * (k / 8 - 0.5) for k in range(9)]
                  for b in [2 * math.pi * k / 12 for k in range(12)]]
        return [(x, y, z + side * half) for side in (-1, 1) for x, y, z in sphere]
    if kind == "ellipsoid":
        rx, ry, rz = g["radii"]
        return [(rx * math.cos(a) * math.cos(b), ry * math.cos(a) * math.sin(b), rz * math.sin(a))
                for a in [math.pi * (k / 10 - 0.5) for k in range(11)]
                for b in [2 * math.pi * k / 16 for k in range(16)]]
    if kind == "convex" and "hull_vertices" in shape:
        return [tuple(v) for v in shape["hull_vertices"]]
    return None


def run(hybridsim, args, cwd):
    return subprocess.run([hybridsim] + args, cwd=cwd, capture_output=True, text=True,
                          timeout=WALL_LIMIT_S)


def catalog(hybridsim):
    """(name, description, reference) of every catalog scene, from `hybridsim list`."""
    out = subprocess.run([hybridsim, "list"], capture_output=True, text=True, check=True).stdout
    entries, lines = [], out.splitlines()
    for i in range(0, len(lines) - 1, 2):
        name, _, description = lines[i].partition(" ")
        reference = lines[i + 1].strip().removeprefix("reference: ")
        entries.append((name, description.strip(), reference))
    return entries


def read_trajectory(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header = rows[0]
    # A run stopped at the wall limit may leave its last row unfinished.
    data = [[float(x) for x in row] for row in rows[1:] if len(row) == len(header)]
    return header, data


def draw_scene(name, model, header, data, png):
    column = {h: i for i, h in enumerate(header)}
    bodies = model["bodies"]
    free = [b for b in bodies if b["kind"] != "fixed"]
    # The view: along y unless the bodies move more in y than in x.
    spread = {0: 0.0, 1: 0.0}
    for b in free:
        for axis, key in ((0, ".x"), (1, ".y")):
            values = [row[column[b["name"] + key]] for row in data]
            spread[axis] = max(spread[axis], max(values) - min(values))
    horizontal = 1 if spread[1] > spread[0] else 0
    fig, ax = plt.subplots(figsize=(5.0, 3.6), dpi=110)
    instants = sorted({round(k * (len(data) - 1) / 5) for k in range(6)})
    notes = set()
    extent = []
    def poses():
        """(shade, alpha, colour, body, position, quaternion) of each body at each instant;
        fixed bodies once."""
        for frame, index in enumerate(instants):
            row = data[index]
            shade = 0.25 + 0.75 * (frame + 1) / len(instants)
            for b in bodies:
                if b["kind"] == "fixed" and frame > 0:
                    continue
                if b["name"] + ".x" in column:
                    p = [row[column[b["name"] + k]] for k in (".x", ".y", ".z")]
                    q = [row[column[b["name"] + k]] for k in (".qw", ".qx", ".qy", ".qz")]
                else:
                    p, q = b["position"], b["orientation"]
                fixed = b["kind"] == "fixed"
                color = "0.55" if fixed else plt.cm.viridis(
                    (zlib.crc32(b["name"].encode()) % 97) / 97.0)
                yield (0.8 if fixed else shade), color, b, p, q

    for alpha, color, b, p, q in poses():
        for s in b["shapes"]:
            if s["type"] in ("halfspace", "sphere"):
                continue  # drawn below: across the view, and as circles
            points = shape_points(s)
            if points is None:
                notes.add(s["type"])
                continue
            q_ws = quat_multiply(q, s["orientation"])
            offset = quat_rotate(q, s["position"])
            world = [quat_rotate(q_ws, v) for v in points]
            flat = [(w[horizontal] + p[horizontal] + offset[horizontal],
                     w[2] + p[2] + offset[2]) for w in world]
            outline = hull(flat)
            extent.extend(outline)
            ax.add_patch(Polygon(outline, closed=True, facecolor=color, edgecolor="black",
                                 linewidth=0.4, alpha=alpha))
    # Spheres, as circles above the outlines.
    for alpha, color, b, p, q in poses():
        for s in b["shapes"]:
            if s["type"] != "sphere":
                continue
            c = quat_rotate(q, s["position"])
            centre = (p[horizontal] + c[horizontal], p[2] + c[2])
            r = s["geometry"]["radius"]
            ax.add_patch(plt.Circle(centre, r, facecolor=color, edgecolor="black", linewidth=0.4,
                                    alpha=alpha))
            extent.extend([(centre[0] - r, centre[1] - r), (centre[0] + r, centre[1] + r)])
    # Paths of the free bodies' centres of mass.
    for b in free:
        xs, zs = [], []
        for row in data:
            p = [row[column[b["name"] + k]] for k in (".x", ".y", ".z")]
            q = [row[column[b["name"] + k]] for k in (".qw", ".qx", ".qy", ".qz")]
            c = quat_rotate(q, b["center_of_mass"])
            xs.append(p[horizontal] + c[horizontal])
            zs.append(p[2] + c[2])
        ax.plot(xs, zs, linewidth=0.6, color="black", alpha=0.5)
        extent.extend(zip(xs, zs))
    if not extent:
        extent = [(-1, -1), (1, 1)]
    xmin = min(e[0] for e in extent)
    xmax = max(e[0] for e in extent)
    zmin = min(e[1] for e in extent)
    zmax = max(e[1] for e in extent)
    margin = 0.1 * max(xmax - xmin, zmax - zmin, 1e-3)
    xmin, xmax, zmin, zmax = xmin - margin, xmax + margin, zmin - margin, zmax + margin
    # Half-spaces: the ground below their plane, within the view.
    for b in bodies:
        for s in b["shapes"]:
            if s["type"] != "halfspace":
                continue
            q_ws = quat_multiply(b["orientation"], s["orientation"])
            n = quat_rotate(q_ws, s["geometry"]["normal"])
            origin = [b["position"][k] + quat_rotate(b["orientation"], s["position"])[k]
                      for k in range(3)]
            d = s["geometry"]["offset"] + sum(n[k] * origin[k] for k in range(3))
            nh, nz = n[horizontal], n[2]
            if abs(nz) < 1e-9:
                continue
            # z on the plane at the view's edges (the other horizontal coordinate at 0).
            z0 = (d - nh * xmin) / nz
            z1 = (d - nh * xmax) / nz
            zmin = min(zmin, z0, z1) if nz > 0 else zmin
            ax.add_patch(Polygon([(xmin, z0), (xmax, z1), (xmax, zmin - 10), (xmin, zmin - 10)],
                                 closed=True, facecolor="0.8", edgecolor="0.3", linewidth=0.8,
                                 zorder=0))
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(zmin, zmax)
    ax.set_aspect("equal")
    ax.set_xlabel("y, m" if horizontal else "x, m")
    ax.set_ylabel("z, m")
    title = f"{name}: t = 0 … {data[-1][0]:.3g} s"
    if notes:
        title += f" ({', '.join(sorted(notes))} not drawn)"
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(png)
    plt.close(fig)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    hybridsim = os.path.abspath(sys.argv[1])
    chosen = set(sys.argv[2:])
    os.makedirs("docs/gallery", exist_ok=True)
    entries = [e for e in catalog(hybridsim) if not chosen or e[0] in chosen]
    page = ["# Gallery: the scene catalog", "",
            "Every catalog scene, drawn side on at six instants (light to dark) with the path of each",
            "free body's centre of mass, by `tools/make_gallery.py` from a run of the scene (regenerate with",
            "`/usr/bin/python3 tools/make_gallery.py build/tools/hybridsim`). Each scene's reference",
            "is what the test suite checks it against.", ""]
    for name, description, reference in entries:
        with tempfile.TemporaryDirectory() as work:
            model = json.loads(run(hybridsim, ["check", "--json", name], work).stdout)
            stop = min(model["simulation"]["stop_time"], SHORT_RUNS.get(name, MAX_STOP_TIME))
            trajectory = os.path.join(work, "t.csv")
            try:
                run(hybridsim, ["run", name, "--quiet", "--stop-time", str(stop), "--trajectory",
                                trajectory], work)
            except subprocess.TimeoutExpired:
                pass
            header, data = read_trajectory(trajectory)
            draw_scene(name, model, header, data, f"docs/gallery/{name}.png")
        command = f"build/tools/hybridsim run {name} --log-events"
        page += [f"## {name}", "", f"![{name}](gallery/{name}.png)", "", description, "",
                 f"Checked against: {reference}", "", f"`{command}`", ""]
        print(name, file=sys.stderr)
    if not chosen:
        with open("docs/gallery.md", "w") as f:
            f.write("\n".join(page))
    return 0


if __name__ == "__main__":
    sys.exit(main())
