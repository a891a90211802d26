#!/usr/bin/env python3
"""Tests of the replay page, the glTF export and the run plots, as a user meets them.

Usage: replay_test.py HYBRIDSIM CASE   (ctest runs each case; see tests/CMakeLists.txt)

The page is opened in Debian's headless Chromium (exit 77, "skipped", where it is absent; CI
installs it); screenshots are read with matplotlib. Each case runs the real command line.
"""
import base64
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
HYBRIDSIM = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="hybridsim_replay_test_")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print("ok: " + message)


def hybridsim(*args, expect=0):
    result = subprocess.run([HYBRIDSIM, *args], capture_output=True, text=True, timeout=600)
    if result.returncode != expect:
        fail(f"hybridsim {' '.join(args)} exited {result.returncode}, expected {expect}:\n"
             f"{result.stdout}\n{result.stderr}")
    return result


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    print("SKIP: no chromium on this machine (apt-get install chromium); CI installs it")
    sys.exit(SKIP)


def browser(*args, timeout=120):
    """Headless Chromium with software WebGL; returns (stdout, stderr)."""
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
               "--enable-unsafe-swiftshader", "--force-device-scale-factor=1", "--hide-scrollbars",
               "--user-data-dir=" + os.path.join(WORK, "profile"), *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return result.stdout, result.stderr


def read_csv(path):
    with open(path) as file:
        lines = [line.rstrip("\n").split(",") for line in file if line.strip()]
    header = lines[0]
    return header, [[float(v) if v != "" else math.nan for v in row] for row in lines[1:]]


def read_events(path):
    with open(path) as file:
        return [json.loads(line) for line in file if line.strip()]


def page_data(path):
    """The JSON the page embeds, and its typed arrays decoded."""
    with open(path) as file:
        text = file.read()
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', text,
                      re.S)
    data = json.loads(match.group(1))

    def array(kind, b64):
        raw = base64.b64decode(b64)
        return list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(kind), kind), raw))

    data["frame_times"] = array("d", data["frames"]["times"])
    data["key_times"] = array("d", data["keys"]["times"])
    data["key_bodies"] = array("I", data["keys"]["bodies"])
    return data, len(text.encode())


def bouncing_sphere_run():
    out = os.path.join(WORK, "bouncing")
    hybridsim("run", "bouncing_sphere", "--out", out, "--replay", os.path.join(out, "replay.html"),
              "--gltf", os.path.join(out, "run.glb"), "--quiet")
    return out


def body_colour(name):
    """The replay's colour of a body (docs/replay.md): FNV-1a hash of the name, hue = hash mod
    360 degrees, saturation and lightness 0.55, as 0..255 sRGB."""
    h = 2166136261
    for byte in name.encode():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    hue, s, l = (h % 360) / 60.0, 0.55, 0.55
    c = (1 - abs(2 * l - 1)) * s
    x = c * (1 - abs(hue % 2 - 1))
    rgb = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(hue)]
    return [round(255 * (v + l - c / 2)) for v in rgb]


def project(point, eye, target, fov_degrees, width, height):
    """Pixel (column, row) of a world point in three.js's perspective camera with z up."""
    def sub(a, b):
        return [a[i] - b[i] for i in range(3)]

    def cross(a, b):
        return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

    def unit(a):
        n = math.sqrt(sum(v * v for v in a))
        return [v / n for v in a]

    def dot(a, b):
        return sum(a[i] * b[i] for i in range(3))

    back = unit(sub(eye, target))  # the camera looks along -back
    right = unit(cross([0, 0, 1], back))
    up = cross(back, right)
    d = sub(point, eye)
    x, y, z = dot(d, right), dot(d, up), dot(d, back)
    f = 1 / math.tan(math.radians(fov_degrees) / 2)
    ndc_x = f / (width / height) * x / -z
    ndc_y = f * y / -z
    return (ndc_x + 1) / 2 * width, (1 - ndc_y) / 2 * height


