#!/usr/bin/env python3
"""Malformed-input tests for `qdbuild dump-ast`: it must never crash, hang or use unbounded memory.

Generates inputs in a temporary directory: every prefix of a few fixtures (truncated files),
invalid UTF-8, NUL bytes, 10,000-deep nesting (brackets, unary -, not, lambda, if-else, **),
too many indentation levels, 100 MB on one line (`x = 1 + 1 + ...`, a string literal, a comment)
and 10 MB of short lines.
Each run must exit 0 or 1 (never a signal, 2 or 3) within --timeout seconds, under an address-space
limit (ulimit -v, default 4 GiB), and exit 1 must come with a `path:line:col: error:` line.
No output is compared with CPython here (the corpus and fixture tests do that).

Usage: run_malformed.py [--qdbuild PATH] [--quick] [--no-memory-limit] [--timeout S] [--jobs N]
  --quick            every 7th prefix and no 100 MB inputs (used under ASan by scripts/sanitize.sh)
  --no-memory-limit  no ulimit -v (ASan reserves terabytes of address space)
Exit: 0 all pass; 1 any failure (inputs of failures are kept and their paths printed).
"""
import argparse
import concurrent.futures
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import qdtest  # noqa: E402

FIXTURES = qdtest.ROOT / "tests" / "fixtures" / "parse" / "valid"
PREFIX_SOURCES = ["fstring_pep701.py", "match_patterns.py", "nfkc_identifiers.py", "crlf.py",
                  "latin1_cookie.py", "type_params.py"]
DEEP = 10_000
BIG = 100 * 1024 * 1024
SHOWN = 30  # failing inputs reported one by one; any beyond these are one more failure

CHECKS = qdtest.Checks("malformed")
check = CHECKS.check


