#!/usr/bin/env python3
"""Work-precision plots and a Markdown report of a `hybridsim batch` result set.

Usage: plot_batch.py DIR

Reads DIR/results.csv and writes, per scene and parameter set, DIR/plots/<figure>.png and .svg:
error (L2 on the uniform grid, else the final-state error) against the minimum wall time and
against RHS evaluations, log-log, one curve per integrator over its tolerances or step sizes.
Then DIR/report.md with a table per figure and the plots embedded. Needs matplotlib (Debian's
python3-matplotlib).
"""
import csv
import math
import os
import re
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def number(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def error_of(row):
    """The run's error: L2 on the grid where it exists, else the final-state error."""
    for column in ("l2_error", "final_error"):
        value = number(row[column])
        if math.isfinite(value) and value > 0:
            return value
    return math.nan


def short(text):
    """A number for the report's tables, 3 significant digits; empty stays empty."""
    value = number(text)
    return f"{value:.3g}" if math.isfinite(value) else ""


def figure_name(scene, parameters):
    text = scene if not parameters else f"{scene}__{parameters}"
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", text).strip("_")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    with open(os.path.join(directory, "results.csv"), newline="") as handle:
        rows = list(csv.DictReader(handle))
    os.makedirs(os.path.join(directory, "plots"), exist_ok=True)

    # Figures by scene and parameter set; in each, curves by integrator; one point per
    # configuration (its first repetition: errors and counters do not change between them).
    figures = OrderedDict()
    for row in rows:
        if row["repetition"] != "0":
            continue
        key = (row["scene"], row["parameters"])
        figures.setdefault(key, OrderedDict()).setdefault(row["integrator"], []).append(row)

    report = ["# Batch report", "", f"{len(rows)} runs from `{directory}/results.csv`.", ""]
    for (scene, parameters), curves in figures.items():
        name = figure_name(scene, parameters)
        title = scene + (f" ({parameters})" if parameters else "")
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
        for label, points in curves.items():
            good = [p for p in points if p["status"] == "ok" and math.isfinite(error_of(p))]
            if not good:
                continue
            errors = [error_of(p) for p in good]
            axes[0].loglog([number(p["wall_time_min_s"]) for p in good], errors, "o-", label=label)
            axes[1].loglog([number(p["rhs_evals"]) for p in good], errors, "o-", label=label)
        axes[0].set_xlabel("wall time, s (minimum over repetitions)")
        axes[1].set_xlabel("RHS evaluations")
        for axis in axes:
            axis.set_ylabel("L2 error on the grid")
            axis.grid(True, which="both", alpha=0.3)
        axes[1].legend(fontsize="small", loc="best")
        fig.suptitle(f"Work-precision: {title}")
        fig.tight_layout()
        for extension in ("png", "svg"):
            fig.savefig(os.path.join(directory, "plots", f"{name}.{extension}"), dpi=110)
        plt.close(fig)

        report += [f"## {title}", "", f"![work-precision {title}](plots/{name}.png)", ""]
        report += ["| integrator | rtol | step, s | status | wall time, s | steps | RHS evals | "
                   "events | stick/slip | L2 error | event time error, s | max displacement, m | "
                   "late displacement, m |",
                   "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for label, points in curves.items():
            for p in points:
                report.append(
                    f"| {label} | {short(p['rtol'])} | {short(p['step_size'])} | {p['status']} | "
                    f"{number(p['wall_time_min_s']):.3g} | {p['steps']} | {p['rhs_evals']} | "
                    f"{p['state_events']} | {p['stick_slip_switches']} | {error_of(p):.3g} | "
                    f"{number(p['event_time_error']):.3g} | "
                    f"{number(p['max_displacement']):.3g} | "
                    f"{number(p['late_displacement']):.3g} |")
        report.append("")
    with open(os.path.join(directory, "report.md"), "w") as handle:
        handle.write("\n".join(report) + "\n")


if __name__ == "__main__":
    main()