def case_page_loads():
    out = bouncing_sphere_run()
    dom, log = browser("--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000",
                       "--dump-dom", "file://" + os.path.join(out, "replay.html"))
    check('data-ready="1"' in dom, "the page ran its script to the end")
    errors = re.search(r'<div id="errors">(.*?)</div>', dom, re.S)
    check(errors is not None and errors.group(1).strip() == "",
          "no script error on the page: %r" % (errors.group(1)[:300] if errors else None))
    console = [line for line in log.splitlines() if ("CONSOLE" in line or "Uncaught" in line)
               and "GL Driver Message" not in line]  # the renderer's own performance notes
    check(not console, "no console message: %s" % console[:3])
    # A crowd of spheres takes the impostor shader: it must compile and run as cleanly.
    pile = os.path.join(WORK, "pile")
    hybridsim("run", "pile_100", "--stop-time", "0.13", "--out", pile, "--replay",
              os.path.join(pile, "replay.html"), "--quiet")
    dom, log = browser("--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000",
                       "--dump-dom", "file://" + os.path.join(pile, "replay.html") + "#t=0.12")
    check('data-ready="1"' in dom, "pile_100's page ran its script to the end")
    errors = re.search(r'<div id="errors">(.*?)</div>', dom, re.S)
    console = [line for line in log.splitlines() if ("CONSOLE" in line or "Uncaught" in line)
               and "GL Driver Message" not in line]
    check(errors is not None and errors.group(1).strip() == "" and not console,
          "no script error or console message with sphere impostors")


def case_event_list():
    out = bouncing_sphere_run()
    dom, _ = browser("--virtual-time-budget=3000", "--dump-dom",
                     "file://" + os.path.join(out, "replay.html"))
    listed = [float(t) for t in re.findall(r'<li [^>]*data-t="([^"]+)" data-kind="contact_start"',
                                          dom)]
    starts = [e["t"] for e in read_events(os.path.join(out, "events.jsonl"))
              if e["kind"] == "contact_start"]
    check(len(starts) == 16, "bouncing_sphere has its 16 contact starts")
    # Times are printed in JavaScript's shortest round-trip form: equal as doubles.
    check(sorted(listed) == sorted(starts),
          f"the event list holds every contact start of events.jsonl ({len(listed)} listed)")


def case_silhouette():
    out = bouncing_sphere_run()
    from matplotlib import image
    header, rows = read_csv(os.path.join(out, "trajectory.csv"))
    z = header.index("ball.z")
    first_contact = next(e["t"] for e in read_events(os.path.join(out, "events.jsonl"))
                         if e["kind"] == "contact_start")
    eye, target, fov, width, height = [0.9, -2.4, 0.75], [0.0, 0.0, 0.6], 50.0, 800, 600
    colour = body_colour("ball")
    for t in (0.0, first_contact):
        row = next(r for r in rows if r[0] == t)
        centre = [row[header.index("ball.x")], row[header.index("ball.y")], row[z]]
        shot = os.path.join(WORK, f"shot_{t}.png")
        fragment = "#t=%r&camera=%s&fov=%r&ui=0&flat=1" % (
            t, ",".join(repr(v) for v in eye + target), fov)
        browser(f"--window-size={width},{height}", "--virtual-time-budget=3000",
                "--screenshot=" + shot, "file://" + os.path.join(out, "replay.html") + fragment)
        pixels = image.imread(shot)
        check(pixels.shape[0] == height and pixels.shape[1] == width,
              f"t = {t}: a {width} x {height} screenshot")
        # The ball's pixels: its unlit colour (flat=1), within 3 levels of 255 (rounding).
        rgb = pixels[:, :, :3] * 255
        mask = (abs(rgb - colour) <= 3).all(axis=2)
        rows_at, columns_at = mask.nonzero()
        count = len(rows_at)
        sx = (columns_at + 0.5).sum()
        sy = (rows_at + 0.5).sum()
        check(count > 100, f"t = {t}: the ball covers {count} pixels")
        u, v = project(centre, eye, target, fov, width, height)
        error = math.hypot(sx / count - u, sy / count - v)
        # 2 px: the silhouette of a 32 x 16 faceted sphere is centred on its projection to well
        # under a pixel, and perspective moves an ellipse's centre by (r/d)^2 of its distance
        # from the image centre (0.1 m at 2.6 m: 0.15 % of 300 px, 0.4 px).
        check(error <= 2.0, f"t = {t}: silhouette centre ({sx / count:.2f}, {sy / count:.2f}) "
                            f"vs the projection of ball's position ({u:.2f}, {v:.2f}): {error:.2f} px")


def case_replay_command():
    out = bouncing_sphere_run()
    later = os.path.join(WORK, "later.html")
    hybridsim("replay", out, "-o", later)
    during, _ = page_data(os.path.join(out, "replay.html"))
    after, _ = page_data(later)
    for key in ("frame_times", "key_times", "key_bodies"):
        check(during[key] == after[key], f"hybridsim replay OUTDIR gives the run's {key}")
    check(during["frames"]["poses"] == after["frames"]["poses"], "... and the same poses")
    check(during["frames"]["contacts"] == after["frames"]["contacts"], "... and contact forces")
    check(len(during["events"]) == len(read_events(os.path.join(out, "events.jsonl"))),
          "the page holds every event record")
    # A trajectory alone needs its scene.
    result = hybridsim("replay", os.path.join(out, "trajectory.csv"), "-o", later, expect=2)
    check("--scene" in result.stderr, "a lone trajectory asks for --scene: " + result.stderr.strip())
    hybridsim("replay", os.path.join(out, "trajectory.csv"), "--scene", "bouncing_sphere",
              "--events", os.path.join(out, "events.jsonl"), "-o", later)


