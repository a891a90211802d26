#!/usr/bin/env bash
# Sets everything up and runs the demo: a steel sphere bouncing to rest on a steel plate, with
# the human event log on stdout and the trajectory, events and summary in build/demo/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/build.sh"
mkdir -p "$root/build/demo"
"$root/build/tools/hybridsim" run bouncing_sphere --log-events \
  --trajectory "$root/build/demo/trajectory.csv" --events "$root/build/demo/events.jsonl" \
  --summary "$root/build/demo/summary.json"
echo "Outputs: $root/build/demo/{trajectory.csv,events.jsonl,summary.json}"
