#!/usr/bin/env python3
"""Differential check of the Unicode / repr / number / literal units against CPython 3.12.

Builds tests/unit_oracle/oracle_main.cpp with the sources it exercises (clang++-19, or $CXX) unless
--oracle names a built driver, then compares, with the running Python 3.12:
  every code point's identifier-start / identifier-continue / printable property and NFKC,
  random NFKC strings, every Unicode name and alias (\\N{...} lookup), repr() of random str,
  bytes, float and imaginary values, random int/float/imaginary literals, and random str/bytes
  literal bodies through compile() (value, errors and SyntaxWarnings).
Usage: python3.12 tests/unit_oracle/compare.py [--scale N] [--seed S] [--oracle PATH]
Exit: 0 all equal; 1 mismatches (the first ones are printed); 125 not Python 3.12 (skipped;
a failure under CI=true: tests/lib/skip_policy.py).
Takes about 30 s (build included) at --scale 1.
"""

import argparse
import ctypes
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unicodedata
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import qdtest  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = ["tests/unit_oracle/oracle_main.cpp", "src/support/utf8.cpp", "src/syntax/unicode.cpp",
           "src/syntax/unicode_tables.cpp", "src/syntax/unicode_names.cpp", "src/syntax/py_repr.cpp",
           "src/syntax/number_literal.cpp", "src/syntax/literal_decode.cpp"]


class Checker:
    def __init__(self, oracle):
        self.oracle = oracle
        self.failures = 0

    def run(self, mode, inputs):
        data = "".join(x + "\n" for x in inputs)
        r = subprocess.run([self.oracle, mode], input=data, capture_output=True, text=True,
                           check=True)
        return r.stdout.split("\n")[:-1]

    def compare(self, kind, cases, got, want_fn):
        assert len(got) == len(cases), (kind, len(got), len(cases))
        for case, g in zip(cases, got):
            w = want_fn(case)
            if g != w:
                self.failures += 1
                if self.failures <= 30:
                    print("MISMATCH {}: {!r}\n  got  {!r}\n  want {!r}".format(kind, case, g, w))
        print("{:<12} {:>9} cases".format(kind, len(cases)))


def enc(s):
    return s.encode("utf-8", "surrogatepass")


def unicode_aliases():
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    capi = get_pointer(unicodedata._ucnhash_CAPI, b"unicodedata._ucnhash_CAPI")
    getname = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_int,
                               ctypes.c_int)(ctypes.cast(capi, ctypes.POINTER(ctypes.c_void_p))[0])
    buf = ctypes.create_string_buffer(256)
    # 0xF0000.. aliases, 0xF0200.. named sequences (which \N{...} must reject).
    return [buf.value.decode() for code in range(0xF0000, 0xF0400) if getname(code, buf, 256, 1)]


def check_unicode(c, scale):
    out = c.run("props", [])[0]
    def props(cp):
        ch = chr(cp)
        ok = not 0xD800 <= cp <= 0xDFFF
        return str((1 if ok and ch.isidentifier() else 0) +
                   (2 if ok and ("a" + ch).isidentifier() else 0) + (4 if ch.isprintable() else 0))
    c.compare("props", list(range(0x110000)), list(out), props)

    cases = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    marks = [chr(cp) for cp in range(0x110000) if unicodedata.combining(chr(cp))]
    pool = ([chr(x) for x in range(0x41, 0x7B)] + marks[:200] + random.sample(marks, 100) +
            [chr(x) for x in range(0x1100, 0x1200)] + [chr(x) for x in range(0x11A8, 0x11C3)] +
            list("\uac00\uac01\u0f73\u0344\u1e9b\u0fb2\u0f71\u0f80\u3099\u309a\u304b\u30cf") +
            [chr(random.randrange(0xA0, 0x3000)) for _ in range(300)])
    cases += ["".join(random.choice(pool) for _ in range(random.randint(1, 8)))
              for _ in range(30000 * scale)]
    c.compare("nfkc", cases, c.run("nfkc", [enc(s).hex() for s in cases]),
              lambda s: enc(unicodedata.normalize("NFKC", s)).hex())

    names = [n for n in (unicodedata.name(chr(cp), None) for cp in range(0x110000)) if n]
    extra = unicode_aliases()
    qs = names + [x.lower() for x in names[::7]] + extra + [x.lower() for x in extra] + [
        "CJK UNIFIED IDEOGRAPH-04E00", "CJK UNIFIED IDEOGRAPH-4e00", "cjk unified ideograph-4E00",
        "CJK UNIFIED IDEOGRAPH-", "CJK UNIFIED IDEOGRAPH-323AF", "CJK UNIFIED IDEOGRAPH-323B0",
        "hangul syllable GA", "HANGUL SYLLABLE ga", "HANGUL SYLLABLE ", "HANGUL SYLLABLE A",
        "HANGUL SYLLABLE GAGG", "HANGUL SYLLABLE GAX", "LATIN SMALL LETTER A ", "",
        " LATIN SMALL LETTER A", "LATIN SMALL  LETTER A", "TANGUT IDEOGRAPH-17000",
        "cjk compatibility ideograph-f900"] + [random.choice(names)[:-1] for _ in range(2000)]
    def lookup(q):
        try:
            v = unicodedata.lookup(q)
        except KeyError:
            return "-1"
        return str(ord(v)) if len(v) == 1 else "-1"  # \N{...} rejects named sequences
    c.compare("names", qs, c.run("name", [q.encode().hex() for q in qs]), lookup)


