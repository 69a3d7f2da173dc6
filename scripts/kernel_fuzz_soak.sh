#!/usr/bin/env bash
# An unbounded soak of the random-kernel differential fuzzer: a new seed for every batch of 50
# kernels, a line with the running totals and kernels/s after each batch, reproducers of
# divergences under build/kernel_fuzz. Stops after SECONDS (default: never; Ctrl-C stops it and
# prints the summary). Usage: scripts/kernel_fuzz_soak.sh [SECONDS] [kernel_fuzz.py options]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs="${1:-0}"
shift || true
exec python3 scripts/kernel_fuzz.py --soak --time "$secs" "$@"
