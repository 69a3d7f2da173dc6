#!/usr/bin/env bash
# Installed-package test (ctest label `install`; docs/install.md):
#   1. cmake --install BUILD --prefix P (a temp dir); the expected files are all there;
#   2. P/bin/qdbuild builds examples/ into a store;
#   3. examples/app_cpp is configured fresh (clang++-19, CMAKE_PREFIX_PATH=P, -Werror) against
#      qdrt::qdrt and, in a second tree, qdrt::qdrt_static; both run on the store and pass;
#   4. a C program compiled with `pkg-config --cflags --libs qdrt` (PKG_CONFIG_PATH=P/...) runs;
#   5. examples/app.py runs through the installed binding (P/lib/qdrt/python), which must load
#      P's libqdrt without QDRT_LIBRARY;
#   6. every installed header is the top-level include/'s file of the same name, byte for byte;
#   7. examples/embed (the builder embedded through libqdbuild.so) is configured fresh with
#      find_package(qdbuild), links qdbuild::qdbuild from P, and checks and builds examples/
#      (tests/embed/run_embed.py: the output exactly, then a no-op);
#   8. P moved elsewhere: the binding and pkg-config follow, the moved qdbuild still compiles,
#      the moved CMake packages still configure and link the app and the embedding example,
#      which both run (the example's libqdbuild finds its backend in the moved lib/).
# Usage: tests/install/run_install_test.sh BUILD_DIR
# Env: QD_BUILD_LOCK: a lock file taken (flock) around each compile step; QD_KEEP_TMP=1 keeps P.
# Exit: 0 pass, 1 fail. It never skips: everything it needs is a build dependency.
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:?usage: run_install_test.sh BUILD_DIR}" && pwd)

T=$(mktemp -d /tmp/qd-install-test.XXXXXX)
if [[ "${QD_KEEP_TMP:-0}" != 1 ]]; then
  trap 'rm -rf "$T"' EXIT
fi
P=$T/prefix
step() { echo; echo "--- $*"; }
fail() { echo "FAIL: $*"; exit 1; }
locked() {
  if [[ -n "${QD_BUILD_LOCK:-}" ]]; then
    flock "$QD_BUILD_LOCK" "$@"
  else
    "$@"
  fi
}

step "cmake --install $BUILD --prefix $P"
cmake --install "$BUILD" --prefix "$P" >"$T/install.log" || { cat "$T/install.log"; fail "cmake --install"; }
for f in bin/qdbuild lib/libqdrt.so lib/libqdrt.so.0 lib/libqdrt.a include/qdrt/qdrt.h \
  include/qdrt/qdrt.hpp include/qdrt/store_format.h include/qdrt/task_abi.h \
  lib/cmake/qdrt/qdrtConfig.cmake lib/cmake/qdrt/qdrtConfigVersion.cmake \
  lib/cmake/qdrt/qdrtTargets.cmake lib/pkgconfig/qdrt.pc lib/qdrt/python/qdrt/__init__.py \
  lib/qdrt/python/qdrt/record.py lib/qdrt/python/qdrt/instances.py lib/qdrt/python/qdrt/bridge.py \
  lib/qdrt/python/qdrt/fields.py lib/qdrt/python/qdrt/objects.py \
  lib/qdrt/python/qdrt/quadrants_random.py lib/qdrt/python/qdrt/_startup.py \
  lib/qdrt/python/qdrt/_library.py lib/qdrt/python/qdrt/_values.py lib/qdrt/python/qdrt/_store.py \
  lib/qdrt/python/qdrt/describe.py \
  lib/qdrt/python/sitecustomize.py \
  lib/qdrt/python/qdrt/_installed.py lib/libqdbuild.so lib/libqdbuild.so.0 \
  lib/libqdbuild-backend.so include/qdbuild/qdbuild.hpp include/qdbuild/build.hpp \
  include/qdbuild/build_types.hpp include/qdbuild/watch.hpp \
  include/qdbuild/check.hpp include/qdbuild/explain.hpp include/qdbuild/project.hpp \
  include/qdbuild/diagnostic.hpp lib/cmake/qdbuild/qdbuildConfig.cmake \
  lib/cmake/qdbuild/qdbuildConfigVersion.cmake lib/cmake/qdbuild/qdbuildTargets.cmake; do
  [[ -e "$P/$f" ]] || fail "$P/$f was not installed"
