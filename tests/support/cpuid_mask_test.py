#!/usr/bin/env python3
"""libqd_cpuid_mask (cpuid_mask.c) does what the comparisons with Quadrants rely on:

  cpuid_mask_test.py build/lib/libqd_cpuid_mask.so

- without QD_CPUID_MASK it changes nothing (clang-19 -march=native sees the host CPU);
- with QD_CPUID_MASK=x86-64-v3, LLVM's host detection in an unchanged program (clang-19
  -march=native, which calls sys::getHostCPUName / getHostCPUFeatures as Quadrants' JIT does) sees
  "haswell" with +avx2 and +fma and every AVX-512 feature off, on Intel and AMD hosts alike (AMD's
  own SSE4A, XOP, FMA4, TBM, LWP, MWAITX off too), and the CPU's real features are
  still there for everything else (a program's own fault, here a SIGSEGV, keeps its meaning);
- an unknown level is refused (exit 2).
Exit 0/1; 125 (skip policy "no-cpuid-faulting") on a machine without CPUID faulting."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

CHECKS = qdtest.Checks("cpuid_mask (unmasked unchanged, haswell, v3 features on, AVX-512/AMX/AVX10 "
                       "off, the program's own SIGSEGV, unknown level refused)")
check = CHECKS.check


def native(env):
    """(target cpu, {feature: on}) that clang-19 -march=native chooses under env."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "e.c")
        open(src, "w").write("int x;\n")
        p = subprocess.run(["clang-19", "-march=native", "-c", src, "-o", os.path.join(tmp, "e.o"),
                            "-###"], capture_output=True, text=True, env=env)
    cpu = re.search(r'"-target-cpu" "([^"]+)"', p.stderr)
    feats = dict((f[1:], f[0] == "+")
                 for f in re.findall(r'"-target-feature" "([+-][^"]+)"', p.stderr))
    return (cpu.group(1) if cpu else None), feats, p.returncode


def main():
    lib = os.path.abspath(sys.argv[1])
    flags = open("/proc/cpuinfo").read()
    if not re.search(r"^flags\s*:.*\bcpuid_fault\b", flags, re.M):
        skip_policy.skip("no-cpuid-faulting", "libqd_cpuid_mask traps cpuid")
    if shutil.which("clang-19") is None:
        skip_policy.skip("no-tool", "clang-19 reads the host CPU as LLVM does")
    base = dict(os.environ)
    base.pop("QD_CPUID_MASK", None)
    p = subprocess.run(["true"], env=dict(base, LD_PRELOAD=lib, QD_CPUID_MASK="x86-64-v3"),
                       capture_output=True, text=True)
    if p.returncode == 125:  # the flag is there, the call refused (a seccomp filter)
        skip_policy.skip("no-cpuid-faulting", p.stderr.strip())
    host_cpu, host_feats, _ = native(base)
    cpu, feats, _ = native(dict(base, LD_PRELOAD=lib))
    check((cpu, feats) == (host_cpu, host_feats),
          f"preloaded without QD_CPUID_MASK: {cpu} differs from the host's {host_cpu}")
    cpu, feats, _ = native(dict(base, LD_PRELOAD=lib, QD_CPUID_MASK="x86-64-v3"))
    print(f"host: {host_cpu} (avx512f {host_feats.get('avx512f')}); masked: {cpu}")
    check(cpu == "haswell", f"masked: target cpu {cpu}, expected haswell")
    for f in ("avx2", "fma", "bmi2", "f16c", "avx"):
        check(feats.get(f), f"masked: +{f} missing")
    on = sorted(f for f, v in feats.items() if v and (f.startswith("avx512") or f.startswith("amx")
                                                       or f.startswith("avx10")))
    check(not on, f"masked: still on: {on}")
    amd = sorted(f for f in ("sse4a", "xop", "fma4", "tbm", "lwp", "mwaitx") if feats.get(f))
    check(not amd, f"masked: AMD's own extensions still on: {amd}")
    # A program's own SIGSEGV is still a SIGSEGV (the handler passes faults that are not cpuid on).
    p = subprocess.run([sys.executable, "-c", "import ctypes; ctypes.string_at(0)"],
                       env=dict(base, LD_PRELOAD=lib, QD_CPUID_MASK="x86-64-v3"),
                       capture_output=True)
    check(p.returncode == -11,
          f"a program's own segfault under the mask exited {p.returncode}, not -11")
    p = subprocess.run(["true"], env=dict(base, LD_PRELOAD=lib, QD_CPUID_MASK="x86-64-v4"),
                       capture_output=True, text=True)
    check(p.returncode == 2 and "unknown level" in p.stderr,
          f"QD_CPUID_MASK=x86-64-v4: exit {p.returncode} {p.stderr!r}")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
