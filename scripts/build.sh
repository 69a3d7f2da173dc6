#!/usr/bin/env bash
# Configures build/ (Ninja, clang-19, warnings as errors) and builds it.
# Usage: scripts/build.sh [TARGET...]     (default: all targets)
# Env: QD_JOBS (parallel jobs, default 2), QD_BUILD_TYPE (default Release: -O3, no debug
# information; RelWithDebInfo for a debugger).
# The default flags are the wheels' (scripts/wheels.sh), and ccache (when installed) is the
# compiler launcher of both: the wheels' build takes build/'s objects from the cache instead of
# compiling the whole project a second time (CI builds both).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_BUILD_TYPE="${QD_BUILD_TYPE:-Release}" "${launcher[@]}" \
  -DQD_WERROR=ON >/dev/null

targets=()
for t in "$@"; do
  targets+=(--target "$t")
done
cmake --build build -j "${QD_JOBS:-2}" "${targets[@]}"
