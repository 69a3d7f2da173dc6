#!/usr/bin/env bash
# The main job on examples/: sets up and builds, shows `qdbuild scan`, `check`, `explain` and
# `dump-ast` on the example kernels (shortened), compiles them with
# `qdbuild build examples/ --store build/examples_store`, installs qdbuild and libqdrt into
# build/install, builds the C++ app examples/app_cpp against that installed package, and runs it
# and the Python app examples/app.py (through the installed binding) on the store. Both apps
# check every result against a host computation and print PASS/FAIL lines.
# Usage: scripts/run_examples.sh
# Env: QD_SHOW_LINES (lines shown of each analysis command's output; default 12, 0 = all),
#      QD_DUMP_CHARS (characters shown of each one-line AST dump; default 300, 0 = all).
# Exit: 0 if every step succeeded; otherwise the highest exit status seen (a failed check in an
# app is 1; a step that could not run at all is at least 1).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh || exit 3
scripts/build.sh || exit 3

QD=build/bin/qdbuild
STORE=build/examples_store
PREFIX=build/install
APP_BUILD=build/examples_app
worst=0
failed=()
note_status() {  # STATUS STEP
  if (($1 != 0)); then
    failed+=("$2 (exit $1)")
  fi
  if (($1 > worst)); then
    worst=$1
  fi
}

# Runs a command, showing at most QD_SHOW_LINES lines of its output (stdout and stderr).
show() {
  local limit=${QD_SHOW_LINES:-12} out rc total
  echo
  echo "\$ $*"
  out=$("$@" 2>&1)
  rc=$?
  total=$(printf '%s\n' "$out" | wc -l)
  if ((limit > 0 && total > limit)); then
    printf '%s\n' "$out" | head -n "$limit"
    echo "... [$total lines in all; QD_SHOW_LINES=0 shows everything]"
    printf '%s\n' "$out" | tail -n 1
  else
    printf '%s\n' "$out"
  fi
  echo "(exit $rc)"
  note_status "$rc" "$*"
}

# Runs a command, showing its output only when it fails.
quiet() {
  echo
  echo "\$ $*"
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if ((rc != 0)); then
    printf '%s\n' "$out" | tail -n 40
  fi
  echo "(exit $rc)"
  note_status "$rc" "$*"
  return "$rc"
}

# Runs a command with its whole output.
run() {
  echo
  echo "\$ $*"
  "$@"
  local rc=$?
  echo "(exit $rc)"
  note_status "$rc" "$*"
  return "$rc"
}

echo
echo "=== analysis: scan, check, explain, dump-ast"
show "$QD" scan examples/
show "$QD" check examples/
show "$QD" explain particles:integrate --root examples

limit=${QD_DUMP_CHARS:-300}
mapfile -d '' files < <(find examples -maxdepth 1 -name '*.py' -not -name 'app.py' -print0 | sort -z)
for f in "${files[@]}"; do
  out=$("$QD" dump-ast "$f")
  rc=$?
  if ((limit > 0 && ${#out} > limit)); then
    out="${out:0:limit}... [${#out} characters]"
  fi
  echo
  echo "\$ $QD dump-ast $f"
  echo "$out"
  echo "(exit $rc)"
  note_status "$rc" "dump-ast $f"
done

echo
echo "=== build the examples' kernels into $STORE"
if run "$QD" build examples/ --store "$STORE"; then
  show "$QD" store stats --store "$STORE"
fi

echo
echo "=== install into $PREFIX, build examples/app_cpp against it"
rm -rf "$PREFIX" "$APP_BUILD"
quiet cmake --install build --prefix "$PWD/$PREFIX" &&
  quiet cmake -S examples/app_cpp -B "$APP_BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_PREFIX_PATH="$PWD/$PREFIX" -DCMAKE_BUILD_TYPE=Release &&
  quiet cmake --build "$APP_BUILD"

echo
echo "=== run the apps on $STORE"
if [[ -f "$STORE/index.qdi" ]]; then
  if [[ -x "$APP_BUILD/qdrt_example_app" ]]; then
    run "$APP_BUILD/qdrt_example_app" "$STORE"
  else
    note_status 1 "C++ app (not built)"
  fi
  run env PYTHONPATH="$PREFIX/lib/qdrt/python" python3 examples/app.py "$STORE"
else
  echo "no store at $STORE: the apps cannot run"
  note_status 1 "apps (no store)"
fi

echo
if ((${#failed[@]} > 0)); then
  echo "run_examples: FAILED steps:"
  printf '  %s\n' "${failed[@]}"
  exit $((worst > 0 ? worst : 1))
fi
echo "run_examples: scanned, checked, explained and dumped examples/, built $STORE, installed into $PREFIX; the C++ and Python apps passed every check"
exit 0
