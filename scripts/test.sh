#!/usr/bin/env bash
# Sets up dependencies, builds build/ and runs the whole test suite under ctest.
# Usage: scripts/test.sh [CTEST-ARGS...]   e.g. scripts/test.sh -L parse   or   -LE 'fuzz|sanitize'
# Exit: ctest's status (non-zero if any test failed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
scripts/build.sh
# As many tests at once as there are cores, at most 4 (a Genesis test holds about 3 GiB);
# QD_TEST_JOBS overrides. Tests that time themselves or load every core run alone (RUN_SERIAL).
jobs=${QD_TEST_JOBS:-$(nproc)}
if [ -z "${QD_TEST_JOBS:-}" ] && [ "$jobs" -gt 4 ]; then
  jobs=4
fi
ctest --test-dir build --output-on-failure --parallel "$jobs" "$@"