def check_repr(c, scale):
    special = "ab'\"\\\t\n\r\x00\x7f\x80\xa0\xad é€\u2028\U0001F600\ud800\udfff\U000e0001\U0010ffff\u0378"
    def rand_str():
        k, n = random.random(), random.randint(0, 12)
        if k < 0.3:
            return "".join(chr(random.randint(0, 0x7F)) for _ in range(n))
        if k < 0.6:
            return "".join(random.choice(special) for _ in range(n))
        return "".join(chr(random.randint(0, 0x10FFFF)) for _ in range(n))
    strs = [rand_str() for _ in range(50000 * scale)] + [chr(cp) for cp in range(0x110000)]
    got = c.run("repr_str", [enc(s).hex() for s in strs])
    c.compare("repr_str", strs, [bytes.fromhex(g).decode("utf-8", "surrogatepass") for g in got],
              repr)

    bs = ([bytes(random.randint(0, 255) for _ in range(random.randint(0, 10)))
           for _ in range(20000 * scale)] +
          [bytes(random.choice(b"ab'\"\\\n\t") for _ in range(random.randint(0, 6)))
           for _ in range(10000 * scale)] + [bytes([x]) for x in range(256)])
    c.compare("repr_bytes", bs, c.run("repr_bytes", [b.hex() for b in bs]), repr)

    fl = [struct.unpack("<d", struct.pack("<Q", random.getrandbits(64)))[0]
          for _ in range(50000 * scale)]
    fl += [random.uniform(-1e6, 1e6) for _ in range(10000 * scale)]
    fl += [float(random.randint(0, 10 ** random.randint(1, 20))) for _ in range(10000 * scale)]
    fl += [round(random.random(), random.randint(0, 8)) * 10 ** random.randint(-25, 25)
           for _ in range(10000 * scale)]
    fl += [0.0, -0.0, math.inf, -math.inf, math.nan, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5,
           5e-324, 1.7976931348623157e308, 1e22, 1e23, 0.1, 123456789012345678.0]
    fl += [10.0 ** e for e in range(-30, 30)] + [1.5 * 10.0 ** e for e in range(-30, 30)]
    bits = [struct.pack(">d", f).hex() for f in fl]
    c.compare("repr_float", fl, c.run("repr_float", bits), repr)
    c.compare("repr_imag", fl, c.run("repr_imag", bits), lambda f: repr(complex(0.0, f)))


def with_underscores(digits):
    out = digits[0]
    for ch in digits[1:]:
        out += ("_" if random.random() < 0.15 else "") + ch
    return out


