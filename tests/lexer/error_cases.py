#!/usr/bin/env python3
"""Tokenizer error messages and positions against compile() (Python 3.12 stdlib only).

Usage: error_cases.py DUMP_TOKENS_BINARY
Each case is compiled by CPython; where CPython raises a SyntaxError our first error diagnostic
must have the same message, line and (1-based character) offset. Cases CPython accepts must
produce no error. Cases marked PARSER are errors CPython's parser reports (not the tokenizer);
for them only "no tokenizer error, or the same one" is checked.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import qdtest  # noqa: E402

CASES = [
    "x = 1 \\ y", "x = \\", "if x:\n    a\n  b\n", "if x:\n\ta\n        b\n", "foo(\n",
    "x = (1,\n]", "x = (1,]", "x = )", "1abc", "1_a", "0777", "0o8", "0o", "0b2", "0b", "0x",
    "0xg", "1e+x", "1ex", "1if x else 2", "1_000_", "0_7", "0__1", "1.5j", "1.e5", "1__0",
    "0x1for x in y", "1jif x else y", "0b1and 1", "1.2.3", "'abc", "'''abc\n\n", '"""a\nb',
    'f"{x"}', 'f"abc', 'f"""abc\n', "f'{'", 'f"{x', 'f"{x}}"', 'f"{x)}"', 'f"}"',
    'f"{x!r:{y:{z:{w}}}}"', 'f"{{}}"', 'f"{x:{{y}}}"', "x = \u20ac", "x = a\u00a0b",
    "\u00e9t\u00e9 = 1", "a\u00b7b = 1", "\x01", "x = $", "a = b ? c", "(" * 201, "(" * 200,
    "[\n" * 3, "if x:\n" + "".join(" " * i + "if x:\n" for i in range(1, 101)),
    "def f():\n  return 1\n pass\n", "  x = 1\n", "x = '''\n\n\n", "x = 'a\\\nb'\n",
    "x = (\n  1,\n  2\n", "x = {'a': [1, (2,\n", "\\\n", "x = 1 \\\n\n", "x\r\ny = (\r\n]",
    "x = 'abc\r\n", "s = f'{x!}'", "s = f'{x:{y!r}}'", "s = f'{a}{b}{'", "s = rf'\\{x}'",
    "s = f'\\N{BULLET}'", "s = f'\\N{BULLET'", "s = f'{x=!r:>10}'", "x = 1_j", "x = 0_",
    "x = 08.5", "x = 0008", "x = 0e", "x = 0j", "x = .5e-3j", "x = 1e5_0", "x = 1e_5",
    "print(1)\n\x0c\n  x = 1", "if x:\n\x0c  y\n", "if 1:\n        a\n\tb\n", "if 1:\n\tb\n        a\n",
    "x = 1\n\t\n", "ß = 1", "x = 1 # \u20ac\n", "# only comment", "", "\n\n", "x=1\r", "x=1\ry=2\r",
    'x = b"\\xff" rb"x" Rb"x" bR"x" BR"x" u"x" U"x" ur"x"', "f'{x:\n}'", "f'''{x:\n}'''",
    "x = 1if 1else 2", "x = [0x1for x in y]", "x = 1 if 1 else 2\n\\ y", "async def f(): await x",
    "match x:\n case 1: pass", "type X = int", "x = 1 <> 2", "x = a ! b",
]


def main():
    qdtest.require_python312("the tokenizer error cases (compile() as the reference)")
    binary = sys.argv[1]
    d = tempfile.mkdtemp(prefix="qd_lexerr_")
    paths = []
    for i, src in enumerate(CASES):
        p = os.path.join(d, "%03d.py" % i)
        with open(p, "wb") as f:
            f.write(src.encode("utf-8"))
        paths.append(p)
    out = subprocess.run([binary] + paths, capture_output=True).stdout.decode("utf-8", "replace")
    diags = {}
    cur = None
    for line in out.split("\n"):
        if line.startswith("FILE "):
            cur = diags.setdefault(line[5:], [])
        elif line.startswith("DIAG error "):
            cur.append(line.split(" ", 7))
    bad = 0
    for p, src in zip(paths, CASES):
        try:
            compile(src, "<case>", "exec")
            e = None
        except SyntaxError as ex:
            e = ex
        ours = diags.get(p, [])
        if e is None:
            if ours:
                bad += 1
                print("FAIL %r: compile() accepts; ours %s" % (src, ours[0][3:]))
            continue
        if not ours:
            print("  parser-only %r: %s %s %s" % (src[:40], e.msg, e.lineno, e.offset))
            continue
        _, _, code, line, col, _, _, msg = ours[0]
        line, col = int(line), int(col)
        lines = src.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        b = lines[line - 1].encode() if 0 < line <= len(lines) else b""
        off = len(b[:col].decode("utf-8", "replace")) + 1
        if (msg, line, off) != (e.msg, e.lineno, e.offset or 1):
            bad += 1
            print("FAIL %r:\n   python %r %s %s\n   ours   %r %s %s (%s)" % (
                src[:60], e.msg, e.lineno, e.offset, msg, line, off, code))
    print("%d cases, %d failures" % (len(CASES), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
