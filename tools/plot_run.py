#!/usr/bin/env python3
"""Figures of one `hybridsim run`: the run summary figure, or chosen columns against time.

Usage (hybridsim plot calls it; the files are those of `hybridsim run --out DIR`):
  plot_run.py -o FIG.png|svg [--trajectory F] [--diagnostics F] [--events F] [--summary F]
              [--y COL,COL,...] [--x COL]

Without --y: the run summary figure, three panels against time: energy (total, kinetic,
potential, elastic), the number of contact points, the mean step size; contact starts and ends
marked on each. With --y: those columns against --x (default t), one panel. A column is
`body.NAME.Q` (the trajectory's NAME.Q), a diagnostics column (`energy.total`, `energy.kinetic`,
`energy.potential`, `energy.elastic`, `contacts.count`, `steps`, `step_size`) or any trajectory
column by its name. Exit status 2 names a column that is not there. Needs matplotlib.
"""
import argparse
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

EVENT_MARKS_MAX = 400  # more events than this are shown as a rate strip instead of lines


def read_table(path):
    """Columns of a CSV file as lists of floats (empty cells: NaN)."""
    if not path or not os.path.exists(path):
        return {}
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    if not rows:
        return {}
    header, body = rows[0], rows[1:]
    columns = {name: [] for name in header}
    for row in body:
        for name, cell in zip(header, row):
            try:
                columns[name].append(float(cell) if cell != "" else math.nan)
            except ValueError:
                columns[name].append(math.nan)
    return columns


def read_events(path):
    events = []
    if path and os.path.exists(path):
        with open(path) as file:
            for line in file:
                if line.strip():
                    events.append(json.loads(line))
    return events


def find_column(name, trajectory, diagnostics):
    """(table, column) holding `name`, or None."""
    if name.startswith("body.") and name[5:] in trajectory:
        return trajectory, name[5:]
    for table in (diagnostics, trajectory):
        if name in table:
            return table, name
    return None


def mark_events(axes, events):
    starts = [e["t"] for e in events if e.get("kind") == "contact_start"]
    ends = [e["t"] for e in events if e.get("kind") == "contact_end"]
    if len(starts) + len(ends) > EVENT_MARKS_MAX:
        return False
    for t in starts:
        axes.axvline(t, color="tab:red", linewidth=0.6, alpha=0.5)
    for t in ends:
        axes.axvline(t, color="tab:green", linewidth=0.6, alpha=0.5, linestyle="--")
    return True


def summary_figure(trajectory, diagnostics, events, title):
    if "t" not in diagnostics:
        print("plot_run.py: the run summary figure needs the diagnostics file "
              "(hybridsim run --out DIR, or --diagnostics FILE)", file=sys.stderr)
        sys.exit(2)
    t = diagnostics["t"]
    figure, axes = plt.subplots(3, 1, sharex=True, figsize=(8, 7.5))
    for name, style in (("energy.total", "k-"), ("energy.kinetic", "C0-"),
                        ("energy.potential", "C1-"), ("energy.elastic", "C2-")):
        axes[0].plot(t, diagnostics[name], style, linewidth=1.2, label=name.split(".")[1])
    axes[0].set_ylabel("energy (J)")
    axes[0].legend(loc="best", fontsize=8)
    axes[1].step(t, diagnostics["contacts.count"], where="post", color="C3")
    axes[1].set_ylabel("contact points")
    steps = [(x, h) for x, h in zip(t, diagnostics["step_size"]) if h > 0]
    if steps:
        axes[2].step([x for x, _ in steps], [h for _, h in steps], where="pre", color="C4")
        axes[2].set_yscale("log")
    axes[2].set_ylabel("mean step size (s)")
    axes[2].set_xlabel("t (s)")
    marked = all([mark_events(a, events) for a in axes])
    note = f"{len(events)} events"
    if events and not marked:
        # Too many to draw one by one: the rate of contact starts per output interval.
        starts = [e["t"] for e in events if e.get("kind") == "contact_start"]
        twin = axes[1].twinx()
        twin.hist(starts, bins=min(200, max(10, len(t))), color="tab:red", alpha=0.3)
        twin.set_ylabel("contact starts per bin", color="tab:red")
        note += " (contact starts as a histogram)"
    else:
        note += " (contact starts red, ends green dashed)"
    figure.suptitle(f"{title}: {note}", fontsize=10)
    figure.tight_layout()
    return figure


def columns_figure(trajectory, diagnostics, events, y_names, x_name, title):
    figure, axes = plt.subplots(figsize=(8, 4.5))
    for name in y_names:
        found = find_column(name, trajectory, diagnostics)
        if found is None:
            bodies = {c.rsplit(".", 1)[0] for c in trajectory if c.endswith(".qw")}
            available = sorted({("body." + c if c.rsplit(".", 1)[0] in bodies else c)
                                for c in trajectory} | set(diagnostics))
            print(f"plot_run.py: --y {name}: no such column; the run has: {', '.join(available)}",
                  file=sys.stderr)
            sys.exit(2)
        table, column = found
        x_found = find_column(x_name, table, table) if x_name != "t" else (table, "t")
        if x_found is None:
            print(f"plot_run.py: --x {x_name}: not in the file of {name}", file=sys.stderr)
            sys.exit(2)
        axes.plot(x_found[0][x_found[1]], table[column], linewidth=1.2, label=name)
    if x_name == "t":
        mark_events(axes, events)
    axes.set_xlabel("t (s)" if x_name == "t" else x_name)
    axes.legend(loc="best", fontsize=8)
    axes.set_title(title, fontsize=10)
    figure.tight_layout()
    return figure


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--trajectory")
    parser.add_argument("--diagnostics")
    parser.add_argument("--events")
    parser.add_argument("--summary")
    parser.add_argument("--y")
    parser.add_argument("--x", default="t")
    parser.add_argument("--title", default="hybridsim run")
    args = parser.parse_args()
    trajectory = read_table(args.trajectory)
    diagnostics = read_table(args.diagnostics)
    events = read_events(args.events)
    title = args.title
    if args.summary and os.path.exists(args.summary):
        with open(args.summary) as file:
            summary = json.load(file)
        title = f"{summary.get('scene', title)} ({summary.get('integrator', '')}, " \
                f"{summary.get('status', '')})"
    if args.y:
        figure = columns_figure(trajectory, diagnostics, events,
                                [c.strip() for c in args.y.split(",") if c.strip()], args.x, title)
    else:
        figure = summary_figure(trajectory, diagnostics, events, title)
    figure.savefig(args.output, dpi=110)


if __name__ == "__main__":
    main()
