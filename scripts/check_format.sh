#!/usr/bin/env bash
# Checks that the C++ sources under src/ tools/ tests/ runtime/ include/ examples/ are clang-format-19 clean
# (.clang-format). Files whose first line contains "Generated" are skipped.
# Usage: scripts/check_format.sh [--fix]     (--fix rewrites the failing files in place)
# Exit: 0 clean; 1 some files need formatting (listed, with the first lines of the diff);
#       3 clang-format-19 missing.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-19}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check_format: $CLANG_FORMAT not found (run scripts/setup.sh)" >&2
  exit 3
fi
fix=0
[[ "${1:-}" == "--fix" ]] && fix=1

mapfile -d '' files < <(find src tools tests runtime include examples -type f \
  \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' \) -print0 2>/dev/null | sort -z)

bad=()
checked=0
for f in "${files[@]}"; do
  if head -n 1 "$f" | grep -q 'Generated'; then
    continue
  fi
  checked=$((checked + 1))
  if ! "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done

if ((${#bad[@]} == 0)); then
  echo "check_format: $checked files clean"
  exit 0
fi
if ((fix)); then
  "$CLANG_FORMAT" -i "${bad[@]}"
  echo "check_format: reformatted ${#bad[@]} files: ${bad[*]}"
  exit 0
fi
echo "check_format: ${#bad[@]} of $checked files are not clang-format clean:"
for f in "${bad[@]}"; do
  n=$("$CLANG_FORMAT" --dry-run "$f" 2>&1 | grep -c 'warning:')
  echo "  $f ($n places)"
done
echo "fix: scripts/check_format.sh --fix  (or $CLANG_FORMAT -i FILE)"
shown=0
for f in "${bad[@]}"; do
  if ((shown == 5)); then
    echo "... (first differences shown for 5 files only)"
    break
  fi
  shown=$((shown + 1))
  echo "--- $f (first differences)"
  "$CLANG_FORMAT" "$f" | diff -u "$f" - | sed -n '3,14p'
done
exit 1
