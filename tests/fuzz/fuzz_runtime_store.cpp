// libFuzzer target for libqdrt's own readers of untrusted files (the runtime links nothing from
// src/, so these are not the store's readers that qd_fuzz_store_index covers): a store opened
// from the input as an index file and as a pack (lazy: no dlopen), every kernel's tables (argument
// and launch-metadata checks, instance strings), a lookup that misses (did-you-mean), the pack's
// objects read, verified and decoded, the input decoded as an object and parsed as a CUDA
// bundle, and read as a recorded parameter description (qdrt_instance_text's reading and
// printing: seeded with the committed records' descriptions). Built only with -DQD_FUZZ=ON
// (QD_FUZZ_TARGET=runtime_store scripts/fuzz.sh). Any crash, sanitizer report, leak or timeout is a
// finding; errors are expected.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "cuda_bundle.hpp"
#include "instance_text.hpp"
#include "store.hpp"
#include "store_file.hpp"

namespace {

// Objects whose header asks for more than this are skipped: decoding allocates the declared size
// (a resource limit of the fuzzing process, not a memory bug).
constexpr uint64_t k_max_raw = 16u << 20;

uint64_t declared_raw_size(std::string_view object) {
  qdrt_object_header h;
  if (object.size() < sizeof h) {
    return 0;
  }
  std::memcpy(&h, object.data(), sizeof h);
  return h.raw_size;
}

// The input as a file the runtime can open by path (it maps the file it opens).
std::string as_file(std::string_view bytes, int& fd) {
  fd = ::memfd_create("qdrt-fuzz", MFD_CLOEXEC);
  if (fd < 0 || ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    __builtin_trap();  // the harness itself failed
  }
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return path;
}

void check_bundle(std::string_view bytes) {
  std::vector<qdrt::cuda::BundleImage> images;
  if (qdrt::cuda::parse_bundle(bytes, "fuzz", images).ok()) {
    for (const qdrt::cuda::BundleImage& im : images) {
      if (im.bytes.data() < bytes.data() || im.bytes.data() + im.bytes.size() > bytes.end()) {
        __builtin_trap();  // an image outside the bundle
      }
    }
    (void)qdrt::cuda::describe_images(images);
    (void)qdrt::cuda::select_images(images, 90);
  }
}

void open_store(std::string_view bytes, const std::string& path) {
  qdrt::Store store;
  qdrt::OpenOptions options;
  options.lazy = true;
  if (!store.open(path, options).ok()) {
    return;
  }
  const qdrt::StoreFile& file = store.file();
  for (size_t i = 0; i < store.kernel_ids().size(); ++i) {
    qdrt::Kernel* k = nullptr;
    if (store.kernel_at(i, k).ok() && k == nullptr) {
      __builtin_trap();
    }
  }
  qdrt::Kernel* k = nullptr;
  (void)store.kernel("fuzz:no_such_kernel", k);  // usually a miss: the did-you-mean search
  if (file.packed()) {
    for (uint32_t i = 0; i < file.header().object_count && i < 64; ++i) {
      qdrt_index_object o = file.object(i);
      if (o.offset > bytes.size() || o.size > bytes.size() - o.offset ||
          declared_raw_size(bytes.substr(o.offset, o.size)) > k_max_raw) {
        continue;  // an open pack has every object inside it; the size limit as above
      }
      std::string content;
      (void)file.read_object(i, content);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string content;
  if (declared_raw_size(bytes) <= k_max_raw && qdrt::decode_object(bytes, "fuzz", content).ok()) {
    check_bundle(content);  // a CUDA object's content is a bundle
  }
  check_bundle(bytes);
  std::string text;
  std::string why;
  (void)qdrt::instance_text(bytes.data(), bytes.size(), text, why);
  int fd = -1;
  std::string path = as_file(bytes, fd);
  open_store(bytes, path);
  ::close(fd);
  return 0;
}
