#!/usr/bin/env bash
# run.sh of the device bundle (scripts/gpu-bundle.sh; docs/cuda.md "The device bundle"): needs
# only bash, python3 and, for the GPU part, the NVIDIA driver (libcuda.so.1).
#   1. CPU-side self checks: the bundle's libqdrt opens its stores and runs every corpus case on
#      this CPU with the outputs computed where the bundle was made;
#   2. the GPU probe: no usable GPU -> exit 125 (after the CPU-side checks passed);
#   3. the runtime's kernels on the GPU and the benchmarks (saxpy against a device-to-device copy,
#      launch overhead against an empty cuLaunchKernel), then qdbuild's own saxpy and copy kernels
#      against the same copy, and a graph kernel as a CUDA graph against the host loop;
#   4. every corpus case built for cuda:sm_90 on the GPU against the CPU;
#   5. Genesis's kernel calls captured on the CPU (the Franka scene with its CUDA arms, block-level
#      kernels included) replayed on the GPU against the outputs they had on the CPU (when the
#      bundle has them: genesis/), then each call's GPU time beside its time on this CPU
#      (step 1 replays and times them there).
# A table last. Exit 0 all matched, 1 a failure, 125 no GPU. Output files: $QD_BUNDLE_OUT (default
# a new temporary directory).
set -uo pipefail
here=${BASH_SOURCE[0]%/*}
[[ "$here" == "${BASH_SOURCE[0]}" ]] && here=.
cd "$here" || exit 1
export QDRT_LIBRARY=$PWD/build/lib/libqdrt.so
export LD_LIBRARY_PATH=$PWD/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
out=${QD_BUNDLE_OUT:-$(python3 -c 'import tempfile; print(tempfile.mkdtemp(prefix="qd-gpu-bundle-"))')}
python3 -c 'import os, sys; os.makedirs(sys.argv[1], exist_ok=True)' "$out" || exit 1
table=$out/table.txt
: >"$table"
status=0
start=$SECONDS

show_table() {
  echo
  echo "== gpu-bundle: $1, $((SECONDS - start)) s"
  while IFS='|' read -r name value verdict; do
    printf '%-32s %-48s %s\n' "$name" "$value" "$verdict"
  done <"$table"
}

echo "== gpu-bundle: CPU-side self checks"
python3 tests/diff/gpu_compare.py --cpu-check stores/corpus reference/corpus_cpu.json \
  --table "$table" || status=1
python3 tests/diff/gpu_compare.py --bandwidth stores/bench --cpu --table "$table" || status=1
if [[ -d genesis/calls ]]; then
  python3 tests/diff/gpu_compare.py --genesis genesis/store genesis/calls --cpu --table "$table" \
    --times "$out/genesis_times_cpu.json" || status=1
fi
if ((status)); then
  show_table "the CPU-side checks failed"
  exit 1
fi

python3 tests/diff/gpu_compare.py --probe
probe=$?
if ((probe == 125)); then
  show_table "no usable NVIDIA GPU here (exit 125): the CPU-side checks passed"
  exit 125
elif ((probe != 0)); then
  exit 1
fi

echo "== gpu-bundle: runtime kernels and benchmarks"
python3 tests/diff/gpu_compare.py --selftest stores/rt --cubin stores/rt.cubin --table "$table" ||
  status=1
echo "== gpu-bundle: qdbuild's bandwidth-bound kernels against a device-to-device copy, a graph kernel as a CUDA graph against the host loop"
python3 tests/diff/gpu_compare.py --bandwidth stores/bench --table "$table" || status=1
echo "== gpu-bundle: the differential corpus on the GPU against the CPU"
python3 tests/diff/gpu_compare.py --corpus stores/corpus --table "$table" || status=1
if [[ -d genesis/calls ]]; then
  echo "== gpu-bundle: Genesis's kernel calls on the GPU against the CPU"
  python3 tests/diff/gpu_compare.py --genesis genesis/store genesis/calls --table "$table" \
    --times "$out/genesis_times_gpu.json" || status=1
fi
gpu=$(python3 tests/diff/gpu_compare.py --probe)
show_table "${gpu#gpu-check: }"
exit "$status"
