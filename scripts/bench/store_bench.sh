#!/usr/bin/env bash
# Store benchmark on real compiler output: x86-64 objects (clang++-19 -c of qdbuild's own sources)
# and PTX (nvcc -ptx of tools/bench/store_bench_kernels.cu, llc-19 of CUDA's libdevice), mixed and
# perturbed into 10,000 distinct objects of 2-200 KB. Reports store write/read against plain file
# writes/reads and raw zstd in the same run, the acceptance ratio store-read / (zstd decompress +
# file read) (<= 1.5), and a table of zstd levels 1/3/9/19 on the .o and PTX bytes.
# Usage: scripts/bench/store_bench.sh [--count N] [--quick] [--no-fsync]   (see qd_store_bench --help)
# Seeds are made once into build/bench/store_seeds (delete it to remake them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

scripts/build.sh qd_store_bench >/dev/null
seeds=build/bench/store_seeds
if [[ ! -f "$seeds/.done" ]]; then
  rm -rf "$seeds" && mkdir -p "$seeds"
  echo "store_bench: making seed objects in $seeds (once)" >&2
  # x86-64 objects, as the in-process path makes them (-O2/-O3, PIC), from sources of many shapes.
  ls src/support/*.cpp src/store/*.cpp src/syntax/{lexer,token,number_literal,literal_decode,py_repr,source_file,source_codecs,diagnostic_render}.cpp \
    | grep -v _test.cpp | xargs -P "${QD_JOBS:-2}" -I{} sh -c \
      'clang++-19 -std=c++20 -O2 -fPIC -Isrc -Iinclude -c {} -o '"$seeds"'/$(basename {} .cpp).o'
  for opt in O1 O3; do
    clang++-19 -std=c++20 -$opt -fPIC -Isrc -Iinclude -c src/store/index_format.cpp \
      -o "$seeds/index_format_$opt.o"
  done
  # PTX: nvcc (sm_90, sm_80) and LLVM's NVPTX backend on libdevice.
  nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
  if [[ -x "$nvcc" ]]; then
    for arch in sm_90 sm_80; do
      "$nvcc" -ptx -arch="$arch" -O3 tools/bench/store_bench_kernels.cu -o "$seeds/kernels_$arch.ptx"
    done
  fi
  if command -v llc-19 >/dev/null && [[ -f /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ]]; then
    llc-19 -O3 -march=nvptx64 -mcpu=sm_90 -mattr=+ptx85 /usr/local/cuda/nvvm/libdevice/libdevice.10.bc \
      -o "$seeds/libdevice.ptx"
  fi
  touch "$seeds/.done"
fi
exec build/bin/qd_store_bench --seeds "$seeds" --dir build/bench/store_work "$@"
