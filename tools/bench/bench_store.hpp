// Minimal, unchecked readers of a directory store for the benchmarks (qd_start_floor,
// qd_launch_bench): the index's entries/objects/tasks (qdrt/store_format.h) and a module's
// object file -> zstd -> memfd -> dlopen, the work libqdrt cannot avoid. Trusted input only;
// needs zstd and libdl, nothing of libqdrt.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "qdrt/store_format.h"

namespace qdbench {

[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "qdbench: %s\n", what.c_str());
  std::exit(1);
}

inline bool read_file(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return false;
  }
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n <= 0) {
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return true;
}

template <typename T> T load(const std::string& bytes, uint64_t offset) {
  if (offset + sizeof(T) > bytes.size()) {
    die("truncated input");
  }
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// index.qdi of a directory store, read whole.
struct Index {
  std::string bytes;
  qdrt_index_header h{};

  void read(const std::string& dir) {
    if (!read_file(dir + "/index.qdi", bytes)) {
      die("cannot read " + dir + "/index.qdi");
    }
    h = load<qdrt_index_header>(bytes, 0);
    if (std::memcmp(h.magic, QDRT_INDEX_MAGIC, 8) != 0) {
      die(dir + "/index.qdi is not a qdbuild index");
    }
  }
  qdrt_index_entry entry(uint32_t i) const {
    return load<qdrt_index_entry>(bytes, h.entries_offset + uint64_t{i} * sizeof(qdrt_index_entry));
  }
  qdrt_index_task task(uint32_t i) const {
    return load<qdrt_index_task>(bytes, h.tasks_offset + uint64_t{i} * sizeof(qdrt_index_task));
  }
  std::string_view blob(qdrt_index_bytes b) const {
    return {bytes.data() + h.blob_offset + b.offset, b.size};
  }
  // objects/xx/yyyy.qdo of object i.
  std::string object_path(const std::string& dir, uint32_t i) const {
    auto o =
        load<qdrt_index_object>(bytes, h.objects_offset + uint64_t{i} * sizeof(qdrt_index_object));
    char hex[65];
    for (int k = 0; k < 32; ++k) {
      std::snprintf(hex + 2 * k, 3, "%02x", o.sha256[k]);
    }
    return dir + "/objects/" + std::string(hex, 2) + "/" + std::string(hex + 2) + ".qdo";
  }
};

// Reads an object file, decompresses it into `raw`, writes that into a memfd and dlopens it (as
// libqdrt does). The fd stays open (a process keeps its modules until it exits). Returns the
// handle; adds the file's and the content's sizes to the counters when given.
inline void* load_module(const std::string& path, ZSTD_DCtx* dctx, std::string& file,
                         std::string& raw, uint64_t* file_bytes = nullptr,
                         uint64_t* raw_bytes = nullptr) {
  if (!read_file(path, file)) {
    die("cannot read " + path);
  }
  auto oh = load<qdrt_object_header>(file, 0);
  raw.resize(oh.raw_size);
  const char* payload = file.data() + oh.header_size;
  if (oh.codec == QDRT_CODEC_ZSTD) {
    size_t n = ZSTD_decompressDCtx(dctx, raw.data(), raw.size(), payload, oh.payload_size);
    if (ZSTD_isError(n) || n != raw.size()) {
      die("cannot decompress " + path);
    }
  } else {
    std::memcpy(raw.data(), payload, raw.size());
  }
  constexpr unsigned k_mfd_exec = 0x0010U;  // MFD_EXEC (Linux 6.3; bookworm's headers lack it)
  int fd = ::memfd_create("qdbench", MFD_CLOEXEC | k_mfd_exec);
  if (fd < 0 && errno == EINVAL) {
    fd = ::memfd_create("qdbench", MFD_CLOEXEC);
  }
  if (fd < 0 || ::write(fd, raw.data(), raw.size()) != static_cast<ssize_t>(raw.size())) {
    die("memfd failed");
  }
  char fdpath[64];
  std::snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
  void* so = ::dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
  if (so == nullptr) {
    die(std::string("dlopen failed: ") + ::dlerror());
  }
  if (file_bytes != nullptr) {
    *file_bytes += file.size();
  }
  if (raw_bytes != nullptr) {
    *raw_bytes += raw.size();
  }
  return so;
}

}  // namespace qdbench