def check_numbers(c, scale):
    nums = ["0", "00", "0_0", "000", "1_000", "0x_FF", "0o17", "0b1", "0x0", "0X_dead_BEEF",
            "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "0xffffffffffffffff", "0x10000000000000000",
            "1_000.5e-1_0j", "1e400", "1e-400", "1.", ".5", "1E5J", "0e0", "00.5", "0B_1010",
            "1" + "0" * 400 + ".0", "0." + "0" * 400 + "1e400", "9" * 400 + "e-400",
            "2.4703282292062327e-324", "2.4703282292062328e-324", "1.7976931348623158e308",
            "1.7976931348623159e308", "1e99999999999999999999999", "1e-99999999999999999999999",
            "0e99999999999999999999", "0O_777"]
    for _ in range(10000 * scale):
        base = random.choice([2, 8, 10, 16])
        v = random.getrandbits(random.choice([8, 32, 63, 64, 65, 100, 300, 2000]))
        if base == 10:
            nums.append(with_underscores(str(v)))
            continue
        prefix = random.choice({2: ["0b", "0B"], 8: ["0o", "0O"], 16: ["0x", "0X"]}[base])
        digits = format(v, {2: "b", 8: "o", 16: random.choice("xX")}[base])
        if random.random() < 0.3:
            digits = "0" * random.randint(1, 3) + digits
        nums.append(prefix + with_underscores(digits))
    for _ in range(15000 * scale):
        m = "".join(random.choice("0123456789") for _ in range(random.randint(1, 25)))
        pos = random.randint(0, len(m))
        s = (with_underscores(m[:pos]) if pos else "") + "."
        s += with_underscores(m[pos:]) if pos < len(m) else ""
        if s == ".":
            s = "0."
        if random.random() < 0.5:
            s += (random.choice("eE") + random.choice(["", "+", "-"]) +
                  with_underscores(str(random.randint(0, 400))))
        if random.random() < 0.3:
            s += random.choice("jJ")
        nums.append(s)
    def want(s):
        v = eval(s)
        kind = "int" if isinstance(v, int) else "float" if isinstance(v, float) else "imag"
        return kind + " " + (str(v) if kind == "int" else repr(v))
    c.compare("numbers", nums, c.run("number", [s.encode().hex() for s in nums]), want)


ESCAPES = ["\\\\", "\\'", '\\"', "\\a", "\\b", "\\f", "\\n", "\\r", "\\t", "\\v", "\\\n", "\\0",
           "\\7", "\\12", "\\123", "\\400", "\\777", "\\1234", "\\8", "\\d", "\\q", "\\x", "\\x4",
           "\\x41", "\\xfF", "\\xg0", "\\u", "\\u12", "\\u1234", "\\ud800", "\\uDFFF",
           "\\U0001F600", "\\U00110000", "\\UFFFFFFFF", "\\U1234", "\\N", "\\N{", "\\N{}",
           "\\N{LATIN SMALL LETTER A}", "\\N{latin small letter a}", "\\N{BOGUS}", "\\N{NUL}",
           "\\N{HANGUL SYLLABLE GAG}", "\\N{CJK UNIFIED IDEOGRAPH-4E00}",
           "\\N{LATIN CAPITAL LETTER A WITH MACRON AND GRAVE}", "\\N{LATIN SMALL LETTER \u00e9}",
           "\\{", "\\}", "\\\u00e9", "\\\u20ac", "\\ "]
PLAIN = ["a", "b", " ", "\u00e9", "\u20ac", "\U0001F600", "x", "{", "0", "7", "\t", '"', "F"]


def python_decode(prefix, body):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            v = eval(compile(prefix + "'" + body + "'", "<s>", "eval"))
        except SyntaxError as e:
            return "ERR | E " + e.msg
    out = "OK " + (v.hex() if isinstance(v, bytes) else enc(v).hex())
    return out + "".join(" | W " + str(w.message) for w in caught)


def check_literals(c, scale):
    bodies = ["".join(random.choice(ESCAPES) if random.random() < 0.4 else random.choice(PLAIN)
                      for _ in range(random.randint(0, 6))) for _ in range(12000 * scale)]
    bodies += ESCAPES
    for mode, prefix in (("str", ""), ("rstr", "r"), ("bytes", "b"), ("rbytes", "rb")):
        cases = [b for b in bodies if not (mode[0] == "r" and "\\'" in b)]
        c.compare(mode, cases, c.run(mode, [b.encode().hex() for b in cases]),
                  lambda b: python_decode(prefix, b))


def build_oracle(workdir):
    cxx = os.environ.get("CXX") or shutil.which("clang++-19") or shutil.which("clang++") or "c++"
    exe = os.path.join(workdir, "oracle")
    cmd = [cxx, "-std=c++20", "-O1", "-I", os.path.join(ROOT, "src"), "-o", exe]
    cmd += [os.path.join(ROOT, s) for s in SOURCES]
    subprocess.run(cmd, check=True)
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oracle", help="a built oracle_main driver (default: build one)")
    ap.add_argument("--scale", type=int, default=1, help="multiplies the random case counts")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    qdtest.require_python312("the Unicode/repr/literal units comparison")
    random.seed(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        c = Checker(args.oracle or build_oracle(tmp))
        check_unicode(c, args.scale)
        check_repr(c, args.scale)
        check_numbers(c, args.scale)
        check_literals(c, args.scale)
    print("mismatches:", c.failures)
    sys.exit(1 if c.failures else 0)


if __name__ == "__main__":
    main()
