#!/usr/bin/env bash
# Sets up dependencies, builds build/ and runs the whole test suite under ctest.
# Usage: scripts/test.sh [CTEST-ARGS...]   e.g. scripts/test.sh -L parse   or   -LE 'fuzz|sanitize'
# Exit: ctest's status (non-zero if any test failed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure "$@"
