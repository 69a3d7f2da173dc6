// LD_PRELOAD=libqd_cpuid_mask.so QD_CPUID_MASK=x86-64-v3 PROGRAM...
//
// Runs an unchanged program as if the CPU were an AVX2 (x86-64-v3) Intel Haswell, whatever CPU the
// machine has: the program's `cpuid` instructions are trapped (Linux's CPUID faulting,
// arch_prctl(ARCH_SET_CPUID, 0); /proc/cpuinfo flag `cpuid_fault`) and answered with the real
// values less every AVX-512, AMX and AVX10 feature bit and AMD's own extensions (SSE4A, XOP,
// FMA4, TBM, LWP, MWAITX), with Intel's vendor string and Haswell's family and model (06_3CH),
// so LLVM's host detection (sys::getHostCPUName, getHostCPUFeatures, which a JIT such as
// Quadrants' CPU backend uses to pick its target) sees "haswell" with AVX2 and FMA and no AVX-512.
//
// Why a test needs it: Quadrants JIT-compiles for the host CPU and cannot be told another one,
// while qdbuild compiles for a fixed x86-64-v3. A comparison of the two that holds only on the
// CPU it was written on is a defect; with this library a test runs Quadrants' side on the same
// ISA level as qdbuild's, on any machine with CPUID faulting (tests/genesis/compare_kernels.py
// --quadrants-cpu x86-64-v3).
//
// QD_CPUID_MASK: "x86-64-v3" (the only level), or unset/empty (the library does nothing).
// If the kernel refuses CPUID faulting the library prints one line and exits the process with
// status 125 (what the tests read as "skip: no CPUID faulting"), so a run never silently uses the
// real CPU's features. `cpuid` in glibc's dynamic loader runs before this library and is not
// masked: glibc's own string-function choices may still use AVX-512 (they compute exact results).
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef ARCH_SET_CPUID
#define ARCH_SET_CPUID 0x1012
#endif

static struct sigaction previous_segv;  // the program's own SIGSEGV action, called for its faults
static int masking;

static long set_cpuid_faulting(int on) {
  // ARCH_SET_CPUID's argument: 1 = cpuid allowed, 0 = cpuid faults (SIGSEGV).
  return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1);
}

static void real_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]) {
  __asm__ volatile("cpuid"
                   : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
                   : "a"(leaf), "c"(subleaf));
}

static uint32_t clear(uint32_t value, const int* bits, size_t n) {
  for (size_t i = 0; i < n; ++i) value &= ~(1u << bits[i]);
  return value;
}

// The x86-64-v3 view of one leaf (Intel SDM vol. 2A, CPUID; bit numbers as LLVM's Host.cpp reads
// them).
static void mask_x86_64_v3(uint32_t leaf, uint32_t subleaf, uint32_t r[4]) {
  if (leaf == 0) {
    // "GenuineIntel" in EBX, EDX, ECX: on an AMD CPU, LLVM reads family 6 as an Athlon.
    r[1] = 0x756e6547u;  // "Genu"
    r[3] = 0x49656e69u;  // "ineI"
    r[2] = 0x6c65746eu;  // "ntel"
  } else if (leaf == 1) {
    // Family 6, model 0x3C (Haswell), stepping 3: what sys::getHostCPUName maps to "haswell".
    r[0] = 0x000306C3u;
  } else if (leaf == 7 && subleaf == 0) {
    // EBX: AVX512F 16, DQ 17, IFMA 21, PF 26, ER 27, CD 28, BW 30, VL 31.
    static const int ebx[] = {16, 17, 21, 26, 27, 28, 30, 31};
    // ECX: VBMI 1, VBMI2 6, GFNI 8, VAES 9, VPCLMULQDQ 10, VNNI 11, BITALG 12, VPOPCNTDQ 14.
    static const int ecx[] = {1, 6, 8, 9, 10, 11, 12, 14};
    // EDX: 4VNNIW 2, 4FMAPS 3, VP2INTERSECT 8, AMX-BF16 22, AVX512-FP16 23, AMX-TILE 24,
    // AMX-INT8 25.
    static const int edx[] = {2, 3, 8, 22, 23, 24, 25};
    r[0] = 0;  // no subleaf 1 (AVX-VNNI, AVX512-BF16, AVX10, AVX-IFMA, ...)
    r[1] = clear(r[1], ebx, sizeof ebx / sizeof *ebx);
    r[2] = clear(r[2], ecx, sizeof ecx / sizeof *ecx);
    r[3] = clear(r[3], edx, sizeof edx / sizeof *edx);
  } else if (leaf == 7) {
    r[0] = r[1] = r[2] = r[3] = 0;
  } else if (leaf == 0x24 || leaf == 0x1d || leaf == 0x1e) {
    r[0] = r[1] = r[2] = r[3] = 0;  // AVX10 and AMX tile information
  } else if (leaf == 0x80000001u) {
    // ECX: AMD's SSE4A 6, XOP 11, LWP 15, FMA4 16, TBM 21, MWAITX 29 (no Intel CPU has them).
    static const int ecx[] = {6, 11, 15, 16, 21, 29};
    r[2] = clear(r[2], ecx, sizeof ecx / sizeof *ecx);
  }
}

