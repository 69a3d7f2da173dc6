#!/usr/bin/env bash
# The GPU check of issue 7 (docs/runtime.md "CUDA"), for a machine with an NVIDIA GPU:
#   1. builds qdbuild, libqdrt and the test tools (scripts/build.sh);
#   2. the runtime's own kernels (tests/cuda_runtime/kernels.cu, nvcc -> cubin + PTX bundle) on
#      the GPU: saxpy on a user stream, a reduction through temps/result;
#   3. benchmarks: saxpy on 2^28 floats vs a device-to-device cuMemcpy in the same run (goal
#      >= 80%), launch overhead vs an empty cuLaunchKernel from the same process;
#   4. the differential corpus built for cpu and cuda:sm_90, every case on the GPU vs the CPU
#      (tests/diff/gpu_compare.py); --runtime-only skips it (until the compile side has cuda);
#   5. with build/genesis-venv: the unchanged Genesis Franka scene on CUDA, 200 steps on the
#      store through qdrt.bridge against Quadrants (tests/genesis/bridge_franka.py --backend cuda:
#      records the scene on CUDA, builds --target cuda, compares qpos/qvel and contacts).
# Prints a short table last. Exit: 0 all matched, 1 a failure, 125 no GPU here.
# Env: QD_JOBS (build jobs, default: all cores), NVCC (default: nvcc on PATH or /usr/local/cuda).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runtime_only=0
[[ "${1:-}" == "--runtime-only" ]] && runtime_only=1

python3 tests/diff/gpu_compare.py --probe
probe=$?
if ((probe == 125)); then
  echo "gpu-check: skipped (exit 125): this machine has no usable NVIDIA GPU; run it on one"
  exit 125
elif ((probe != 0)); then
  exit 1
fi

out=build/gpu_check
rm -rf "$out"
mkdir -p "$out"
table=$out/table.txt
: >"$table"
status=0
t0=$SECONDS

echo "== gpu-check: build"
if ! QD_JOBS=${QD_JOBS:-$(nproc)} scripts/build.sh qdbuild qdbuild_backend qdrt qd_rt_store_tool \
    >"$out/build.log" 2>&1; then
  tail -30 "$out/build.log"
  echo "gpu-check: the build failed"
  exit 1
fi

echo "== gpu-check: runtime kernels and benchmarks"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if python3 tests/cuda_runtime/make_cuda_store.py --out "$out/rt" --tool build/bin/qd_rt_store_tool \
    --nvcc "$nvcc"; then
  python3 tests/diff/gpu_compare.py --selftest "$out/rt/store" --cubin "$out/rt/work/kernels.cubin" \
    --table "$table" || status=1
else
  echo "runtime kernels|not built (nvcc)|FAIL" >>"$table"
  status=1
fi

if ((runtime_only)); then
  echo "corpus GPU vs CPU|skipped (--runtime-only)|-" >>"$table"
else
  echo "== gpu-check: differential corpus (cpu and cuda:sm_90)"
  if build/bin/qdbuild build tests/diff/cases --store "$out/diff_store" --target cpu \
      --target cuda:sm_90 >"$out/corpus_build.log" 2>&1; then
    python3 tests/diff/gpu_compare.py --corpus "$out/diff_store" --table "$table" || status=1
  else
    tail -5 "$out/corpus_build.log"
    echo "corpus GPU vs CPU|not built: qdbuild build --target cuda:sm_90 failed|FAIL" >>"$table"
    status=1
  fi
fi

echo "== gpu-check: Genesis Franka on CUDA, the bridge against Quadrants (200 steps)"
if [[ -x build/genesis-venv/bin/python ]]; then
  build/genesis-venv/bin/python tests/genesis/bridge_franka.py --backend cuda --timing --steps 200 \
    >"$out/genesis.log" 2>&1
  rc=$?
  if ((rc == 0)); then
    echo "Genesis Franka on CUDA|$(grep -m1 -o 'max |qpos/qvel difference| [^ ]*' \
      "$out/genesis.log")|PASS" >>"$table"
  else
    tail -20 "$out/genesis.log"
    echo "Genesis Franka on CUDA|exit $rc: $out/genesis.log|FAIL" >>"$table"
    status=1
  fi
else
  echo "Genesis Franka on CUDA|skipped: no build/genesis-venv (scripts/setup.sh)|-" >>"$table"
fi

echo
echo "== gpu-check: $(python3 tests/diff/gpu_compare.py --probe | sed 's/^gpu-check: //'), $((SECONDS - t0)) s"
awk -F'|' '{ printf "%-32s %-48s %s\n", $1, $2, $3 }' "$table"
if ((status)); then
  echo "gpu-check: FAILED"
else
  echo "gpu-check: all matched"
fi
exit "$status"
