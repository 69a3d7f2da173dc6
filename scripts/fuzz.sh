#!/usr/bin/env bash
# Builds the libFuzzer target for the lexer+parser in build/fuzz (QD_FUZZ=ON: clang-19
# -fsanitize=fuzzer,address,undefined; only qd_fuzz_parser and the syntax layer are built) and
# runs it for SECONDS (default 60), seeded from tests/fixtures/parse.
# Usage: scripts/fuzz.sh [SECONDS] [EXTRA-LIBFUZZER-ARGS...]
# Reproduce a finding: build/fuzz/bin/qd_fuzz_parser build/fuzz/artifacts/crash-...
# Env: QD_FUZZ_SEED (libFuzzer -seed, default 1, for repeatable runs).
#      QD_FUZZ_TARGET=store_index fuzzes the store's index/pack/object readers instead
#      (qd_fuzz_store_index, seeded with a small store and pack made by qd_store_tool).
# Exit: 0 if the run ended with no finding; non-zero otherwise (crash, leak, timeout, OOM, UB).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-60}
shift || true

cmake -S . -B build/fuzz -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQD_FUZZ=ON -DQD_WERROR=ON >/dev/null
if [[ "${QD_FUZZ_TARGET:-parser}" == store_index ]]; then
  cmake --build build/fuzz -j "${QD_JOBS:-2}" --target qd_fuzz_store_index qd_store_tool
  seeds=build/fuzz/store_seeds
  rm -rf "$seeds" && mkdir -p "$seeds/corpus"
  ASAN_OPTIONS=detect_leaks=0 build/fuzz/bin/qd_store_tool put "$seeds/store" 0 3 --max-kb 3 >/dev/null
  ASAN_OPTIONS=detect_leaks=0 build/fuzz/bin/qd_store_tool hostile "$seeds/store" >/dev/null
  ASAN_OPTIONS=detect_leaks=0 build/fuzz/bin/qd_store_tool pack "$seeds/store" "$seeds/corpus/store.qdpack"
  cp "$seeds/store/index.qdi" "$seeds/corpus/"
  find "$seeds/store/objects" -name '*.qdo' -size -4k | head -n 3 | xargs -I{} cp {} "$seeds/corpus/"
  mkdir -p build/fuzz/corpus_store build/fuzz/artifacts
  set +e
  build/fuzz/bin/qd_fuzz_store_index \
    -max_total_time="$seconds" -max_len=65536 -timeout=5 -rss_limit_mb=2048 \
    -seed="${QD_FUZZ_SEED:-1}" -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ \
    "$@" build/fuzz/corpus_store "$seeds/corpus"
  rc=$?
  set -e
  if ((rc != 0)); then
    echo "fuzz: FINDING (exit $rc); artifacts:"
    ls -l build/fuzz/artifacts/
    exit 1
  fi
  echo "fuzz: no findings in ${seconds}s (store_index)"
  exit 0
fi
cmake --build build/fuzz -j "${QD_JOBS:-2}" --target qd_fuzz_parser

mkdir -p build/fuzz/corpus build/fuzz/artifacts
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
set +e
build/fuzz/bin/qd_fuzz_parser \
  -max_total_time="$seconds" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
  -seed="${QD_FUZZ_SEED:-1}" -print_final_stats=1 \
  -dict=tests/fuzz/python.dict \
  -artifact_prefix=build/fuzz/artifacts/ \
  "$@" \
  build/fuzz/corpus tests/fixtures/parse/valid tests/fixtures/parse/invalid
rc=$?
set -e
if ((rc != 0)); then
  echo "fuzz: FINDING (exit $rc); artifacts:"
  ls -l build/fuzz/artifacts/
  exit 1
fi
echo "fuzz: no findings in ${seconds}s"
