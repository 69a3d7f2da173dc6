#!/usr/bin/env bash
# Builds the libFuzzer target for the lexer+parser in build/asan (scripts/asan_tree.sh, the tree
# scripts/sanitize.sh shares: clang-19, -fsanitize=fuzzer,address,undefined; only the target and
# the layers it links are built) and
# runs it for SECONDS (default 60), seeded from tests/fixtures/parse.
# Usage: scripts/fuzz.sh [SECONDS] [EXTRA-LIBFUZZER-ARGS...]
# Reproduce a finding: build/asan/bin/qd_fuzz_parser build/asan/artifacts/crash-...
# Env: QD_FUZZ_SEED (libFuzzer -seed, default 1, for repeatable runs).
#      QD_FUZZ_TARGET=store_index fuzzes the store's index/pack/object readers instead
#      (qd_fuzz_store_index, seeded with a small store and pack made by qd_store_tool);
#      QD_FUZZ_TARGET=runtime_store fuzzes libqdrt's own readers (qd_fuzz_runtime_store: index,
#      pack, objects, CUDA bundles, kernel tables, and qdrt_instance_text's reading of parameter
#      descriptions; seeded with the runtime tests' stores and the records' descriptions);
#      QD_FUZZ_TARGET=instance_record fuzzes the reader of recorded runs (--instances JSON,
#      qd_fuzz_instance_record, seeded with the committed records);
#      QD_FUZZ_TARGET=lsp fuzzes the language server's reading of a client's bytes (framing,
#      JSON-RPC, every handler, edits, positions; qd_fuzz_lsp, seeded with an editing session).
#      QD_FUZZ_TARGET=remote_action fuzzes what a remote execution worker reads from the server
#      before it compiles (the action's Command, input root and target flags;
#      qd_fuzz_remote_action, which mutates a valid action itself: no seeds needed).
# Exit: 0 if the run ended with no finding; non-zero otherwise (crash, leak, timeout, OOM, UB).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-60}
shift || true

source scripts/asan_tree.sh
qd_configure_asan_tree

# run_fuzzer TARGET MAX_LEN CORPUS SEED_DIR...: runs build/asan/bin/qd_fuzz_TARGET for $seconds
# with the flags in $flags and the script's extra libFuzzer arguments; new inputs go to CORPUS
# (libFuzzer writes to its first directory), the seed directories are only read. Exits 0 clean,
# 1 on a finding.
run_fuzzer() {
  local target=$1 max_len=$2 corpus=$3
  shift 3
  mkdir -p "$corpus" build/asan/artifacts
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  set +e
  "build/asan/bin/qd_fuzz_$target" \
    -max_total_time="$seconds" -max_len="$max_len" -timeout=5 -rss_limit_mb=2048 \
    -seed="${QD_FUZZ_SEED:-1}" -print_final_stats=1 -artifact_prefix=build/asan/artifacts/ \
    "${flags[@]}" "${extra[@]}" "$corpus" "$@"
  local rc=$?
  set -e
  if ((rc != 0)); then
    echo "fuzz: FINDING (exit $rc); artifacts:"
    ls -l build/asan/artifacts/
    exit 1
  fi
  echo "fuzz: no findings in ${seconds}s ($target)"
  exit 0
}
extra=("$@")
flags=()

case "${QD_FUZZ_TARGET:-parser}" in
  store_index)
    cmake --build build/asan -j "${QD_JOBS:-2}" --target qd_fuzz_store_index qd_store_tool
    seeds=build/asan/store_seeds
    rm -rf "$seeds" && mkdir -p "$seeds/corpus"
    tool() { ASAN_OPTIONS=detect_leaks=0 build/asan/bin/qd_store_tool "$@" >/dev/null; }
    tool put "$seeds/store" 0 3 --max-kb 3
    tool hostile "$seeds/store"
    tool pack "$seeds/store" "$seeds/corpus/store.qdpack"
    cp "$seeds/store/index.qdi" "$seeds/corpus/"
    find "$seeds/store/objects" -name '*.qdo' -size -4k | head -n 3 | xargs -I{} cp {} "$seeds/corpus/"
    run_fuzzer store_index 65536 build/asan/corpus_store "$seeds/corpus"
    ;;
  runtime_store)
    # Seeds: the runtime tests' stores (index files, a pack, objects, a CUDA bundle object), made
    # with the main build's tools as scripts/tsan.sh does.
    if [[ ! -x build/bin/qd_rt_store_tool || ! -x build/bin/qdbuild ]]; then
      scripts/build.sh qd_rt_store_tool qdbuild
    fi
    cmake --build build/asan -j "${QD_JOBS:-2}" --target qd_fuzz_runtime_store
    seeds=build/asan/runtime_seeds
    rm -rf "$seeds" && mkdir -p "$seeds/corpus"
    python3 runtime/tests/make_test_store.py --out "$seeds/rt" --tool build/bin/qd_rt_store_tool \
      --qdbuild build/bin/qdbuild >/dev/null
    python3 tests/cuda_runtime/make_cuda_store.py --out "$seeds/cuda" \
      --tool build/bin/qd_rt_store_tool >/dev/null
    cp "$seeds/rt/good/index.qdi" "$seeds/corpus/good.qdi"
    cp "$seeds/rt/bad/index.qdi" "$seeds/corpus/bad.qdi"
    cp "$seeds/rt/good.qdpack" "$seeds/corpus/"
    cp "$seeds/cuda/store/index.qdi" "$seeds/corpus/cuda.qdi"
    find "$seeds/rt/good/objects" "$seeds/cuda/store/objects" -name '*.qdo' -size -64k |
      head -n 4 | xargs -I{} cp {} "$seeds/corpus/"
    # Recorded parameter descriptions (qdrt_instance_text): one of each kind in the records.
    python3 - "$seeds/corpus" <<'DESC'
