#include "store_file.hpp"

#include <cerrno>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace qdrt {

namespace {

template <class T> T load(std::string_view bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// Far above any real module; refuses garbled headers that ask for terabytes.
constexpr uint64_t k_max_object_raw = uint64_t{1} << 32;
constexpr size_t k_keep_read_buffer = size_t{1} << 20;  // read_object keeps up to 1 MiB per thread

Status corrupt(const std::string& what, const std::string& why) {
  return Status::error(QDRT_ERROR_CORRUPT, what + " is damaged: " + why);
}

Status version_error(const std::string& what, const char* format, uint32_t have, uint32_t reads) {
  std::string m = what + ": " + format + " format version " + std::to_string(have);
  m += have > reads ? " is newer than this libqdrt reads (" : " is not read by this libqdrt (";
  m += "version " + std::to_string(reads) + ", libqdrt " + qdrt_version_string() + ")";
  if (have > reads) {
    m += "; update libqdrt or build the store with a matching qdbuild";
  }
  return Status::error(QDRT_ERROR_VERSION, m);
}

struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

}  // namespace

Mapping::~Mapping() {
  if (m_data != nullptr) {
    ::munmap(m_data, m_size);
  }
}

Status Mapping::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return Status::error(e == ENOENT ? QDRT_ERROR_NOT_FOUND : QDRT_ERROR_IO,
                         "cannot open '" + path + "': " + std::strerror(e));
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::error(QDRT_ERROR_IO, "'" + path + "' is not a regular file");
  }
  m_size = static_cast<size_t>(st.st_size);
  if (m_size > 0) {
    void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      m_size = 0;
      return Status::error(QDRT_ERROR_IO, "cannot map '" + path + "': " + std::strerror(e));
    }
    m_data = p;
  }
  ::close(fd);
  return {};
}

Status StoreFile::open(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    int e = errno;
    return Status::error(e == ENOENT ? QDRT_ERROR_NOT_FOUND : QDRT_ERROR_IO,
                         "cannot open store '" + path + "': " + std::strerror(e));
  }
  std::string file = path;
  if (S_ISDIR(st.st_mode)) {
    m_root = path;
    file = path + "/index.qdi";
  } else {
    size_t slash = path.rfind('/');
    m_root = slash == std::string::npos ? "." : path.substr(0, slash);
  }
  m_name = file;
  if (Status s = m_file.open(file); !s.ok()) {
    if (s.code == QDRT_ERROR_NOT_FOUND && S_ISDIR(st.st_mode)) {
      s.message = "'" + path + "' is not a qdbuild store (no index.qdi; nothing was built?)";
    }
    return s;
  }
  std::string_view bytes = m_file.bytes();
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), QDRT_PACK_MAGIC, 8) == 0) {
    m_packed = true;
    return check_pack();
  }
  return check_index(bytes);
}

Status StoreFile::check_pack() {
  std::string what = "pack '" + m_name + "'";
  std::string_view bytes = m_file.bytes();
  if (bytes.size() < sizeof(qdrt_pack_header)) {
    return corrupt(what, "truncated (" + std::to_string(bytes.size()) + " bytes)");
  }
  auto h = load<qdrt_pack_header>(bytes, 0);
  if (h.version != QDRT_PACK_VERSION) {
    return version_error(what, "pack", h.version, QDRT_PACK_VERSION);
  }
  if (h.header_size != sizeof h) {
    return corrupt(what, "bad header size");
  }
  if (XXH3_64bits(bytes.data() + QDRT_PACK_CHECKSUM_START, sizeof h - QDRT_PACK_CHECKSUM_START) !=
      h.header_checksum) {
    return corrupt(what, "header checksum mismatch");
  }
  if (h.file_size != bytes.size()) {
    return corrupt(what, "truncated or extended (" + std::to_string(bytes.size()) +
                             " bytes, header says " + std::to_string(h.file_size) + ")");
  }
  uint64_t size = bytes.size();
  if (h.index_offset < sizeof h || h.index_offset % 8 != 0 || h.index_offset > size ||
      h.index_size > size - h.index_offset || h.objects_offset > size ||
      h.objects_size > size - h.objects_offset) {
    return corrupt(what, "the index or the objects lie outside the file");
  }
  if (Status s = check_index(bytes.substr(h.index_offset, h.index_size)); !s.ok()) {
    return s;
  }
  if (!m_packed || (m_header.flags & QDRT_INDEX_FLAG_PACKED) == 0) {
    return corrupt(what, "its index is not a pack index");
  }
  for (uint32_t i = 0; i < m_header.object_count; ++i) {
    qdrt_index_object o = object(i);
    if (o.offset < h.objects_offset || o.offset > h.objects_offset + h.objects_size ||
        o.size > h.objects_offset + h.objects_size - o.offset) {
      return corrupt(what, "object " + object_hex(i) + " lies outside the object area");
    }
  }
  return {};
}

