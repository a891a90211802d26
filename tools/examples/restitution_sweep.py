#!/usr/bin/env python3
"""Sweeps the restitution of bouncing_sphere from Python and plots the bounce heights.

Usage: PYTHONPATH=build/python python3 tools/examples/restitution_sweep.py [FIGURE.png]

For e in 0.3, 0.5, 0.7 and 0.9 the catalog's steel ball is dropped from 1 m (its lowest point)
with `contact_materials.0.restitution` set to e, and the apex of each rebound is read from the
trajectory. With the exact restitution law the k-th apex would be e^(2k) h if the impacts were
instantaneous; the figure draws both. Gravity also acts during each contact (tau of about 0.2
ms, Hertz), taking about 2 g tau / v of the rebound height at rebound speed v: 0.3 % for the
first rebound at e = 0.3 (1.3 m/s), more for the slow late ones. The script prints the largest
relative difference of the first rebounds, which must stay below 0.5 %, and of all of them.
(Apexes are sampled at the output times, 1 ms apart: at most g dt^2 / 8, about 1e-6 m, low.)
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

import hybridsim  # noqa: E402

DROP = 1.0  # m, from the ball's lowest point to the plate
RADIUS = 0.1  # m


def apex_heights(restitution):
    """Heights of the lowest point at each rebound apex, m."""
    sim = hybridsim.Simulator("bouncing_sphere", output_interval=1e-3,
                              set={"contact_materials.0.restitution": restitution})
    sim.run(2.0)
    trajectory = sim.trajectory()
    z, vz = trajectory["ball.z"] - RADIUS, trajectory["ball.vz"]
    # An apex: the vertical velocity turns from up to down between two rows.
    apexes = [max(z[i], z[i + 1]) for i in range(len(z) - 1) if vz[i] > 0 >= vz[i + 1]]
    # Rebounds lower than 1 mm are at the law's v_small, where e no longer applies.
    return np.array([h for h in apexes if h > 1e-3])


def main():
    figure_path = sys.argv[1] if len(sys.argv) > 1 else "restitution_sweep.png"
    figure, axes = plt.subplots(figsize=(7, 4.5))
    worst = first_worst = 0.0
    for e, colour in zip((0.3, 0.5, 0.7, 0.9), ("C0", "C1", "C2", "C3")):
        heights = apex_heights(e)
        k = np.arange(1, len(heights) + 1)
        closed_form = DROP * e ** (2 * k)
        worst = max(worst, float(np.max(np.abs(heights / closed_form - 1))))
        first_worst = max(first_worst, abs(heights[0] / closed_form[0] - 1))
        axes.semilogy(k, heights, "o", color=colour, label=f"e = {e}: hybridsim")
        axes.semilogy(k, closed_form, "-", color=colour, linewidth=0.8, label="e^(2k) h")
        print(f"e = {e}: {len(heights)} rebounds, apex heights {np.round(heights, 6).tolist()[:4]} ...")
    axes.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    axes.set_xlabel("rebound k")
    axes.set_ylabel("apex height above the plate (m)")
    axes.set_title("bouncing_sphere: rebound apexes against e^(2k) h")
    axes.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(figure_path, dpi=110)
    print(f"largest relative difference from e^(2k) h: first rebounds {first_worst:.2e}, all "
          f"{worst:.2e}; figure: {figure_path}")
    if first_worst > 5e-3:
        sys.exit("the first rebounds are further from e^(2k) h than gravity during contact explains")


if __name__ == "__main__":
    main()
