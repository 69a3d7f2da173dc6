#!/usr/bin/env bash
# Generated CPU code vs the same algorithms hand-written in C++ (issue 5, Acceptance "Benchmarks"):
# builds tools/bench/codegen_bench_kernels with `qdbuild build` into BUILD/bench/codegen_store (a
# no-op when nothing changed), then runs BUILD/bin/qd_codegen_bench on it: saxpy, 2-D stencil,
# reduction, 3x3 matrix work and atomic histogram, generated (through libqdrt) against hand-written
# C++ (-O3 -march=x86-64-v3) on the same threads with libqdrt's chunking; medians and ratios.
# Usage: scripts/bench/codegen_bench.sh [--build-dir DIR] [--quick] [--reps N] [--threads N]
#   (default DIR: build; the binaries are not rebuilt here: scripts/build.sh qdbuild qd_codegen_bench)
# Exit: 0 measured, 1 results differ, 3 failure (a missing binary included). It never skips.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build"
if [[ "${1:-}" == "--build-dir" ]]; then
  build="$(cd "$2" && pwd)"
  shift 2
fi
qdbuild="$build/bin/qdbuild"
bench="$build/bin/qd_codegen_bench"
for exe in "$qdbuild" "$bench"; do
  if [[ ! -x "$exe" ]]; then
    echo "codegen_bench: $exe is missing (scripts/build.sh qdbuild qd_codegen_bench)" >&2
    exit 3
  fi
done
store="$build/bench/codegen_store"
mkdir -p "$build/bench"
set +e
out="$("$qdbuild" build "$root/tools/bench/codegen_bench_kernels" --store "$store" --json 2>&1)"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
  echo "$out" >&2
  echo "codegen_bench: qdbuild build failed (exit $rc)" >&2
  exit 3
fi
echo "qdbuild build: $out"
exec "$bench" "$store" "$@"