Status StoreFile::check_index(std::string_view bytes) {
  std::string what = "index '" + m_name + "'";
  m_index = bytes;
  if (bytes.size() < sizeof(qdrt_index_header)) {
    return corrupt(what, "truncated (" + std::to_string(bytes.size()) + " bytes)");
  }
  qdrt_index_header& h = m_header;
  h = load<qdrt_index_header>(bytes, 0);
  if (std::memcmp(h.magic, QDRT_INDEX_MAGIC, 8) != 0) {
    return corrupt(what, "not a qdbuild index or pack (wrong magic)");
  }
  if (h.version < QDRT_INDEX_MIN_VERSION || h.version > QDRT_INDEX_VERSION) {
    return version_error(what, "index", h.version, QDRT_INDEX_VERSION);
  }
  if (h.header_size != sizeof h) {
    return corrupt(what, "bad header size");
  }
  if (h.file_size != bytes.size()) {
    return corrupt(what, "truncated or extended (" + std::to_string(bytes.size()) +
                             " bytes, header says " + std::to_string(h.file_size) + ")");
  }
  if (XXH3_64bits(bytes.data() + QDRT_INDEX_CHECKSUM_START,
                  bytes.size() - QDRT_INDEX_CHECKSUM_START) != h.checksum) {
    return corrupt(what, "checksum mismatch");
  }
  if ((h.flags & ~uint32_t{QDRT_INDEX_FLAG_PACKED}) != 0) {
    return corrupt(what, "unknown flags");
  }
  if (((h.flags & QDRT_INDEX_FLAG_PACKED) != 0) != m_packed) {
    return corrupt(what,
                   m_packed ? "a pack holds a directory index" : "a packed index outside a pack");
  }
  uint64_t size = bytes.size();
  auto table_ok = [&](uint64_t offset, uint64_t count, uint64_t elem) {
    return offset % 8 == 0 && offset >= sizeof h && offset <= size &&
           count <= (size - offset) / elem;
  };
  if (!table_ok(h.entries_offset, h.entry_count, sizeof(qdrt_index_entry)) ||
      !table_ok(h.objects_offset, h.object_count, sizeof(qdrt_index_object)) ||
      !table_ok(h.tasks_offset, h.task_count, sizeof(qdrt_index_task)) ||
      !table_ok(h.arguments_offset, h.argument_count, sizeof(qdrt_index_argument)) ||
      !table_ok(h.blob_offset, h.blob_size, 1) || h.blob_size > UINT32_MAX) {
    return corrupt(what, "a table lies outside the file");
  }
  auto bytes_ok = [&](qdrt_index_bytes b) { return uint64_t{b.offset} + b.size <= h.blob_size; };
  auto object_ok = [&](uint32_t o) { return o == QDRT_NO_OBJECT || o < h.object_count; };
  for (uint32_t i = 0; i < h.task_count; ++i) {
    qdrt_index_task t = task(i);
    if (!bytes_ok(t.name) || !bytes_ok(t.launch_metadata) || !object_ok(t.code_object) ||
        t.kind > QDRT_TASK_SERIAL) {
      return corrupt(what, "bad task " + std::to_string(i));
    }
  }
  for (uint32_t i = 0; i < h.argument_count; ++i) {
    qdrt_index_argument a = argument(i);
    if (!bytes_ok(a.name) || a.kind > QDRT_ARG_FIELD ||
        (a.kind == QDRT_ARG_FIELD && h.version < 2) || a.element_rank > QDRT_MAX_ELEMENT_RANK) {
      return corrupt(what, "bad argument " + std::to_string(i));
    }
    if (a.kind == QDRT_ARG_FIELD &&
        (a.element_rank > 2 || a.ndim + a.element_rank > QDRT_MAX_NDIM ||
         !bytes_ok(qdrt_index_bytes{a.element_shape[2], a.element_shape[3]}) ||
         a.element_shape[3] != 16u * (a.ndim + a.element_rank))) {
      return corrupt(what, "bad field layout of argument " + std::to_string(i));
    }
  }
  std::string_view prev[3];
  for (uint32_t i = 0; i < h.entry_count; ++i) {
    qdrt_index_entry e = entry(i);
    if (!bytes_ok(e.kernel_id) || !bytes_ok(e.instance) || !bytes_ok(e.target) ||
        uint64_t{e.first_task} + e.task_count > h.task_count ||
        uint64_t{e.first_argument} + e.argument_count > h.argument_count ||
        !object_ok(e.module_object)) {
      return corrupt(what, "bad entry " + std::to_string(i));
    }
    std::string_view key[3] = {blob(e.kernel_id), blob(e.instance), blob(e.target)};
    if (i > 0) {
      int c = prev[0].compare(key[0]);
      c = c != 0 ? c : prev[1].compare(key[1]);
      c = c != 0 ? c : prev[2].compare(key[2]);
      if (c >= 0) {
        return corrupt(what, "entries not sorted");
      }
    }
    for (int k = 0; k < 3; ++k) {
      prev[k] = key[k];
    }
  }
  return {};
}