done
[[ -L "$P/lib/libqdrt.so" && -L "$P/lib/libqdrt.so.0" ]] || fail "libqdrt.so and .so.0 are not symlinks"
[[ "$(readelf -d "$P/lib/libqdrt.so" | grep -o 'SONAME.*')" == *"[libqdrt.so.0]"* ]] ||
  fail "libqdrt.so's soname is not libqdrt.so.0"
echo "installed: $(cd "$P" && find . -type f -o -type l | sort | tr '\n' ' ')"

step "installed qdbuild builds examples/"
"$P/bin/qdbuild" version
if ! locked "$P/bin/qdbuild" build "$SRC/examples" --store "$T/store" >"$T/build.log" 2>&1; then
  tail -n 40 "$T/build.log"
  fail "installed qdbuild build examples/"
fi
[[ -f "$T/store/index.qdi" ]] || fail "no index in $T/store"

build_app() {  # DIR [cmake args...]
  local dir=$1
  shift
  locked cmake -S "$SRC/examples/app_cpp" -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_CXX_FLAGS=-Werror "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; fail "configure of examples/app_cpp ($*)"; }
  locked cmake --build "$dir" >"$dir.build.log" 2>&1 ||
    { cat "$dir.build.log"; fail "build of examples/app_cpp ($*)"; }
}

step "examples/app_cpp against the prefix (qdrt::qdrt)"
build_app "$T/app" -DCMAKE_PREFIX_PATH="$P"
cache=$(<"$T/app/CMakeCache.txt")
[[ "$cache" == *"qdrt_DIR:PATH=$P/lib/cmake/qdrt"* ]] || fail "find_package(qdrt) did not use $P"
deps=$(ldd "$T/app/qdrt_example_app")
[[ "$deps" == *"$P/lib/libqdrt.so.0"* ]] || fail "the app does not load $P's libqdrt: $deps"
"$T/app/qdrt_example_app" "$T/store" || fail "examples/app_cpp (shared)"

step "examples/app_cpp against the prefix (qdrt::qdrt_static)"
build_app "$T/app_static" -DCMAKE_PREFIX_PATH="$P" -DQDRT_EXAMPLE_STATIC=ON
deps=$(ldd "$T/app_static/qdrt_example_app")
[[ "$deps" != *libqdrt* ]] || fail "the static app still needs libqdrt.so: $deps"
"$T/app_static/qdrt_example_app" "$T/store" >"$T/app_static.log" || { cat "$T/app_static.log"; fail "examples/app_cpp (static)"; }
tail -n 1 "$T/app_static.log"

step "a C program from pkg-config --cflags --libs qdrt"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
echo "pkg-config: $(pkg-config --cflags --libs qdrt)"
# shellcheck disable=SC2046  # word splitting of pkg-config's flags is intended
locked clang-19 -std=c11 -Wall -Wextra -Werror "$SRC/tests/install/pkgconfig_app.c" \
  $(pkg-config --cflags --libs qdrt) -Wl,-rpath,"$(pkg-config --variable=libdir qdrt)" -o "$T/pkgconfig_app" ||
  fail "compiling with pkg-config's flags"
"$T/pkgconfig_app" "$T/store" || fail "the pkg-config C program"