def case_fixed_bodies():
    """A fixed body stands where the scene puts it: the tilted slope of rolling_sphere_incline,
    as `hybridsim check` reports its pose, and in the screenshot the ball sits on it."""
    out = os.path.join(WORK, "incline")
    hybridsim("run", "rolling_sphere_incline", "--stop-time", "0.2", "--out", out, "--replay",
              os.path.join(out, "replay.html"), "--quiet")
    loaded = json.loads(hybridsim("check", "rolling_sphere_incline", "--json").stdout)
    data, _ = page_data(os.path.join(out, "replay.html"))
    for body, page_body in zip(loaded["bodies"], data["bodies"]):
        expected = body["position"] + body["orientation"]
        check(page_body["name"] == body["name"] and
              max(abs(a - b) for a, b in zip(page_body["pose"], expected)) < 1e-15,
              f"{body['name']}: the page places it at the loader's pose {expected}")


def case_budget():
    out = os.path.join(WORK, "small")
    result = hybridsim("run", "bouncing_sphere", "--out", out, "--replay",
                       os.path.join(out, "replay.html"), "--replay-budget", "0.5", expect=4)
    check("too small" in result.stderr and os.path.exists(os.path.join(out, "summary.json")),
          "a budget below three.js is refused, the other outputs written: " +
          result.stderr.strip().splitlines()[0])
    result = hybridsim("replay", out, "-o", os.path.join(out, "r.html"), "--budget", "0", expect=2)
    check("--budget" in result.stderr, "--budget 0 is refused: " + result.stderr.strip())


def case_decimation():
    out = os.path.join(WORK, "pile")
    budget_mb = 2.0
    hybridsim("run", "pile_100", "--stop-time", "0.14", "--output-interval", "0.0002", "--out", out,
              "--replay", os.path.join(out, "replay.html"), "--replay-budget", str(budget_mb),
              "--quiet")
    data, size = page_data(os.path.join(out, "replay.html"))
    check(size <= budget_mb * 1e6, f"the page takes {size} bytes, within {budget_mb} MB")
    check(data["frames"]["kept"] < data["frames"]["recorded"],
          f"frames thinned: {data['frames']['kept']} of {data['frames']['recorded']}")
    check(data["keys"]["kept"] == data["keys"]["recorded"], "every event pose kept")
    events = read_events(os.path.join(out, "events.jsonl"))
    instants = {e["t"] for e in events if e["kind"] in ("contact_start", "contact_end")}
    key_instants = set(data["key_times"])
    check(len(instants) > 20, f"pile_100 has {len(instants)} contact event instants")
    check(instants <= key_instants, "every contact event instant has its poses in the page")


