# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: configures build/asan, the one tree both
# build in. ASan + UBSan everywhere, and libFuzzer's coverage instrumentation (fuzzer-no-link)
# too, so that the fuzz targets link against the same libraries the sanitizer tests run: one
# instrumented build of every layer instead of two. Executables other than the fuzz targets link
# no libFuzzer; the coverage callbacks then go to the sanitizer runtime's no-op defaults.
# Both scripts must configure identically (a different cache would rebuild everything); ctest
# runs them one at a time (RESOURCE_LOCK asan_tree).
# Debug information is line tables only: what the sanitizers' reports need (functions, files and
# lines, inlined frames included) at 17-20% less compile time than -g, and CI builds this tree
# from nothing. -O1, as AddressSanitizer's documentation suggests: about 30% less compile time
# than -O2 on this tree's files, the same reports. A unity build (CMake's, 16 files per TU; the
# test executables and the generated protobuf and Unicode sources excluded): the library layers'
# common headers compiled once per batch, not per file: sanitize.sh's targets from nothing, on
# two cores, 277 s and 554 CPU-seconds against 397 s and 793 file by file. A clash of two
# file-local names in one batch is a compile error here, never a silent merge.
qd_asan_tree=build/asan
qd_configure_asan_tree() {
  cmake -S . -B "$qd_asan_tree" -G Ninja \
    -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DQD_SANITIZE=ON -DQD_FUZZ=ON -DQD_WERROR=ON \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
}
