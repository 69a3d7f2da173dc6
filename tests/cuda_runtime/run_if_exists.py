#!/usr/bin/env python3
"""run_if_exists.py PATH CMD...: runs CMD when PATH (a CUDA toolkit file) exists, else skips
through tests/lib/skip_policy.py ("no-cuda-toolkit": exit 125, a failure under CI=true)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import skip_policy  # noqa: E402

if not os.path.exists(sys.argv[1]):
    skip_policy.skip("no-cuda-toolkit", "%s does not exist" % sys.argv[1])
sys.exit(subprocess.call(sys.argv[2:]))