def generate(tmp, quick):
    """Yields (name, path) of every generated input."""
    cases = []

    def add(name, data):
        p = tmp / name
        p.write_bytes(data)
        cases.append((name, p))

    step = 7 if quick else 1
    for src in PREFIX_SOURCES:
        data = (FIXTURES / src).read_bytes()
        for n in range(0, len(data), step):
            add(f"prefix_{src[:-3]}_{n:05d}.py", data[:n])

    invalid_utf8 = {
        "lone_continuation": b"x = '\x80'\n",
        "overlong": b"x = '\xc0\xaf'\n",
        "surrogate": b"x = '\xed\xa0\x80'\n",
        "truncated_at_eof": b"x = 1\ny = '\xe2\x82",
        "in_comment": b"# \xff\xfe comment\nx = 1\n",
        "in_identifier": b"caf\xe9 = 1\n",
        "after_cookie": b"# coding: utf-8\nx = '\xff'\n",
        "bad_bom": b"\xef\xbb\xbf# coding: latin-1\nx = 1\n",
        "half_bom": b"\xef\xbbx = 1\n",
        "utf16_bom": b"\xff\xfex\x00 \x00=\x00 \x001\x00\n\x00",
    }
    for name, data in invalid_utf8.items():
        add(f"utf8_{name}.py", data)

    nul = {
        "start": b"\x00x = 1\n",
        "in_string": b"x = 'a\x00b'\n",
        "in_comment": b"x = 1  # \x00\n",
        "at_end": b"x = 1\n\x00",
        "in_fstring": b"x = f'{1}\x00'\n",
        "only": b"\x00" * 1000,
    }
    for name, data in nul.items():
        add(f"nul_{name}.py", data)

    deep = {
        "parens": "(" * DEEP + "1" + ")" * DEEP,
        "brackets": "[" * DEEP + "]" * DEEP,
        "braces": "{" * DEEP + "}" * DEEP,
        "mixed": "([{" * (DEEP // 3) + "}])" * (DEEP // 3),
        "unclosed": "x = " + "(" * DEEP,
        "unary_minus": "x = " + "-" * DEEP + "1",
        "not": "x = " + "not " * DEEP + "y",
        "lambda": "f = " + "lambda: " * DEEP + "0",
        "if_else": "x = " + "1 if c else " * DEEP + "2",
        "power": "x = " + "2 ** " * DEEP + "2",
        "await": "async def f():\n    return " + "await " * DEEP + "x",
        "calls": "x = f" + "(" * DEEP + ")" * DEEP,
        "subscripts": "x = a" + "[0]" * DEEP,
        "attributes": "x = a" + ".b" * DEEP,
        "fstrings": "x = " + "f'{" * 200 + "1" + "}'" * 200,
        "indentation": "".join("    " * i + "if x:\n" for i in range(200)) + "    " * 200 + "pass\n",
        "binop_chain": "x = " + "1 + " * DEEP + "1",
        "comparisons": "x = " + "a < " * DEEP + "b",
        "tuple": "x = " + "1, " * DEEP + "1",
    }
    for name, text in deep.items():
        add(f"deep_{name}.py", text.encode() + b"\n")

    if not quick:
        n = BIG // 4
        add("big_binop_line.py", b"x = " + b"1 + " * n + b"1\n")
        add("big_string_literal.py", b'x = "' + b"a" * BIG + b'"\n')
        add("big_unterminated_string.py", b'x = "' + b"a" * BIG + b"\n")
        add("big_comment.py", b"# " + b"c" * BIG + b"\nx = 1\n")
        # Many short lines: 10 MB only, as the dump of 100 MB of statements is itself > 4 GiB.
        add("big_many_lines.py", b"x = 1\n" * (BIG // 60))
    return cases


def run_one(qdbuild, name, path, timeout, mem_limit):
    def limit():
        if mem_limit:
            resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))

    err_path = path.with_suffix(".stderr")
    t0 = time.monotonic()
    with open(err_path, "wb") as err_file:
        p = subprocess.Popen([str(qdbuild), "dump-ast", str(path)], stdout=subprocess.DEVNULL,
                             stderr=err_file, preexec_fn=limit)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return name, path, f"hang: killed after {timeout} s", 0.0
    elapsed = time.monotonic() - t0
    rc = p.returncode
    with open(err_path, "rb") as f:
        head = f.read(4096)
    if rc not in (0, 1):
        return name, path, f"{qdtest.describe_rc(rc)}; stderr: {head[:300]!r}", elapsed
    if rc == 1:
        e = qdtest.first_error(head)
        if e is None:
            return name, path, f"exit 1 without `path:line:col: error:`; stderr: {head[:300]!r}", \
                elapsed
        if e[0] < 1:
            return name, path, f"error line {e[0]} < 1", elapsed
    err_path.unlink()
    return name, path, None, elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qdbuild", default=str(qdtest.DEFAULT_QDBUILD))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-memory-limit", action="store_true")
    ap.add_argument("--memory-limit-gb", type=float, default=4.0)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    qdbuild = qdtest.require_qdbuild(Path(a.qdbuild).resolve())
    mem_limit = None if a.no_memory_limit else int(a.memory_limit_gb * 1024 ** 3)

    with CHECKS.workdir("qd-malformed-") as tmp:
        run_all(qdbuild, tmp, a, mem_limit)
    return CHECKS.finish()


def run_all(qdbuild, tmp, a, mem_limit):
    """Generates the inputs in tmp and runs each; on failure only the failing inputs stay."""
    cases = generate(tmp, a.quick)
    print(f"malformed: {len(cases)} inputs in {tmp}; timeout {a.timeout:g} s; memory limit "
          f"{'none' if mem_limit is None else f'{a.memory_limit_gb:g} GiB'}")
    sys.stdout.flush()
    failed = []
    slowest = (0.0, "")
    # Big inputs run alone so that two of them never share the memory.
    small = [c for c in cases if not c[0].startswith("big_")]
    big = [c for c in cases if c[0].startswith("big_")]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda c: run_one(qdbuild, c[0], c[1], a.timeout, mem_limit),
                                small))
    results += [run_one(qdbuild, n, p, a.timeout, mem_limit) for n, p in big]
    for name, path, problem, elapsed in results:
        slowest = max(slowest, (elapsed, name))
        if problem:
            failed.append(path)
            if len(failed) <= SHOWN:
                check(False, f"{name}: {problem}\n    input: {path}")
        elif name.startswith(("big_", "deep_")):
            print(f"  ok {name} ({elapsed:.2f} s)")
    check(len(failed) <= SHOWN, f"{len(failed) - SHOWN} more failing inputs (not shown)")
    print(f"malformed: {len(results) - len(failed)}/{len(results)} passed; slowest "
          f"{slowest[1]} {slowest[0]:.2f} s")
    if failed:
        # Keep only the failing inputs.
        keep = set(failed)
        for _, p in cases:
            if p not in keep:
                p.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