qdrt_index_entry StoreFile::entry(uint32_t i) const {
  return load<qdrt_index_entry>(m_index,
                                m_header.entries_offset + uint64_t{i} * sizeof(qdrt_index_entry));
}

qdrt_index_task StoreFile::task(uint32_t i) const {
  return load<qdrt_index_task>(m_index,
                               m_header.tasks_offset + uint64_t{i} * sizeof(qdrt_index_task));
}

qdrt_index_argument StoreFile::argument(uint32_t i) const {
  return load<qdrt_index_argument>(m_index, m_header.arguments_offset +
                                                uint64_t{i} * sizeof(qdrt_index_argument));
}

qdrt_index_object StoreFile::object(uint32_t i) const {
  return load<qdrt_index_object>(m_index,
                                 m_header.objects_offset + uint64_t{i} * sizeof(qdrt_index_object));
}

std::string_view StoreFile::blob(qdrt_index_bytes b) const {
  return m_index.substr(m_header.blob_offset + b.offset, b.size);
}

std::string StoreFile::object_hex(uint32_t i) const { return hex(object(i).sha256, 32); }

Status StoreFile::read_object(uint32_t i, std::string& content) const {
  std::string h = object_hex(i);
  if (m_packed) {
    qdrt_index_object o = object(i);
    return decode_object(m_file.bytes().substr(o.offset, o.size),
                         "pack '" + m_name + "' object " + h, content);
  }
  std::string path = m_root + "/objects/" + h.substr(0, 2) + "/" + h.substr(2) + ".qdo";
  // Read, not mmap: objects are small, and munmap in a threaded process costs a TLB shootdown
  // (eager open reads objects on several threads).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) {
      return Status::error(QDRT_ERROR_NOT_FOUND,
                           "object '" + path + "' is missing from the store (removed by gc?)");
    }
    return Status::error(QDRT_ERROR_IO, "cannot open '" + path + "': " + std::strerror(e));
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::error(QDRT_ERROR_IO, "'" + path + "' is not a regular file");
  }
  // One buffer per thread, reused: fresh pages cost a fault each (~5 us in a VM), and an eager
  // open reads every module (a large one is released after use).
  thread_local std::string bytes;
  bytes.resize(static_cast<size_t>(st.st_size));
  struct Release {
    ~Release() {
      if (bytes.capacity() > k_keep_read_buffer) {
        std::string().swap(bytes);
      }
    }
  } release;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      ::close(fd);
      return Status::error(QDRT_ERROR_IO, "cannot read '" + path + "': " + std::strerror(e));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return decode_object(bytes, "object '" + path + "'", content);
}

