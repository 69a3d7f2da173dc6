#!/usr/bin/env python3
"""Differential test: qdbuild's tokenizer against Python 3.12's `tokenize` (the C tokenizer).

Usage: compare_tokens.py DUMP_TOKENS_BINARY [FILE_OR_DIR ...] [--show N] [--errors]

For every .py file, the tokens printed by tests/lexer/dump_tokens are compared with
tokenize.generate_tokens() after mapping the module's view to what CPython's parser sees:
  * NL and COMMENT tokens are dropped; OP becomes its exact type; keywords become 'kw';
  * columns are converted from characters to UTF-8 bytes;
  * a NEWLINE that follows a comment starts at the '#' (the C tokenizer does not split them);
  * an FSTRING_MIDDLE ending in a doubled brace keeps one brace in its text but its end column
    covers both braces (tok->col_offset), so end_col is one more than the module reports.
Files that `tokenize` rejects are counted apart. With --errors, files that compile() rejects
are also checked: a tokenizer error must match the SyntaxError's message, line and offset.
Python 3.12 standard library only.
"""
import io
import keyword
import os
import subprocess
import sys
import tempfile
import tokenize

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import qdtest  # noqa: E402

BATCH = 64


def line_starts(data):
    """Byte offsets of line starts, treating \\r\\n, \\r and \\n as newlines."""
    starts = [0]
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b == 0x0A:
            starts.append(i + 1)
        elif b == 0x0D:
            if i + 1 < n and data[i + 1] == 0x0A:
                i += 1
            starts.append(i + 1)
        i += 1
    return starts


def expected_tokens(text, data):
    """Tokens as CPython's parser sees them: (kind, line, col, end_line, end_col, begin, end)."""
    norm = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = norm.split("\n")
    starts = line_starts(data)

    def bcol(line, col):
        if line - 1 < len(lines):
            return len(lines[line - 1][:col].encode("utf-8"))
        return col

    def off(line, col):
        if line - 1 < len(starts):
            return min(starts[line - 1] + col, len(data))
        return len(data)

    out = []
    prev = None
    for t in tokenize.generate_tokens(io.StringIO(norm).readline):
        ty = t.type
        if ty in (tokenize.NL, tokenize.COMMENT):
            prev = t
            continue
        name = tokenize.tok_name[t.exact_type]
        if ty == tokenize.NAME and t.string in keyword.kwlist:
            name = "'%s'" % t.string
        (l1, c1), (l2, c2) = t.start, t.end
        b1, b2 = bcol(l1, c1), bcol(l2, c2)
        if l2 > l1 and ty in (tokenize.STRING, tokenize.FSTRING_MIDDLE):
            # The module's end column of multi-line strings is wrong on non-ASCII lines.
            b2 = len(t.string.rsplit("\n", 1)[-1].encode("utf-8"))
        begin, end = off(l1, b1), off(l2, b2)
        if ty == tokenize.NEWLINE:
            end = begin
            b2 = b1 + 1
            if prev is not None and prev.type == tokenize.COMMENT and prev.start[0] == l1:
                b1 = bcol(l1, prev.start[1])
                begin = off(l1, b1)
        if ty == tokenize.FSTRING_MIDDLE and t.string and t.string[-1] in "{}":
            if data[end:end + 1] == t.string[-1].encode() and "\\N{" not in t.string:
                b2 += 1
        out.append((name, l1, b1, l2, b2, begin, end))
        prev = t
    return out


def same_error(text, diag):
    """True if compile() fails with the message and position of our diagnostic line."""
    e = compile_error(text)
    if e is None:
        return False
    p = diag.split(" ", 7)
    line, col = int(p[3]), int(p[4])
    lt = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    src = lt[line - 1].encode("utf-8") if 0 < line <= len(lt) else b""
    ccol = len(src[:col].decode("utf-8", "replace")) + 1
    return p[7] == e.msg and line == e.lineno and ccol == (e.offset or 1)