import json, sys
seen = {}
for f in ("tests/genesis/franka.qdrecord.json", "tests/record/expected.qdrecord.json"):
    for insts in json.load(open(f))["kernels"].values():
        for inst in insts:
            for desc in inst.get("params", {}).values():
                kind = "array" if isinstance(desc, str) else ",".join(sorted(desc))
                seen.setdefault(kind, desc)
for n, desc in enumerate(seen.values()):
    open(f"{sys.argv[1]}/desc{n}.json", "w").write(json.dumps(desc))
DESC
    run_fuzzer runtime_store 65536 build/asan/corpus_runtime "$seeds/corpus"
    ;;
  instance_record)
    # Seeds: the committed records (a small app's, the Franka scene's) and a few hostile ones.
    cmake --build build/asan -j "${QD_JOBS:-2}" --target qd_fuzz_instance_record
    seeds=build/asan/record_seeds
    rm -rf "$seeds" && mkdir -p "$seeds"
    cp tests/record/expected.qdrecord.json "$seeds/app.json"
    python3 - "$seeds" <<'PY'
import json, sys
d = json.load(open("tests/genesis/franka.qdrecord.json"))
k = sorted(d["kernels"])[:3]
d["kernels"] = {i: d["kernels"][i] for i in k}
open(sys.argv[1] + "/franka3.json", "w").write(json.dumps(d, indent=1, sort_keys=True))
PY
    printf '%s' '{"format":"qdrt-record 1","kernels":{"m:k":[{"params":{"x":{"template":{"enum":1}}}}]},"defines":{"m.X":{"conflict":[1,2]},"m.Y":{"vector":[3,"f32"]}}}' \
      >"$seeds/hostile.json"
    run_fuzzer instance_record 65536 build/asan/corpus_record "$seeds"
    ;;
  remote_action)
    cmake --build build/asan -j "${QD_JOBS:-2}" --target qd_fuzz_remote_action
    run_fuzzer remote_action 65536 build/asan/remote_action_corpus
    ;;
  lsp)
    # Seeds: an editing session (initialize is done by the target; open, incremental edits in
    # both line-ending styles, hover, definition, shutdown, exit) and broken framing.
    cmake --build build/asan -j "${QD_JOBS:-2}" --target qd_fuzz_lsp
    seeds=build/asan/lsp_seeds
    rm -rf "$seeds" && mkdir -p "$seeds"
    python3 - "$seeds" <<'PY'
import json, os, sys, tempfile
ws = os.path.realpath(os.path.join(tempfile.gettempdir(), "qd-fuzz-lsp"))
uri = "file://" + ws + "/k.py"
def frame(m):
    b = json.dumps(m).encode()
    return b"Content-Length: %d\r\n\r\n" % len(b) + b
text = ("import quadrants as qd\n\nG = 2.0\n\n@qd.func\ndef f(x):\n    r\u00e9 = x\n"
        "    return r\u00e9 * G\n\n@qd.kernel(fastcache=True)\n"
        "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n    for i in range(a.shape[0]):\n"
        "        a[i] = f(a[i])\r\n")
session = [
    {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}}},
    {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 7, "character": 14}, "end": {"line": 7, "character": 15}},
             "text": "3.0"}, {"text": text}]}},
    {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": uri}, "position": {"line": 10, "character": 5}}},
    {"jsonrpc": "2.0", "id": 2, "method": "textDocument/definition", "params": {
        "textDocument": {"uri": uri}, "position": {"line": 12, "character": 16}}},
    {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {
        "textDocument": {"uri": uri}}},
    {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
open(sys.argv[1] + "/session", "wb").write(b"".join(frame(m) for m in session))
open(sys.argv[1] + "/framing", "wb").write(
    b"Content-Length: x\r\n\r\n{}Content-Length: 2\r\n\r\n{}\r\n"
    b"content-length:  5 \r\nContent-Type: a\r\n\r\n[1,2]Content-Length: 99999999999\r\n\r\n")
PY
    run_fuzzer lsp 16384 build/asan/corpus_lsp "$seeds"
    ;;
  parser)
    cmake --build build/asan -j "${QD_JOBS:-2}" --target qd_fuzz_parser
    flags=(-dict=tests/fuzz/python.dict)
    run_fuzzer parser 4096 build/asan/corpus tests/fixtures/parse/valid tests/fixtures/parse/invalid
    ;;
  *)
    echo "fuzz: unknown QD_FUZZ_TARGET '${QD_FUZZ_TARGET}' (parser, store_index, runtime_store, instance_record, lsp)" >&2
    exit 2
    ;;
esac
