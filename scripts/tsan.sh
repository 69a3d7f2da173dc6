#!/usr/bin/env bash
# ThreadSanitizer run of libqdrt's concurrent-launch test: builds only libqdrt and
# qdrt_concurrency_test in build/tsan (-fsanitize=thread, clang-19), makes the test store with
# the main build's tools (build/bin/qd_rt_store_tool, build/bin/qdbuild; built if missing) and
# runs the test. The task modules are loaded with dlopen and are not instrumented; libqdrt's
# pool, loading and per-launch state are.
# Usage: scripts/tsan.sh [ROUNDS]     Exit: 0 clean; non-zero on a failure or a TSan report.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -x build/bin/qd_rt_store_tool || ! -x build/bin/qdbuild ]]; then
  scripts/build.sh qd_rt_store_tool qdbuild
fi
cmake -S . -B build/tsan -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DQD_WERROR=ON -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
  >/dev/null
cmake --build build/tsan -j "${QD_JOBS:-2}" --target qdrt_concurrency_test

python3 runtime/tests/make_test_store.py --out build/tsan/runtime_test_store \
  --tool build/bin/qd_rt_store_tool --qdbuild build/bin/qdbuild >/dev/null
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
build/tsan/bin/qdrt_concurrency_test build/tsan/runtime_test_store "${1:-50}"
echo "tsan: concurrent launches clean"