static void on_segv(int sig, siginfo_t* info, void* context) {
  ucontext_t* uc = (ucontext_t*)context;
  const unsigned char* ip = (const unsigned char*)uc->uc_mcontext.gregs[REG_RIP];
  if (info->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0xa2) {
    uint32_t leaf = (uint32_t)uc->uc_mcontext.gregs[REG_RAX];
    uint32_t subleaf = (uint32_t)uc->uc_mcontext.gregs[REG_RCX];
    uint32_t r[4];
    set_cpuid_faulting(0);
    real_cpuid(leaf, subleaf, r);
    set_cpuid_faulting(1);
    mask_x86_64_v3(leaf, subleaf, r);
    uc->uc_mcontext.gregs[REG_RAX] = r[0];
    uc->uc_mcontext.gregs[REG_RBX] = r[1];
    uc->uc_mcontext.gregs[REG_RCX] = r[2];
    uc->uc_mcontext.gregs[REG_RDX] = r[3];
    uc->uc_mcontext.gregs[REG_RIP] += 2;
    return;
  }
  // Any other fault is the program's own: its previous handler, or the default action.
  if (previous_segv.sa_flags & SA_SIGINFO) {
    previous_segv.sa_sigaction(sig, info, context);
  } else if (previous_segv.sa_handler != SIG_DFL && previous_segv.sa_handler != SIG_IGN) {
    previous_segv.sa_handler(sig);
  } else {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
}

// A program that sets its own SIGSEGV action through sigaction (Python's faulthandler, a crash
// reporter) keeps this library's handler in front: its action is kept as the one called for faults
// that are not cpuid. (glibc's signal() does not go through this symbol; a program that sets a
// SIGSEGV handler with it would take cpuid's faults itself.)
int sigaction(int sig, const struct sigaction* action, struct sigaction* old) {
  static int (*next)(int, const struct sigaction*, struct sigaction*);
  if (next == NULL) {
    next = (int (*)(int, const struct sigaction*, struct sigaction*))dlsym(RTLD_NEXT, "sigaction");
  }
  if (!masking || sig != SIGSEGV) return next(sig, action, old);
  if (old != NULL) *old = previous_segv;
  if (action != NULL) previous_segv = *action;
  return 0;
}

__attribute__((constructor)) static void qd_cpuid_mask_init(void) {
  const char* level = getenv("QD_CPUID_MASK");
  if (level == NULL || *level == '\0') return;
  if (strcmp(level, "x86-64-v3") != 0) {
    fprintf(stderr, "qd_cpuid_mask: QD_CPUID_MASK=%s: unknown level (known: x86-64-v3)\n", level);
    _exit(2);
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previous_segv);
  masking = 1;
  if (set_cpuid_faulting(1) != 0) {
    fprintf(stderr, "qd_cpuid_mask: this kernel or CPU has no CPUID faulting "
                    "(arch_prctl ARCH_SET_CPUID); cannot mask the CPU's features\n");
    _exit(125);
  }
}
