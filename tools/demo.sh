#!/usr/bin/env bash
# Sets everything up and runs the demo: a steel sphere bouncing to rest on a steel plate, with
# the human event log on stdout and every output in build/demo/: trajectory, events, contacts,
# summary, diagnostics, a replay page to open in a browser and the run summary figure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/build.sh"
"$root/build/tools/hybridsim" run bouncing_sphere --log-events --out "$root/build/demo" \
  --replay "$root/build/demo/replay.html" --plot
echo "Outputs in $root/build/demo: trajectory.csv events.jsonl contacts.csv summary.json" \
  "diagnostics.csv replay.html (open it in a browser) summary.png"
