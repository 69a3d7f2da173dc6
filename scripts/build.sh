#!/usr/bin/env bash
# Configures build/ (Ninja, clang-19, warnings as errors) and builds it.
# Usage: scripts/build.sh [TARGET...]     (default: all targets)
# Env: QD_JOBS (parallel jobs, default 2), QD_BUILD_TYPE (default RelWithDebInfo).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cmake -S . -B build -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_BUILD_TYPE="${QD_BUILD_TYPE:-RelWithDebInfo}" \
  -DQD_WERROR=ON >/dev/null

targets=()
for t in "$@"; do
  targets+=(--target "$t")
done
cmake --build build -j "${QD_JOBS:-2}" "${targets[@]}"