def compile_error(text):
    try:
        compile(text, "<file>", "exec")
    except SyntaxError as e:
        return e
    except (ValueError, MemoryError, RecursionError, OverflowError):
        return None
    return None


def main():
    qdtest.require_python312("the tokenizer comparison with tokenize")
    args = sys.argv[1:]
    show = 10
    check_errors = "--errors" in args
    if check_errors:
        args.remove("--errors")
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i:i + 2]
    binary = args[0]
    roots = args[1:] or ["/root/.pyenv/versions/3.12.1/lib/python3.12"]
    files = []
    for r in roots:
        if os.path.isdir(r):
            for d, _, fs in os.walk(r):
                files += [os.path.join(d, f) for f in fs if f.endswith(".py")]
        else:
            files.append(r)
    files.sort()

    tmpdir = tempfile.mkdtemp(prefix="qd_lex_")
    total = identical = rejected = lenient = 0
    err_total = err_same = 0
    shown = 0
    for bi in range(0, len(files), BATCH):
        batch = files[bi:bi + BATCH]
        inputs = []
        for k, path in enumerate(batch):
            raw = open(path, "rb").read()
            try:
                enc, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
                text = raw.decode(enc)
            except (SyntaxError, UnicodeDecodeError, LookupError):
                inputs.append(None)
                continue
            if text.startswith("\ufeff"):
                text = text[1:]
            data = text.encode("utf-8", "surrogatepass")
            tmp = os.path.join(tmpdir, "%d.py" % k)
            with open(tmp, "wb") as f:
                f.write(data)
            inputs.append((path, tmp, text, data))
        res = subprocess.run([binary] + [x[1] for x in inputs if x], capture_output=True)
        got = {}
        cur = None
        for line in res.stdout.decode("utf-8", "replace").split("\n"):
            if line.startswith("FILE "):
                cur = got.setdefault(line[5:], ([], []))
            elif line.startswith("DIAG "):
                cur[1].append(line)
            elif line:
                p = line.split(" ")
                cur[0].append((p[0],) + tuple(int(x) for x in p[1:]))
        for x in inputs:
            if x is None:
                continue
            path, tmp, text, data = x
            toks, diags = got.get(tmp, ([], []))
            errors = [d for d in diags if d.split(" ")[1] == "error"]
            try:
                exp = expected_tokens(text, data)
            except (SyntaxError, tokenize.TokenError):
                rejected += 1
                exp = None
            if check_errors:
                e = compile_error(text)
                if e is not None or errors:
                    err_total += 1
                    ok = False
                    if e is not None and errors:
                        ok = same_error(text, errors[0])
                    elif e is not None and not errors:
                        ok = None  # a parser error, not the tokenizer's
                    if ok:
                        err_same += 1
                    elif ok is False and shown < show:
                        shown += 1
                        print("ERRDIFF %s: python=%r ours=%r" % (
                            path, e and (e.msg, e.lineno, e.offset), errors))
                    elif ok is None:
                        err_total -= 1
            if exp is None:
                continue
            total += 1
            if toks == exp:
                identical += 1
                continue
            if errors and same_error(text, errors[0]):
                # `tokenize` runs the C tokenizer in its lenient extra-tokens mode (no identifier
                # or old-octal checks); our error is the one compile() reports.
                lenient += 1
                continue
            if shown < show:
                shown += 1
                n = min(len(toks), len(exp))
                i = next((i for i in range(n) if toks[i] != exp[i]), n)
                print("DIFF %s token %d\n  ours:     %s\n  tokenize: %s" % (
                    path, i, toks[i] if i < len(toks) else None, exp[i] if i < len(exp) else None))
    print("identical %d/%d files; %d more where tokenize is lenient and our error equals "
          "compile()'s; tokenize rejected %d" % (identical, total, lenient, rejected))
    if check_errors:
        print("tokenizer errors matching compile(): %d/%d" % (err_same, err_total))
    return 0 if identical + lenient == total else 1


if __name__ == "__main__":
    sys.exit(main())
