#!/usr/bin/env python3
"""Golden fixtures for lowering, the offload split and the generated C++ (label codegen).

tests/codegen/fixtures/*.py: valid kernels. The snapshot snapshots/fixtures@<name>.py.snap holds
the output of `qd_codegen_dump FILE`: the IR after every pass and every generated unit;
snapshots/fixtures@<name>.py.cuda.snap the units of the CUDA flavor (`--cuda`). Output must be
deterministic: each fixture is dumped twice and both runs must agree byte for byte.

tests/codegen/reject/*.py: kernels outside the supported language, one per kernel. Every kernel
carries a comment `# expect: LINE:COL CODE text` naming the diagnostic it must produce (position,
code and a substring of the message); the snapshot snapshots/reject@<name>.py.snap holds the full
diagnostic lines. (Every snapshot suite has this layout: snapshots/<group>@<file>[.<variant>].)

Snapshots are compared byte for byte (CRLF line ends or an extra trailing blank line differ).
QD_UPDATE_SNAPSHOTS=1 rewrites the snapshots (review them in the diff).
Usage: run_codegen_tests.py --tool build/bin/qd_codegen_dump [--qdbuild build/bin/qdbuild]
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("codegen fixtures")
check = CHECKS.check


def dump(tool, path, *extra):
    """(exit status, stdout as text): the bytes as the tool wrote them (no newline translation),
    the fixture directory's path taken out."""
    r = subprocess.run([tool, str(path), *extra], capture_output=True, timeout=120)
    return r.returncode, r.stdout.decode("utf-8").replace(str(HERE) + "/", "")


def snapshot_path(fixture, variant=""):
    """snapshots/<group>@<file>[.<variant>].snap (the layout of every snapshot suite)."""
    name = f"{fixture.parent.name}@{fixture.name}" + (f".{variant}" if variant else "")
    return HERE / "snapshots" / (name + ".snap")


def check_snapshot(name, snap, text, update):
    data = text.encode("utf-8")
    if update:
        snap.write_bytes(data)
        return
    if not check(snap.exists(),
                 f"{name}: no snapshot {snap.name} (run with QD_UPDATE_SNAPSHOTS=1)"):
        return
    mismatch = qdtest.snapshot_mismatch(snap.read_bytes(), data)
    check(not mismatch, f"{name}: snapshot {snap.name} {mismatch}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--qdbuild")
    args = ap.parse_args()
    update = os.environ.get("QD_UPDATE_SNAPSHOTS") == "1"
    count = 0
    for f in sorted((HERE / "fixtures").glob("*.py")):
        count += 1
        rc, out = dump(args.tool, f)
        rc2, out2 = dump(args.tool, f)
        if not check(rc == 0, f"{f.name}: qd_codegen_dump exited {rc}:\n{out[-2000:]}"):
            continue
        check(out == out2, f"{f.name}: output is not deterministic")
        check_snapshot(f.name, snapshot_path(f), out, update)
        # The CUDA flavor of the same units (task_abi.h "CUDA modules"): entry points only differ.
        # A fixture marked `# cuda: rejected` pins the CUDA diagnostics instead (exit 1).
        rejected = "# cuda: rejected" in f.read_text()
        rc, out = dump(args.tool, f, "--cuda", "--no-ir")
        if rejected:
            if not check(rc == 1,
                         f"{f.name} --cuda: marked rejected, but qd_codegen_dump exited {rc}"):
                continue
        elif not check(rc == 0, f"{f.name} --cuda: qd_codegen_dump exited {rc}:\n{out[-2000:]}"):
            continue
        check_snapshot(f.name + " --cuda", snapshot_path(f, "cuda"), out, update)
    for f in sorted((HERE / "reject").glob("*.py")):
        count += 1
        rc, out = dump(args.tool, f)
        diags = [l for l in out.splitlines() if ": error: " in l or ": warning: " in l]
        src = f.read_text().splitlines()
        expects = []
        for i, line in enumerate(src):
            m = re.search(r"#\s*expect:\s*(\d+):(\d+)\s+(QD\d+)\s+(.*)$", line)
            if m:
                expects.append((int(m.group(1)), int(m.group(2)), m.group(3), m.group(4).strip()))
        check(expects, f"{f.name}: no '# expect:' comments")
        for (line, col, code, text) in expects:
            hit = [d for d in diags if f":{line}:{col}: error: " in d and f"[{code}]" in d and text in d]
            check(hit, f"{f.name}: expected {line}:{col} {code} '{text}', got:\n  " +
                  "\n  ".join(diags))
        check(rc == 1, f"{f.name}: expected exit 1, got {rc}")
        check_snapshot(f.name, snapshot_path(f), "\n".join(diags) + "\n", update)
    print(f"codegen fixtures: {count} files" + (" (snapshots updated)" if update else ""))
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
