// The object file format: one compiled artifact (a task's object code, a linked module, PTX, ...)
// behind a self-describing header. The same bytes are a file objects/ab/cdef....qdo in a
// directory store and a slice of a pack.
//
// Byte layout, version 1 (little-endian; struct qdrt_object_header in qdrt/store_format.h):
//
//   object         = header version payload
//   header         = magic format_version header_size codec level version_size reserved
//                    raw_size payload_size content_xxh3_128 header_checksum      (64 bytes)
//   magic          = "QDOBJ\0\0\0"                                   8 bytes
//   format_version = uint32 1
//   header_size    = uint32 64 + version_size
//   codec          = uint8  0 (stored) | 1 (zstd frame)
//   level          = int8   zstd level it was written with (informational)
//   version_size   = uint16 <= 64
//   reserved       = uint32 0
//   raw_size       = uint64 size of the content
//   payload_size   = uint64 size of payload; header_size + payload_size = file size
//   content_xxh3_128 = 16 bytes: XXH3-128 of the content, low 64 bits then high 64 bits
//   header_checksum  = uint64 XXH3-64 of header bytes [0, 56) followed by `version`
//   version        = char[version_size]: the qdbuild version that wrote it
//   payload        = byte[payload_size]: the content, stored or as one zstd frame
//
// The file name (the address) is the SHA-256 of the content. Every read checks the header
// checksum, the sizes and the content's XXH3-128; `store verify` also recomputes the SHA-256.
// An object whose compressed form is not smaller than the content is stored (codec 0).
//
// Version history:
//   1 (qdbuild 0.1.0): first version.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "store/result.hpp"

namespace qd::store {

inline constexpr int k_default_level = 3;
inline constexpr const char* k_qdbuild_version = "0.1.0";

struct ObjectHeaderInfo {
  uint32_t format_version = 0;
  uint32_t header_size = 0;
  uint8_t codec = 0;
  int level = 0;
  uint64_t raw_size = 0;
  uint64_t payload_size = 0;
  std::array<uint8_t, 16> content_xxh3_128{};
  std::string qdbuild_version;
};

const char* codec_name(uint8_t codec);

// Encodes `raw` as an object file, zstd at `level` (1..19; other values are clamped).
std::string encode_object(std::string_view raw, int level = k_default_level);

// Parses and checks the header of `bytes` (a whole object file). `name` is used in messages
// ("object 'NAME' is damaged: ..."). Failure kind: corrupt.
Result<ObjectHeaderInfo> parse_object_header(std::string_view bytes, const std::string& name);
// The same from the first bytes of a file of `file_size` bytes (at least the header and version,
// when the file has them).
Result<ObjectHeaderInfo> parse_object_header_prefix(std::string_view prefix, uint64_t file_size,
                                                    const std::string& name);

// Decodes a whole object file into its content, checking everything but the SHA-256.
Result<std::string> decode_object(std::string_view bytes, const std::string& name);

// zstd one-shot helpers with a per-thread context (also used by the benchmark).
std::string zstd_compress(std::string_view raw, int level);
// Decompresses into `out` (resized to raw_size); false if the frame is bad or not raw_size long.
bool zstd_decompress(std::string_view frame, size_t raw_size, std::string& out);

}  // namespace qd::store