step "examples/app.py through the installed binding"
(
  unset QDRT_LIBRARY
  cd "$T"  # not the checkout: the in-tree binding must not be found
  PYTHONPATH="$P/lib/qdrt/python" python3 -c "
import qdrt, os, sys
lib = qdrt._library_path()
assert qdrt.__file__.startswith('$P/'), qdrt.__file__
assert os.path.realpath(lib) == os.path.realpath('$P/lib/libqdrt.so.0'), lib
print('binding', os.path.dirname(qdrt.__file__), 'loads', lib, 'version', qdrt.version())
import qdrt.record, qdrt.instances, qdrt.bridge  # the recorder, selection and bridge too
assert qdrt.record.__file__.startswith('$P/') and qdrt.instances.__file__.startswith('$P/')"
  PYTHONPATH="$P/lib/qdrt/python" python3 "$SRC/examples/app.py" "$T/store" >"$T/app_py.log" ||
    { cat "$T/app_py.log"; exit 1; }
  grep -q "via $P/lib/qdrt/python/qdrt" "$T/app_py.log" || { cat "$T/app_py.log"; exit 1; }
  tail -n 1 "$T/app_py.log"
) || fail "examples/app.py through the installed binding"

step "every installed header comes from include/"
while IFS= read -r h; do
  cmp -s "$P/include/$h" "$SRC/include/$h" || fail "installed header include/$h is not $SRC/include/$h"
done < <(cd "$P/include" && find . -type f | sed 's#^\./##' | sort)
echo "headers: $(cd "$P/include" && find . -type f | sort | tr '\n' ' ')"
nm -D --defined-only "$P/lib/libqdbuild.so" | c++filt | awk '{ $1 = ""; $2 = ""; print }' |
  grep -v -e '^  qdbuild::' -e '^  vtable for qdbuild::' -e '^  typeinfo for qdbuild::' \
    -e '^  typeinfo name for qdbuild::' -e '^  QDBUILD_0$' >"$T/exports.extra" &&
  { head "$T/exports.extra"; fail "libqdbuild.so exports more than qdbuild::"; }

build_embed() {  # DIR PREFIX
  locked cmake -S "$SRC/examples/embed" -B "$1" -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_CXX_FLAGS=-Werror -DCMAKE_PREFIX_PATH="$2" >"$1.configure.log" 2>&1 ||
    { cat "$1.configure.log"; fail "configure of examples/embed against $2"; }
  [[ "$(<"$1/CMakeCache.txt")" == *"qdbuild_DIR:PATH=$2/lib/cmake/qdbuild"* ]] ||
    fail "find_package(qdbuild) did not use $2"
  locked cmake --build "$1" >"$1.build.log" 2>&1 || { cat "$1.build.log"; fail "build of examples/embed"; }
}

step "examples/embed against the prefix (qdbuild::qdbuild)"
build_embed "$T/embed" "$P"
(
  unset QDBUILD_BACKEND
  locked python3 "$SRC/tests/embed/run_embed.py" --example "$T/embed/qdbuild_embed_example" \
    --examples "$SRC/examples" --expect-lib "$P/lib"
) || fail "examples/embed against the prefix"

step "the prefix moved to $T/moved"
mv "$P" "$T/moved"
M=$T/moved
(
  cd "$T"
  PYTHONPATH="$M/lib/qdrt/python" python3 -c "
import qdrt
s = qdrt.open('$T/store')
print('moved binding: %d kernels, libqdrt %s' % (len(s.kernels()), qdrt._library_path()))"
) || fail "the moved binding"
export PKG_CONFIG_PATH=$M/lib/pkgconfig
[[ "$(pkg-config --cflags qdrt)" == *"$M/"* ]] || fail "pkg-config does not follow the moved prefix"
locked "$M/bin/qdbuild" build "$SRC/examples" --store "$T/store_moved" >"$T/build_moved.log" 2>&1 ||
  { tail -n 40 "$T/build_moved.log"; fail "the moved qdbuild build examples/"; }
build_app "$T/app_moved" -DCMAKE_PREFIX_PATH="$M"
"$T/app_moved/qdrt_example_app" "$T/store_moved" >"$T/app_moved.log" || { cat "$T/app_moved.log"; fail "app against the moved prefix"; }
tail -n 1 "$T/app_moved.log"
build_embed "$T/embed_moved" "$M"
(
  unset QDBUILD_BACKEND
  locked python3 "$SRC/tests/embed/run_embed.py" --example "$T/embed_moved/qdbuild_embed_example" \
    --examples "$SRC/examples" --expect-lib "$M/lib"
) || fail "examples/embed against the moved prefix"

echo
echo "PASS: install test"
