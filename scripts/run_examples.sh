#!/usr/bin/env bash
# The main job on examples/: sets up, builds, then runs `qdbuild scan examples/`,
# `qdbuild check examples/`, `qdbuild explain` of one kernel and `qdbuild dump-ast` on each example
# file, showing their output. (Compiling and running the examples comes with `qdbuild build`.)
# Usage: scripts/run_examples.sh
# Env: QD_DUMP_CHARS (how much of each one-line AST dump to show; default 600, 0 = all).
# Exit: 0 if every command exited 0; otherwise the highest exit status seen.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh || exit 3
scripts/build.sh || exit 3

QD=build/bin/qdbuild
worst=0
note_status() {
  if (($1 > worst)); then
    worst=$1
  fi
}

echo
echo "\$ $QD scan examples/"
"$QD" scan examples/
rc=$?
echo "(exit $rc)"
note_status "$rc"

run() {
  echo
  echo "\$ $QD $*"
  "$QD" "$@"
  rc=$?
  echo "(exit $rc)"
  note_status "$rc"
}
run check examples/
run explain particles:integrate --root examples

limit=${QD_DUMP_CHARS:-600}
mapfile -d '' files < <(find examples -name '*.py' -not -path '*/.*' -print0 | sort -z)
for f in "${files[@]}"; do
  echo
  echo "\$ $QD dump-ast $f"
  out=$("$QD" dump-ast "$f")
  rc=$?
  if ((limit > 0 && ${#out} > limit)); then
    echo "${out:0:limit}... [${#out} characters in all; QD_DUMP_CHARS=0 shows everything]"
  else
    echo "$out"
  fi
  echo "(exit $rc)"
  note_status "$rc"
done
echo
echo "run_examples: scanned and checked examples/, explained one kernel, dumped ${#files[@]} files; worst exit status $worst"
exit "$worst"
