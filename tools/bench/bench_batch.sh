#!/usr/bin/env bash
# Batch benchmark (BENCHMARKS.md): the throughput of `hybridsim batch -j 2` against -j 1 on an
# experiment of many short runs, and the batch's own cost per run (its wall time minus the
# integrations' and the references', over the runs). Usage: tools/bench/bench_batch.sh [BUILD]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
hybridsim="${1:-$root/build}/tools/hybridsim"
experiment="$root/tools/bench/batch_throughput.yaml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

seconds() { python3 -c 'import sys,time; print(time.monotonic())'; }
for jobs in 1 2; do
  start=$(seconds)
  "$hybridsim" batch "$experiment" -j "$jobs" --out "$work/j$jobs" --no-plots --quiet
  end=$(seconds)
  echo "$jobs $start $end" >> "$work/times"
done
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
times = {}
for line in open(f"{work}/times"):
    jobs, start, end = line.split()
    times[int(jobs)] = float(end) - float(start)
runs = json.load(open(f"{work}/j1/results.json"))["runs"]
integration = sum(r["wall_time_s"] for r in runs)
print(f"runs: {len(runs)}")
print(f"-j 1: {times[1]:.3f} s, -j 2: {times[2]:.3f} s, throughput ratio {times[1] / times[2]:.2f}")
print(f"-j 1: integrations {integration:.3f} s; batch cost outside them (process start, loading, "
      f"references, comparison, output) {1e3 * (times[1] - integration) / len(runs):.3f} ms per run")
PY
