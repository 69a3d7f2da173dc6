/* Built by tests/install with `cc pkgconfig_app.c $(pkg-config --cflags --libs qdrt)`: the
 * installed qdrt.pc must be enough to compile, link and run a C program against libqdrt. */
#include <stdio.h>

#include <qdrt/qdrt.h>

int main(int argc, char** argv) {
  qdrt_store* store = NULL;
  qdrt_kernel* count = NULL;
  int32_t vals[6] = {3, -1, 0, 7, 2, -5};
  int64_t n = 6;
  qdrt_value arg = qdrt_array_value(QDRT_DTYPE_I32, vals, 1, &n);
  qdrt_value result;
  if (argc != 2 || qdrt_open(argv[1], NULL, &store) != QDRT_OK ||
      qdrt_get_kernel(store, "reduce:count_positive", &count) != QDRT_OK ||
      qdrt_launch(count, &arg, 1, &result) != QDRT_OK) {
    fprintf(stderr, "pkgconfig_app: %s\n", argc == 2 ? qdrt_last_error() : "usage: STORE");
    return 1;
  }
  printf("libqdrt %s (headers %d.%d.%d): %zu kernels; reduce:count_positive = %lld\n",
         qdrt_version_string(), QDRT_VERSION_MAJOR, QDRT_VERSION_MINOR, QDRT_VERSION_PATCH,
         qdrt_kernel_count(store), (long long)result.i);
  qdrt_close(store);
  return result.kind == QDRT_VALUE_INT && result.i == 3 ? 0 : 1;
}
