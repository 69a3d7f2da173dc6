#!/usr/bin/env bash
# Makes build/gpu-bundle/: what a machine with an NVIDIA GPU needs to check qdbuild's CUDA path in
# one call, built here (docs/cuda.md "The device bundle"). The machine needs python3 (stdlib
# only) and the NVIDIA driver; no LLVM, no Quadrants, no build tree, no network.
#   build/lib/      libqdrt.so and the libzstd it links (loaded from here)
#   runtime/python/ the qdrt binding
#   tests/diff/     gpu_compare.py, its harness and the differential corpus's case descriptions
#   stores/corpus   the differential corpus (tests/diff/cases) built for cpu and cuda:sm_90
#   stores/rt       the runtime's hand-written kernels (tests/cuda_runtime/kernels.cu; nvcc here)
#   stores/bench    qdbuild-compiled bandwidth-bound kernels and a graph kernel
#                   (tests/cuda/bench_kernels.py)
#   reference/      the corpus's CPU outputs as computed here
#   genesis/        Genesis's Franka scene with its CUDA arms (block-level kernels included):
#                   store/ built for cpu and cuda:sm_90, calls/ the first call of each kernel
#                   instance captured on the CPU with its inputs and outputs; taken from
#                   build/genesis-cuda-arms (ctest genesis_bridge_cuda_arms keeps it there) or
#                   made now (tests/genesis/bridge_franka.py --cuda-arms --keep); left out
#                   without build/genesis-venv
#   run.sh          the one command: CPU-side self checks, the GPU probe (no GPU: exit 125), the
#                   runtime kernels and benchmarks, every corpus case on the GPU against the CPU;
#                   a table last; exit 0 all matched, 1 a failure
# The size is printed: with the tracked tree that travels with it, it must stay under 64 MiB
# (the bundle at most 56 MiB).
# Usage: scripts/gpu-bundle.sh    Env: QD_JOBS (build jobs), NVCC (default: /usr/local/cuda/bin/nvcc),
#                                      QD_BUNDLE_NO_BUILD=1 (take build/ as it is)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=build/gpu-bundle
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}

# QD_BUNDLE_NO_BUILD=1: use build/ as it is (the test suite has built it; no second ninja there).
if [[ "${QD_BUNDLE_NO_BUILD:-0}" != 1 ]]; then
  cmake --build build -j "${QD_JOBS:-2}" --target qdbuild qdbuild_backend qdrt qd_rt_store_tool \
    >/dev/null
fi
for f in build/bin/qdbuild build/lib/libqdbuild-backend.so build/lib/libqdrt.so build/bin/qd_rt_store_tool; do
  [[ -e "$f" ]] || { echo "gpu-bundle: $f is missing (scripts/build.sh)"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/build/lib" "$out/runtime" "$out/tests/diff" "$out/tests/lib" "$out/stores" \
  "$out/reference"

cp -L build/lib/libqdrt.so "$out/build/lib/libqdrt.so"
cp -L "$(ldd build/lib/libqdrt.so | awk '/libzstd.so/ { print $3 }')" "$out/build/lib/"
cp -r runtime/python "$out/runtime/python"
find "$out/runtime/python" -name __pycache__ -prune -exec rm -rf {} +
cp tests/diff/gpu_compare.py tests/diff/harness.py "$out/tests/diff/"
cp -r tests/diff/cases_spec "$out/tests/diff/cases_spec"
cp tests/lib/skip_policy.py "$out/tests/lib/"
cp scripts/gpu_bundle_run.sh "$out/run.sh"

# The corpus for both targets. A kernel the CUDA target refuses (none today) fails that target's
# build (exit 1) and is left out of it, listed in reference/not_built.txt: the run compares what
# was built.
build/bin/qdbuild build tests/diff/cases --root tests/diff/cases --store "$out/stores/corpus" \
  --target cpu --target cuda:sm_90 >"$out/reference/corpus_build.log" 2>&1 || true
grep -E "^FAILED|error:" "$out/reference/corpus_build.log" >"$out/reference/not_built.txt" || true
build/bin/qdbuild build tests/cuda/bench_kernels.py --root tests/cuda --store "$out/stores/bench" \
  --target cpu --target cuda:sm_90 >/dev/null
python3 tests/cuda_runtime/make_cuda_store.py --out build/gpu-bundle-rt --tool build/bin/qd_rt_store_tool \
  --nvcc "$nvcc" >/dev/null
cp -r build/gpu-bundle-rt/store "$out/stores/rt"
cp build/gpu-bundle-rt/work/kernels.cubin "$out/stores/rt.cubin"
rm -rf build/gpu-bundle-rt
QDRT_LIBRARY="$PWD/$out/build/lib/libqdrt.so" python3 "$out/tests/diff/gpu_compare.py" \
  --cpu-record "$out/stores/corpus" "$out/reference/corpus_cpu.json"

# Genesis's calls: the genesis_bridge_cuda_arms test's (kept), else made now.
genesis=build/genesis-cuda-arms
if [[ ! -f "$genesis/calls/index.json" && -x build/genesis-venv/bin/python ]]; then
  python3 tests/genesis/bridge_franka.py --qdbuild build/bin/qdbuild \
    --python build/genesis-venv/bin/python --cuda-arms --steps 5 --keep "$genesis" >/dev/null ||
    echo "gpu-bundle: recording Genesis's calls failed (the bundle goes without them)"
fi
if [[ -f "$genesis/calls/index.json" ]]; then
  mkdir -p "$out/genesis"
  cp -r "$genesis/store" "$genesis/calls" "$out/genesis/"
  echo "gpu-bundle: Genesis's calls from $genesis: $(python3 -c "import json, sys; \
d = json.load(open(sys.argv[1])); print(len(d['calls']), 'captured,', len(d['not_captured']), \
'not:', ', '.join(sorted(k.split(':')[-1] for k in d['not_captured'])) or 'none')" \
    "$genesis/calls/index.json")"
else
  echo "gpu-bundle: no Genesis calls (no build/genesis-venv)"
fi

size=$(du -sb "$out" | cut -f1)
echo "gpu-bundle: $out, $((size / 1024 / 1024)) MiB ($size bytes; at most 56 MiB)"
if ((size > 56 * 1024 * 1024)); then
  echo "gpu-bundle: too large"
  exit 1
fi
