"""Helpers shared by the Python test scripts under tests/ and scripts/bench/ (stdlib only)."""
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import skip_policy  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_QDBUILD = ROOT / "build" / "bin" / "qdbuild"
SKIP = skip_policy.SKIP  # ctest SKIP_RETURN_CODE; skips go through skip_policy only

# A kernel of five top-level loops (five offload tasks): the build and watch tests edit one loop
# and check that only its task recompiles.
NDARRAY_F32 = "qd.types.ndarray(dtype=qd.f32, ndim=1)"
FIVE_LOOPS = f"""import quadrants as qd


@qd.kernel
def five(x: {NDARRAY_F32}, y: {NDARRAY_F32}):
    for i in range(x.shape[0]):
        y[i] = x[i] + 1.0
    for i in range(x.shape[0]):
        y[i] = y[i] * 2.0
    for i in range(x.shape[0]):
        x[i] = y[i] - 3.0
    for i in range(x.shape[0]):
        y[i] = y[i] + x[i]
    for i in range(x.shape[0]):
        x[i] = x[i] * 0.5
"""

# `path:line:col: error: message [QDnnn]` (the first such line is the primary diagnostic)
ERROR_LINE = re.compile(rb"^(?P<path>.*?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)


class Checks:
    """The checks of one test script, the runner every script under tests/ uses: a failing check
    is printed at once and kept, `workdir()` gives a temporary directory that is removed when
    every check passed and kept (and named in the closing line) otherwise, and `finish()` prints
    the closing line (`NAME: all passed` or `NAME: N failure(s)`) and returns the exit status.

        CHECKS = qdtest.Checks("scan")
        check = CHECKS.check          # check(cond, what)       -> cond
        named = CHECKS.named          # named(name, cond, detail) -> cond
        ...
        with CHECKS.workdir("qd-scan-") as tmp:
            ...
        return CHECKS.finish()

    echo_passes: also print each passing check (`ok   what`), for scripts whose steps take long
    enough that progress matters (the watch test)."""

    def __init__(self, name, echo_passes=False):
        self.name = name
        self.failures = []
        self.echo_passes = echo_passes
        self.kept = None

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)
            print(f"FAIL: {what}", flush=True)
        elif self.echo_passes:
            print(f"ok   {what}", flush=True)
        return cond

    def named(self, name, cond, detail=""):
        """A check named `name`, whose failure reads `name: detail`."""
        return self.check(cond, f"{name}: {detail}" if not cond and detail else name)

    @contextlib.contextmanager
    def workdir(self, prefix):
        tmp = Path(tempfile.mkdtemp(prefix=prefix))
        try:
            yield tmp
        finally:
            if self.failures:
                self.kept = tmp
            else:
                shutil.rmtree(tmp, ignore_errors=True)

    def finish(self):
        if not self.failures:
            print(f"{self.name}: all passed")
            return 0
        where = f" (files in {self.kept})" if self.kept is not None else ""
        print(f"{self.name}: {len(self.failures)} failure(s){where}")
        return 1


def require_python312(what):
    """Skips (skip_policy "no-python312": a failure under CI=true) unless running under CPython
    3.12 (the reference for dump-ast and the tokenizer)."""
    if sys.version_info[:2] != (3, 12) or sys.implementation.name != "cpython":
        skip_policy.skip("no-python312", f"{what}: this interpreter is "
                         f"{sys.implementation.name} {sys.version.split()[0]} ({sys.executable})")


def require_qdbuild(path):
    path = Path(path)
    if not (path.is_file() and os.access(path, os.X_OK)):
        print(f"FAIL: {path} does not exist; build it first (scripts/build.sh)")
        sys.exit(1)
    return path


def cpython_dump(data):
    """ast.dump of CPython for `data` (bytes): ("ok", dump) or ("error", lineno, message)."""
    import ast
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(data)
        except SyntaxError as e:  # includes IndentationError / TabError
            return ("error", e.lineno, f"{type(e).__name__}: {e.msg}")
        except (ValueError, MemoryError, RecursionError) as e:
            return ("error", None, f"{type(e).__name__}: {e}")
    try:
        return ("ok", ast.dump(tree, include_attributes=True))
    except RecursionError as e:
        return ("error", None, f"RecursionError in ast.dump: {e}")


def run_dump_ast(qdbuild, path, timeout=120, cwd=None):
    """Runs `qdbuild dump-ast path`: (returncode, stdout bytes, stderr bytes); rc None on timeout."""
    try:
        p = subprocess.run([str(qdbuild), "dump-ast", str(path)], capture_output=True,
                           timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b""
    return p.returncode, p.stdout, p.stderr


def first_error(stderr):
    """(line, col, message) of the first `path:line:col: error:` line, or None."""
    m = ERROR_LINE.search(stderr)
    if not m:
        return None
    return int(m.group("line")), int(m.group("col")), m.group("msg").decode("utf-8", "replace")


def same_error_line(cpython_line, our_line):
    """CPython reports line 0 for encoding problems (bad cookie, undecodable source); qdbuild
    reports the line of the cookie or the first line, so 0 matches 1 or 2. A ValueError-style
    rejection with no position at all (None) matches any line."""
    if cpython_line == our_line:
        return True
    if cpython_line is None:
        return our_line >= 1
    return cpython_line == 0 and our_line in (1, 2)


def diff_excerpt(expected, actual, width=80):
    """Short description of the first difference between two strings."""
    n = min(len(expected), len(actual))
    i = 0
    while i < n and expected[i] == actual[i]:
        i += 1
    if i == n and len(expected) == len(actual):
        return "identical"
    lo = max(0, i - width)
    return (f"first difference at column {i} (expected {len(expected)} chars, got {len(actual)})\n"
            f"    expected: ...{expected[lo:i + width]!r}\n"
            f"    qdbuild:  ...{actual[lo:i + width]!r}")


def snapshot_mismatch(expected, actual):
    """Compares a snapshot byte for byte (bytes: the file as stored, the output as produced):
    None when identical, else the first difference. CRLF against LF, a missing or extra trailing
    blank line and a missing final newline are differences like any other."""
    if expected == actual:
        return None
    a, b = expected.split(b"\n"), actual.split(b"\n")
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x != y:
            shown = lambda v: "<end of file>" if v is None else repr(v)[1:]  # noqa: E731
            return (f"differs at line {i + 1} (snapshot {len(expected)} bytes, output "
                    f"{len(actual)} bytes):\n  want: {shown(x)}\n  got:  {shown(y)}")
    return "differs"  # not reached: equal line lists mean equal bytes


def describe_rc(rc):
    if rc is None:
        return "timed out"
    if rc < 0:
        import signal
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"
