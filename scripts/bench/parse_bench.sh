#!/usr/bin/env bash
# Parse benchmark over the Python 3.12 standard library: qdbuild's parser (one thread) and
# `qdbuild scan` (both cores) against CPython 3.12's ast.parse measured in the same run.
# Usage: scripts/bench/parse_bench.sh [--quick] [--repeat N] [--corpus DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source scripts/python312.sh

scripts/setup.sh >/dev/null
scripts/build.sh qdbuild qd_parse_bench >/dev/null
if ! py=$(qd_find_python312); then
  echo "parse_bench: needs Python 3.12 for the CPython baseline (set QD_PYTHON312)" >&2
  exit 3
fi
exec "$py" scripts/bench/parse_bench.py --build-dir build "$@"
