#!/usr/bin/env python3
"""run_if_exists.py PATH CMD...: runs CMD when PATH exists, else exits 125 (ctest: skipped)."""
import os
import subprocess
import sys

if not os.path.exists(sys.argv[1]):
    print("skipped: %s does not exist (no CUDA toolkit)" % sys.argv[1])
    sys.exit(125)
sys.exit(subprocess.call(sys.argv[2:]))
