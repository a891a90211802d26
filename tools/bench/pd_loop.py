#!/usr/bin/env python3
"""The Python control loop against the same loop in C++ (BENCHMARKS.md).

Usage: PYTHONPATH=build/python python3 tools/bench/pd_loop.py BUILD_DIR [REPEATS]

A PD controller at 1 kHz over 1 s of simulated time on tools/bench/pd_wheel.yaml: each period
reads the joint, sets the torque input and advances. Times the loop alone (the scene loaded
before the clock starts), median of REPEATS, here and in build/tools/bench/hybridsim_bench_pd_loop,
runs them in turn and prints both and the overhead.
"""
import os
import statistics
import subprocess
import sys
import time

import hybridsim

SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pd_wheel.yaml")
KP, KD, TARGET, PERIOD = 2.0, 0.3, 1.0, 1e-3


def python_loop():
    sim = hybridsim.Simulator(SCENE)
    started = time.perf_counter()
    for k in range(1000):
        q, qd = sim.joint_state("axle")
        sim.set_input("torque", KP * (TARGET - q) - KD * qd)
        sim.advance((k + 1) * PERIOD)
    elapsed = time.perf_counter() - started
    return elapsed, sim.joint_state("axle")[0]


def main():
    build = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    yardstick = os.path.join(build, "tools", "bench", "hybridsim_bench_pd_loop")
    python_times, cpp_times = [], []
    for _ in range(repeats):
        elapsed, angle = python_loop()
        python_times.append(elapsed)
        out = subprocess.run([yardstick, SCENE, "1"], capture_output=True, text=True,
                             check=True).stdout
        cpp_times.append(float(out.split("C++ loop: ")[1].split(" s")[0]))
        cpp_angle = float(out.split("final angle ")[1].split(" rad")[0])
    p, c = statistics.median(python_times), statistics.median(cpp_times)
    print(f"Python loop: {p:.6f} s, C++ loop: {c:.6f} s (medians of {repeats}, alternating); "
          f"Python overhead {100 * (p / c - 1):.1f} %; final angles {angle:.12f} and "
          f"{cpp_angle:.12f} rad")


if __name__ == "__main__":
    main()
