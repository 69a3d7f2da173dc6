#!/usr/bin/env bash
# Builds build/asan (scripts/asan_tree.sh: ASan + UBSan, clang-19; the tree the fuzz targets share)
# with only the targets it runs, then
# runs the unit tests, the parser fixtures and the quick malformed-input tests under it.
# Usage: scripts/sanitize.sh
# Exit: 0 if all pass; non-zero on any failure or sanitizer report. A part it cannot run (the
# parser fixtures without Python 3.12) is skipped only as tests/lib/skip_policy.py allows: a
# failure under CI=true; otherwise the last line names what was skipped ("all passed" only when
# everything ran).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/python312.sh
source scripts/asan_tree.sh

qd_configure_asan_tree
cmake --build build/asan -j "${QD_JOBS:-2}" --target qd_unit_tests qdbuild qd_store_tool \
  qd_rt_store_tool qdrt_c_api_test qdrt_concurrency_test qd_backend_tests qd_codegen_dump \
  qdrt_cuda_test

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
skipped=()
echo "== sanitize: unit tests"
build/asan/bin/qd_unit_tests || status=1
echo "== sanitize: backend unit tests (in-process Clang/LLVM/lld; LLVM itself is not instrumented)"
build/asan/bin/qd_backend_tests || status=1

echo "== sanitize: parser fixtures"
if py=$(qd_find_python312); then
  "$py" tests/parse/run_fixtures.py --qdbuild build/asan/bin/qdbuild || status=1
elif python3 tests/lib/skip_policy.py --part no-python312 "sanitize: the parser fixtures under ASan"; then
  skipped+=("the parser fixtures (no Python 3.12)")
else
  status=1
fi

echo "== sanitize: malformed inputs (quick: no 100 MB files, no ulimit -v under ASan)"
python3 tests/malformed/run_malformed.py --quick --no-memory-limit --qdbuild build/asan/bin/qdbuild || status=1

echo "== sanitize: store tests (crash, concurrency, corruption, disk full, commands; quick)"
for t in crash concurrency corruption disk_full commands; do
  python3 tests/store/test_$t.py --quick --qdbuild build/asan/bin/qdbuild \
    --tool build/asan/bin/qd_store_tool || status=1
done

echo "== sanitize: lowering and codegen (golden fixtures, rejections), a build of the differential corpus"
python3 tests/codegen/run_codegen_tests.py --tool build/asan/bin/qd_codegen_dump || status=1
rm -rf build/asan/diff_store
python3 tests/diff/run_diff.py --qdbuild build/asan/bin/qdbuild --store build/asan/diff_store \
  >/dev/null || status=1

echo "== sanitize: runtime C API and concurrency tests (libqdrt under ASan/UBSan)"
if python3 runtime/tests/make_test_store.py --out build/asan/runtime_test_store \
    --tool build/asan/bin/qd_rt_store_tool --qdbuild build/asan/bin/qdbuild; then
  build/asan/bin/qdrt_c_api_test build/asan/runtime_test_store || status=1
  build/asan/bin/qdrt_concurrency_test build/asan/runtime_test_store 50 || status=1
else
  status=1
fi

echo "== sanitize: libqdrt's CUDA side without a GPU (bundle parsing, packing, driver paths)"
build/asan/bin/qdrt_cuda_test units || status=1
if python3 tests/cuda_runtime/make_cuda_store.py --out build/asan/cuda_runtime_store \
    --tool build/asan/bin/qd_rt_store_tool; then
  QDRT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 build/asan/bin/qdrt_cuda_test store \
    build/asan/cuda_runtime_store/store "no CUDA driver" || status=1
else
  status=1
fi

echo "== sanitize: runtime concurrent launches under TSan (build/tsan)"
scripts/tsan.sh || status=1

if ((status)); then
  echo "sanitize: FAILED"
elif ((${#skipped[@]} > 0)); then
  echo "sanitize: passed, but SKIPPED: ${skipped[*]}"
else
  echo "sanitize: all passed"
fi
exit "$status"
