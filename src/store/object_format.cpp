#include "store/object_format.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>

#include <zstd.h>

#include "qdrt/store_format.h"
#include "store/hashing.hpp"

namespace qd::store {

static_assert(std::endian::native == std::endian::little, "the store formats are little-endian");

namespace {

constexpr size_t k_checksummed = offsetof(qdrt_object_header, header_checksum);
static_assert(k_checksummed == 56);

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

ZSTD_CCtx* cctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> c(ZSTD_createCCtx());
  return c.get();
}

ZSTD_DCtx* dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> d(ZSTD_createDCtx());
  return d.get();
}

Failure damaged(const std::string& name, const std::string& why) {
  return fail(FailureKind::corrupt, "object '" + name + "' is damaged: " + why);
}

}  // namespace

const char* codec_name(uint8_t codec) {
  switch (codec) {
    case QDRT_CODEC_NONE: return "none";
    case QDRT_CODEC_ZSTD: return "zstd";
    default: return "unknown";
  }
}

std::string zstd_compress(std::string_view raw, int level) {
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  size_t n = ZSTD_compressCCtx(cctx(), out.data(), out.size(), raw.data(), raw.size(), level);
  if (ZSTD_isError(n)) {
    return {};
  }
  out.resize(n);
  return out;
}

bool zstd_decompress(std::string_view frame, size_t raw_size, std::string& out) {
  out.resize(raw_size);
  size_t n = ZSTD_decompressDCtx(dctx(), out.data(), out.size(), frame.data(), frame.size());
  return !ZSTD_isError(n) && n == raw_size;
}

std::string encode_object(std::string_view raw, int level) {
  level = std::clamp(level, 1, ZSTD_maxCLevel());
  std::string payload = zstd_compress(raw, level);
  uint8_t codec = QDRT_CODEC_ZSTD;
  if (payload.empty() || payload.size() >= raw.size()) {
    payload.assign(raw);
    codec = QDRT_CODEC_NONE;
  }
  std::string_view version = k_qdbuild_version;
  qdrt_object_header h{};
  std::memcpy(h.magic, QDRT_OBJECT_MAGIC, 8);
  h.version = QDRT_OBJECT_VERSION;
  h.header_size = static_cast<uint32_t>(sizeof h + version.size());
  h.codec = codec;
  h.level = static_cast<int8_t>(level);
  h.version_size = static_cast<uint16_t>(version.size());
  h.raw_size = raw.size();
  h.payload_size = payload.size();
  std::array<uint8_t, 16> sum = xxh3_128(raw);
  std::memcpy(h.content_xxh3_128, sum.data(), sum.size());
  h.header_checksum =
      xxh3_64(std::string_view(reinterpret_cast<const char*>(&h), k_checksummed), version);
  std::string out;
  out.reserve(h.header_size + payload.size());
  out.append(reinterpret_cast<const char*>(&h), sizeof h);
  out.append(version);
  out.append(payload);
  return out;
}

Result<ObjectHeaderInfo> parse_object_header(std::string_view bytes, const std::string& name) {
  return parse_object_header_prefix(bytes, bytes.size(), name);
}

Result<ObjectHeaderInfo> parse_object_header_prefix(std::string_view bytes, uint64_t file_size,
                                                    const std::string& name) {
  if (file_size < sizeof(qdrt_object_header) || bytes.size() < sizeof(qdrt_object_header)) {
    return damaged(name, "truncated (" + std::to_string(file_size) + " bytes, header needs " +
                             std::to_string(sizeof(qdrt_object_header)) + ")");
  }
  qdrt_object_header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, QDRT_OBJECT_MAGIC, 8) != 0) {
    return damaged(name, "not a qdbuild object (wrong magic)");
  }
  if (h.version != QDRT_OBJECT_VERSION) {
    return damaged(name, "unsupported object format version " + std::to_string(h.version) +
                             " (this qdbuild reads version " + std::to_string(QDRT_OBJECT_VERSION) +
                             ")");
  }
  if (h.version_size > QDRT_OBJECT_MAX_VERSION_SIZE || h.header_size != sizeof h + h.version_size ||
      bytes.size() < h.header_size || file_size < h.header_size) {
    return damaged(name, "bad header size");
  }
  std::string_view version = bytes.substr(sizeof h, h.version_size);
  if (xxh3_64(bytes.substr(0, k_checksummed), version) != h.header_checksum) {
    return damaged(name, "header checksum mismatch");
  }
  if (h.payload_size != file_size - h.header_size) {
    return damaged(name, "truncated or extended (payload is " +
                             std::to_string(file_size - h.header_size) + " bytes, header says " +
                             std::to_string(h.payload_size) + ")");
  }
  if (h.codec != QDRT_CODEC_NONE && h.codec != QDRT_CODEC_ZSTD) {
    return damaged(name, "unknown codec " + std::to_string(h.codec));
  }
  if (h.codec == QDRT_CODEC_NONE && h.raw_size != h.payload_size) {
    return damaged(name, "stored object with raw size != payload size");
  }
  ObjectHeaderInfo info;
  info.format_version = h.version;
  info.header_size = h.header_size;
  info.codec = h.codec;
  info.level = h.level;
  info.raw_size = h.raw_size;
  info.payload_size = h.payload_size;
  std::memcpy(info.content_xxh3_128.data(), h.content_xxh3_128, 16);
  info.qdbuild_version.assign(version);
  return info;
}

Result<std::string> decode_object(std::string_view bytes, const std::string& name) {
  Result<ObjectHeaderInfo> info = parse_object_header(bytes, name);
  if (!info) {
    return info.failure();
  }
  std::string_view payload = bytes.substr(info->header_size);
  std::string raw;
  if (info->codec == QDRT_CODEC_NONE) {
    raw.assign(payload);
  } else {
    // A zstd frame records its content size; refuse frames that disagree with the header before
    // allocating raw_size bytes (a garbled header could ask for terabytes).
    unsigned long long frame_size = ZSTD_getFrameContentSize(payload.data(), payload.size());
    if (frame_size == ZSTD_CONTENTSIZE_ERROR || frame_size != info->raw_size) {
      return damaged(name, "compressed payload does not match the header");
    }
    if (!zstd_decompress(payload, info->raw_size, raw)) {
      return damaged(name, "compressed payload is corrupt");
    }
  }
  if (xxh3_128(raw) != info->content_xxh3_128) {
    return damaged(name, "content checksum mismatch");
  }
  return raw;
}

}  // namespace qd::store