Status decode_object(std::string_view bytes, const std::string& name, std::string& content) {
  constexpr size_t k_checksummed = offsetof(qdrt_object_header, header_checksum);
  if (bytes.size() < sizeof(qdrt_object_header)) {
    return corrupt(name, "truncated (" + std::to_string(bytes.size()) + " bytes)");
  }
  auto h = load<qdrt_object_header>(bytes, 0);
  if (std::memcmp(h.magic, QDRT_OBJECT_MAGIC, 8) != 0) {
    return corrupt(name, "not a qdbuild object (wrong magic)");
  }
  if (h.version != QDRT_OBJECT_VERSION) {
    return version_error(name, "object", h.version, QDRT_OBJECT_VERSION);
  }
  if (h.version_size > QDRT_OBJECT_MAX_VERSION_SIZE || h.header_size != sizeof h + h.version_size ||
      bytes.size() < h.header_size) {
    return corrupt(name, "bad header size");
  }
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, bytes.data(), k_checksummed);
  XXH3_64bits_update(&state, bytes.data() + sizeof h, h.version_size);
  if (XXH3_64bits_digest(&state) != h.header_checksum) {
    return corrupt(name, "header checksum mismatch");
  }
  if (h.payload_size != bytes.size() - h.header_size) {
    return corrupt(name, "truncated or extended (payload is " +
                             std::to_string(bytes.size() - h.header_size) + " bytes, header says " +
                             std::to_string(h.payload_size) + ")");
  }
  if (h.raw_size > k_max_object_raw) {
    return corrupt(name, "implausible size " + std::to_string(h.raw_size));
  }
  std::string_view payload = bytes.substr(h.header_size);
  if (h.codec == QDRT_CODEC_NONE) {
    if (h.raw_size != h.payload_size) {
      return corrupt(name, "stored object with raw size != payload size");
    }
    content.assign(payload);
  } else if (h.codec == QDRT_CODEC_ZSTD) {
    unsigned long long frame = ZSTD_getFrameContentSize(payload.data(), payload.size());
    if (frame == ZSTD_CONTENTSIZE_ERROR || frame != h.raw_size) {
      return corrupt(name, "compressed payload does not match the header");
    }
    thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
    if (!dctx) {
      return Status::error(QDRT_ERROR_OUT_OF_MEMORY, "cannot create a zstd context");
    }
    content.resize(h.raw_size);
    size_t n = ZSTD_decompressDCtx(dctx.get(), content.data(), content.size(), payload.data(),
                                   payload.size());
    if (ZSTD_isError(n) || n != h.raw_size) {
      return corrupt(name, "compressed payload is corrupt");
    }
  } else {
    return corrupt(name, "unknown codec " + std::to_string(h.codec));
  }
  XXH128_hash_t sum = XXH3_128bits(content.data(), content.size());
  uint8_t want[16];
  std::memcpy(want, &sum.low64, 8);
  std::memcpy(want + 8, &sum.high64, 8);
  if (std::memcmp(want, h.content_xxh3_128, 16) != 0) {
    return corrupt(name, "content checksum mismatch");
  }
  return {};
}

}  // namespace qdrt
