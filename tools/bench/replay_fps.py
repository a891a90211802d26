#!/usr/bin/env python3
"""Frames per second of a replay page playing in headless Chromium (BENCHMARKS.md).

Usage: replay_fps.py PAGE.html [SECONDS] [WIDTHxHEIGHT] [OPTIONS]   (OPTIONS: the page's, as camera=...)

Opens the page with `#bench=SECONDS` (it plays its whole run once every SECONDS of wall time and
counts the frames it draws), waits, and prints the frames per second it measured, with the load
time. Chromium is driven over its DevTools pipe (--remote-debugging-pipe: JSON messages ending in
NUL on file descriptors 3 and 4), so the figure is wall-clock time, not virtual time.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class DevToolsPipe:
    def __init__(self, command):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        # The browser reads commands on fd 3 and writes replies on fd 4.
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=lambda: (os.dup2(to_browser_read, 3), os.dup2(from_browser_write, 4)))
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def close(self):
        self.process.kill()
        self.process.wait()


def main():
    page = os.path.abspath(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    width, height = (sys.argv[3] if len(sys.argv) > 3 else "1280x720").split("x")
    extra = ("&" + sys.argv[4]) if len(sys.argv) > 4 else ""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    profile = tempfile.mkdtemp(prefix="replay_fps_")
    pipe = DevToolsPipe([browser, "--headless", "--no-sandbox", "--use-angle=swiftshader",
                         "--enable-unsafe-swiftshader", "--remote-debugging-pipe",
                         f"--window-size={width},{height}", "--user-data-dir=" + profile,
                         "about:blank"])
    try:
        started = time.monotonic()
        target = pipe.call("Target.createTarget",
                           {"url": f"file://{page}#bench={seconds}{extra}"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"]

        def evaluate(expression):
            result = pipe.call("Runtime.evaluate", {"expression": expression,
                                                    "returnByValue": True}, session)
            return result["result"].get("value")

        while evaluate("document.body && document.body.dataset.ready") != "1":
            time.sleep(0.05)
        loaded = time.monotonic() - started
        fps = None
        deadline = time.monotonic() + seconds + 30
        while fps is None and time.monotonic() < deadline:
            time.sleep(0.25)
            fps = evaluate("document.body.dataset.fps || null")
        errors = evaluate("window.replayErrors.join('; ')")
        bodies = evaluate("data.moving.length")
        print(f"{page}: {bodies} moving bodies, {width}x{height}: loaded in {loaded:.1f} s, "
              f"{fps} frames per second over {seconds:g} s of playing"
              + (f"; errors: {errors}" if errors else ""))
    finally:
        pipe.close()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