def case_gltf():
    out = bouncing_sphere_run()
    with open(os.path.join(out, "run.glb"), "rb") as file:
        blob = file.read()
    magic, version, length = struct.unpack_from("<III", blob, 0)
    check(magic == 0x46546C67 and version == 2 and length == len(blob), "a glTF 2.0 binary")
    json_length, json_type = struct.unpack_from("<II", blob, 12)
    check(json_type == 0x4E4F534A, "its first chunk is JSON")
    gltf = json.loads(blob[20:20 + json_length])
    bin_offset = 20 + json_length
    bin_length, bin_type = struct.unpack_from("<II", blob, bin_offset)
    check(bin_type == 0x004E4942, "its second chunk is BIN")
    binary = blob[bin_offset + 8:bin_offset + 8 + bin_length]

    def accessor(index):
        a = gltf["accessors"][index]
        view = gltf["bufferViews"][a["bufferView"]]
        size = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[a["type"]]
        check(view["byteOffset"] + view["byteLength"] <= len(binary), f"accessor {index} in range")
        kind = "f" if a["componentType"] == 5126 else "I"
        values = struct.unpack_from("<%d%s" % (a["count"] * size, kind), binary, view["byteOffset"])
        return [values[i:i + size] for i in range(0, len(values), size)]

    names = [node["name"] for node in gltf["nodes"]]
    check(names == ["ground", "ball"], "one node per body, named after it")
    # The expected keyframes, rebuilt from the files: the ball's pose at every trajectory row
    # (outputs and the contact events that name it), one per float32 time, the later kept.
    header, rows = read_csv(os.path.join(out, "trajectory.csv"))
    columns = [header.index("ball." + q) for q in ("x", "y", "z", "qx", "qy", "qz", "qw")]
    expected = []
    for row in rows:
        t32 = struct.unpack("<f", struct.pack("<f", row[0]))[0]
        if expected and expected[-1][0] == t32:
            expected.pop()
        expected.append((t32, [row[c] for c in columns]))
    animation = gltf["animations"][0]
    channels = {c["target"]["path"]: animation["samplers"][c["sampler"]]
                for c in animation["channels"] if c["target"]["node"] == names.index("ball")}
    times = [v[0] for v in accessor(channels["translation"]["input"])]
    check(times == [t for t, _ in expected], f"{len(times)} keyframes at the trajectory's rows")
    check(all(b > a for a, b in zip(times, times[1:])), "keyframe times increase strictly")
    translations = accessor(channels["translation"]["output"])
    rotations = accessor(channels["rotation"]["output"])
    worst = 0.0
    for (t, pose), p, q in zip(expected, translations, rotations):
        worst = max(worst, max(abs(p[k] - pose[k]) for k in range(3)))
        sign = 1 if sum(q[k] * pose[3 + k] for k in range(4)) >= 0 else -1
        worst = max(worst, max(abs(sign * q[k] - pose[3 + k]) for k in range(4)))
    # 1e-6: float32 keeps 2^-24 relative, 7e-8 m at the ball's 1.1 m and 6e-8 on a unit quaternion.
    check(worst <= 1e-6, f"the channels reproduce the trajectory within {worst:.2e} (<= 1e-6)")
    # The Khronos glTF-Validator (npm's gltf-validator, which tools/test.sh installs into
    # build/gltf-validator where npm exists).
    modules = os.path.join(os.path.dirname(os.path.dirname(HYBRIDSIM)), "gltf-validator",
                           "node_modules")
    if shutil.which("node") and os.path.isdir(os.path.join(modules, "gltf-validator")):
        report = subprocess.run(["node", os.path.join(os.path.dirname(__file__), "validate_gltf.js"),
                                 os.path.join(out, "run.glb")], capture_output=True, text=True,
                                env=dict(os.environ, NODE_PATH=modules))
        check(report.returncode == 0, report.stdout.strip())
    else:
        print("note: the Khronos glTF-Validator is not installed (needs node and npm); the "
              "structure was checked above")


def case_plot():
    out = bouncing_sphere_run()
    from matplotlib import image
    figure = os.path.join(WORK, "summary.png")
    hybridsim("plot", out, "-o", figure)
    pixels = image.imread(figure)
    grey = pixels[:, :, :3].mean(axis=2)
    check(grey.var() > 0.005, f"the run summary figure is not blank (pixel variance {grey.var():.4f})")
    columns = os.path.join(WORK, "columns.svg")
    hybridsim("plot", out, "--y", "body.ball.z,energy.total", "-o", columns)
    with open(columns) as file:
        check("<svg" in file.read(1000), "--y columns as an SVG")
    result = hybridsim("plot", out, "--y", "body.ball.zz", "-o", figure, expect=2)
    check("body.ball.zz" in result.stderr, "an unknown column is named: " + result.stderr.strip())
    # --plot on run writes the figure next to the outputs.
    plotted = os.path.join(WORK, "plotted")
    hybridsim("run", "bouncing_sphere", "--out", plotted, "--plot", "--quiet")
    check(os.path.getsize(os.path.join(plotted, "summary.png")) > 10000, "run --plot: summary.png")


def case_progress():
    import time
    started = time.monotonic()
    result = hybridsim("run", "pile_100", "--stop-time", "0.17", "--progress", "--quiet")
    wall = time.monotonic() - started
    # Text mode reads the carriage returns as line ends.
    draws = [d for d in result.stderr.splitlines() if d.startswith("[")]
    # Shown from the first second on, redrawn every 0.25 s: at least one draw per 0.5 s after it.
    if wall < 1.5:
        print(f"SKIP: the run took {wall:.1f} s, too short to see redraws")
        sys.exit(SKIP)
    check(len(draws) >= int((wall - 1.0) / 0.5),
          f"{len(draws)} progress redraws in {wall:.1f} s (at least one per 0.5 s after the first)")
    times = [float(d.split("t = ")[1].split(" s")[0]) for d in draws]
    check(times == sorted(times) and abs(times[-1] - 0.17) < 1e-6,
          "simulated time rises to the stop time (as printed, 6 digits)")


if __name__ == "__main__":
    try:
        globals()["case_" + sys.argv[2]]()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
