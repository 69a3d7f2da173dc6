# Sourced by the scripts (bash): qd_find_python312 prints the path of a Python 3.12 interpreter.
# Order: $QD_PYTHON312; the pyenv version 3.12.1 (PYENV_VERSION=3.12.1 python3, the machine
# image's convention); any other pyenv 3.12.x; python3.12 on PATH; python3 if it is 3.12.
# Returns 1 (prints nothing) if none is found.

qd__is_py312() {
  [[ -n "$1" && -x "$1" ]] &&
    "$1" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 12) else 1)' >/dev/null 2>&1
}

qd_find_python312() {
  local c root
  if [[ -n "${QD_PYTHON312:-}" ]]; then
    c=$(command -v "$QD_PYTHON312" 2>/dev/null || true)
    if qd__is_py312 "$c"; then
      echo "$c"
      return 0
    fi
    echo "qd_find_python312: QD_PYTHON312=$QD_PYTHON312 is not a Python 3.12" >&2
    return 1
  fi
  root=${PYENV_ROOT:-}
  if [[ -z "$root" ]] && command -v pyenv >/dev/null 2>&1; then
    root=$(pyenv root 2>/dev/null || true)
  fi
  for r in "$root" "$HOME/.pyenv" /root/.pyenv; do
    [[ -n "$r" && -d "$r/versions" ]] || continue
    for c in "$r/versions/3.12.1/bin/python3" "$r"/versions/3.12.*/bin/python3; do
      if qd__is_py312 "$c"; then
        echo "$c"
        return 0
      fi
    done
  done
  c=$(PYENV_VERSION=3.12.1 python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)
  if qd__is_py312 "$c"; then
    echo "$c"
    return 0
  fi
  for c in "$(command -v python3.12 2>/dev/null || true)" "$(command -v python3 2>/dev/null || true)"; do
    if qd__is_py312 "$c"; then
      echo "$c"
      return 0
    fi
  done
  return 1
}

# qd_find_python X.Y prints the path of a Python X.Y interpreter: a pyenv X.Y.* (the machine
# image's pyenv has 3.12 and 3.13), else pythonX.Y on PATH. Returns 1 (prints nothing) if none.
qd_find_python() {
  local want="$1" c r root
  local check="import sys; sys.exit(0 if '%d.%d' % sys.version_info[:2] == '$want' else 1)"
  root=${PYENV_ROOT:-}
  if [[ -z "$root" ]] && command -v pyenv >/dev/null 2>&1; then
    root=$(pyenv root 2>/dev/null || true)
  fi
  for r in "$root" "$HOME/.pyenv" /root/.pyenv; do
    [[ -n "$r" && -d "$r/versions" ]] || continue
    for c in "$r"/versions/"$want".*/bin/python3; do
      if [[ -x "$c" ]] && "$c" -c "$check" >/dev/null 2>&1; then
        echo "$c"
        return 0
      fi
    done
  done
  c=$(command -v "python$want" 2>/dev/null || true)
  if [[ -n "$c" ]] && "$c" -c "$check" >/dev/null 2>&1; then
    echo "$c"
    return 0
  fi
  return 1
}
