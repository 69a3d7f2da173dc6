// The text codecs a PEP 263 coding cookie can name, looked up as Python's `codecs.lookup` does,
// and decoding through glibc iconv with Python's error positions and reasons.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace qd::syntax {

enum class CodecKind : unsigned char {
  utf8,       // Python's utf_8 codec (a cookie such as "utf8" that get_normal_name keeps)
  ascii,      // errors: "ordinal not in range(128)"
  latin1,     // never fails
  charmap,    // single-byte code pages; errors: 'charmap' ... "character maps to <undefined>"
  multibyte,  // CJK codecs; errors: "illegal multibyte sequence" / "incomplete multibyte sequence"
  wide,       // UTF-16 / UTF-32
  not_text,   // rot13, base64, ...: "is not a text encoding"
};

struct Codec {
  const char* module;       // Python's module name in `encodings` ("iso8859_1")
  const char* python_name;  // codecs.lookup(...).name ("iso8859-1")
  const char* iconv_name;   // glibc iconv name ("ISO-8859-1"), or nullptr
  CodecKind kind;
};

// One decoding failure, as Python's UnicodeDecodeError: bytes [start, end) and the reason.
struct DecodeError {
  size_t start = 0;
  size_t end = 0;
  const char* reason = "";
};

// CPython tokenizer's get_normal_name(): "utf-8", "utf_8", "UTF-8-x" -> "utf-8"; "latin-1",
// "iso-8859-1", "iso-latin-1" (and their "-..." forms) -> "iso-8859-1"; anything else unchanged.
std::string normal_encoding_name(std::string_view name);

// codecs.lookup(name): lower-cases, applies encodings.normalize_encoding and the alias table.
// nullptr for an unknown encoding (or one iconv cannot convert on this machine).
const Codec* lookup_codec(std::string_view name);

// Strict UTF-8 as Python's decoder checks it; on failure `error` is Python's error range and
// reason ("invalid start byte", "invalid continuation byte", "unexpected end of data").
bool check_python_utf8(std::string_view bytes, DecodeError& error);

// Decodes `bytes` with `codec` into UTF-8 (`out` may be null to only check). On failure fills
// `error` with the offending byte range and Python's reason for the codec kind.
bool codec_decode(const Codec& codec, std::string_view bytes, std::string* out, DecodeError& error);

}  // namespace qd::syntax
