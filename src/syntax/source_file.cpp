// Decoding a Python source file as CPython 3.12 does for `compile(bytes, ...)` / `ast.parse(bytes)`
// (Parser/tokenizer.c: check_bom, get_coding_spec, get_normal_name, decode_str).
//
// Order of checks, as CPython's:
//   1. NUL bytes anywhere: "source code string cannot contain null bytes".
//   2. UTF-8 BOM, then a coding cookie on line 1, or on line 2 when line 1 holds only a comment or
//      whitespace. BOM + a cookie other than utf-8: "encoding problem: NAME with BOM".
//   3. A cookie other than utf-8 (after get_normal_name): the whole file is decoded with that codec
//      (glibc iconv); an unknown name gives "unknown encoding: NAME", a decoding failure Python's
//      codec message ("'ascii' codec can't decode byte 0xe4 in position 20: ordinal not in
//      range(128)"), with the position counted in the newline-translated buffer as CPython does.
//   4. Otherwise the bytes are UTF-8 and are checked token by token, as CPython's tokenizer does:
//      invalid UTF-8 in a string literal or an identifier is "(unicode error) 'utf-8' codec can't
//      decode byte 0xf6 in position 1: invalid start byte", the position counted from the start of
//      the string's body or of the identifier; in a comment it is accepted (text() then keeps those
//      bytes as they are, inside the comment only).
//
// Lines: CPython reports line 0 (no location) for the errors of steps 1-3. We report the line of
// the cookie (line 1 when there is none) with column 0, or for NUL bytes the NUL's position, so
// that every diagnostic points somewhere. Step 4 reports CPython's line and column. Known
// difference: CPython reports an earlier syntax error before a later invalid UTF-8 token; we report
// the encoding problem first.
#include "syntax/source_file.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "support/utf8.hpp"
#include "syntax/source_codecs.hpp"

namespace qd::syntax {

namespace {

bool is_ascii_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_identifier_byte(unsigned char c) { return is_ascii_alnum(c) || c == '_' || c >= 0x80; }

// get_coding_spec(): the cookie of one line (without its newline), or "" when there is none.
std::string coding_spec(std::string_view line) {
  size_t i = 0;
  for (; i < line.size(); ++i) {
    if (line[i] == '#') {
      break;
    }
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\f') {
      return {};
    }
  }
  if (i == line.size()) {
    return {};
  }
  for (; i + 6 <= line.size(); ++i) {
    if (line.compare(i, 6, "coding") != 0) {
      continue;
    }
    size_t t = i + 6;
    if (t >= line.size() || (line[t] != ':' && line[t] != '=')) {
      continue;
    }
    do {
      ++t;
    } while (t < line.size() && (line[t] == ' ' || line[t] == '\t'));
    size_t begin = t;
    while (t < line.size() && (is_ascii_alnum(static_cast<unsigned char>(line[t])) ||
                               line[t] == '-' || line[t] == '_' || line[t] == '.')) {
      ++t;
    }
    if (begin < t) {
      return std::string(line.substr(begin, t - begin));
    }
  }
  return {};
}

// check_coding_spec()'s test for "this line may be followed by a cookie line": only whitespace
// before a comment or the end of the line.
bool is_blank_or_comment(std::string_view line) {
  for (char c : line) {
    if (c == '#') {
      return true;
    }
    if (c != ' ' && c != '\t' && c != '\f') {
      return false;
    }
  }
  return true;
}

// End of the line starting at `pos` (at its '\r' or '\n', or the end of `s`).
size_t line_end(std::string_view s, size_t pos) {
  while (pos < s.size() && s[pos] != '\n' && s[pos] != '\r') {
    ++pos;
  }
  return pos;
}

size_t skip_newline(std::string_view s, size_t pos) {
  if (pos < s.size() && s[pos] == '\r') {
    ++pos;
    if (pos < s.size() && s[pos] == '\n') {
      ++pos;
    }
  } else if (pos < s.size() && s[pos] == '\n') {
    ++pos;
  }
  return pos;
}

// CPython's translate_newlines(): CRLF and CR become LF, and a final newline is added.
std::string translate_newlines(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < s.size() && s[i + 1] == '\n') {
        ++i;
      }
    } else {
      out.push_back(s[i]);
    }
  }
  if (out.empty() || out.back() != '\n') {
    out.push_back('\n');
  }
  return out;
}

// translate_newlines() for text that is already UTF-8, without the final newline CPython adds
// (the lexer handles a last line without one): CRLF and lone CR become LF. Columns do not change.
void translate_newlines_in_place(std::string& s) {
  size_t i = s.find('\r');
  if (i == std::string::npos) {
    return;
  }
  size_t o = i;
  for (; i < s.size(); ++i) {
    if (s[i] == '\r') {
      s[o++] = '\n';
      if (i + 1 < s.size() && s[i + 1] == '\n') {
        ++i;
      }
    } else {
      s[o++] = s[i];
    }
  }
  s.resize(o);
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

// Python's UnicodeDecodeError text: "'utf-8' codec can't decode byte 0xf6 in position 1: ...".
std::string decode_error_text(std::string_view codec, std::string_view bytes,
                              const DecodeError& e) {
  std::string msg = "'" + std::string(codec) + "' codec can't decode ";
  if (e.end - e.start == 1) {
    msg += "byte " + hex_byte(static_cast<unsigned char>(bytes[e.start])) + " in position " +
           std::to_string(e.start);
  } else {
    msg += "bytes in position " + std::to_string(e.start) + "-" + std::to_string(e.end - 1);
  }
  return msg + ": " + e.reason;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Decoding

namespace {

struct Decoder {
  std::string& text;
  std::vector<Diagnostic>& diagnostics;

  void error(int32_t line, int32_t col, const char* code, std::string message) {
    Diagnostic d;
    d.severity = Severity::Error;
    d.line = line;
    d.col = col;
    d.end_line = line;
    d.end_col = col;
    d.code = code;
    d.message = std::move(message);
    diagnostics.push_back(std::move(d));
  }
};

// Line and byte column of `offset` in `s` (CPython's line numbering: \n, \r\n and \r end lines).
std::pair<int32_t, int32_t> position_of(std::string_view s, size_t offset) {
  int32_t line = 1;
  size_t start = 0;
  for (size_t i = 0; i < offset && i < s.size(); ++i) {
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= s.size() || s[i + 1] != '\n'))) {
      ++line;
      start = i + 1;
    }
  }
  return {line, static_cast<int32_t>(offset - start)};
}

// CPython's parsestr(): a raw string, or one without backslashes, is decoded whole; otherwise
// decode_unicode_with_escapes() decodes each run of non-ASCII bytes on its own, so positions (and
// "unexpected end of data") are relative to that run. On failure `content` is narrowed to the
// decoded unit, which the message quotes.
bool check_string_body(std::string_view& content, bool is_raw, DecodeError& e) {
  if (is_raw || content.find('\\') == std::string_view::npos) {
    return check_python_utf8(content, e);
  }
  size_t i = 0;
  while (i < content.size()) {
    if (static_cast<unsigned char>(content[i]) < 0x80) {
      // A backslash before a non-ASCII byte stays literal; that byte starts the next run.
      bool escapes_ascii = content[i] == '\\' && i + 1 < content.size() &&
                           static_cast<unsigned char>(content[i + 1]) < 0x80;
      i += escapes_ascii ? 2 : 1;
      continue;
    }
    size_t start = i;
    while (i < content.size() && static_cast<unsigned char>(content[i]) >= 0x80) {
      ++i;
    }
    std::string_view run = content.substr(start, i - start);
    if (!check_python_utf8(run, e)) {
      content = run;
      return false;
    }
  }
  return true;
}

// Step 4: invalid UTF-8 in tokens. Walks strings, comments and identifiers the way the tokenizer
// splits them; returns false (with a diagnostic) at the first invalid token.
bool check_utf8_tokens(std::string_view s, Decoder& out) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '#') {
      i = line_end(s, i);
      continue;
    }
    if (c == '\'' || c == '"') {
      // A string prefix is the identifier run right before the quote, if it is one.
      size_t start = i;
      while (start > 0 && is_identifier_byte(static_cast<unsigned char>(s[start - 1]))) {
        --start;
      }
      std::string_view prefix = s.substr(start, i - start);
      bool is_prefix = prefix.size() <= 2 && std::all_of(prefix.begin(), prefix.end(), [](char p) {
                         return std::string_view("rRbBuUfF").find(p) != std::string_view::npos;
                       });
      if (!is_prefix) {
        start = i;
      }
      bool is_bytes = is_prefix && prefix.find_first_of("bB") != std::string_view::npos;
      char quote = static_cast<char>(c);
      size_t quote_len = (i + 2 < n && s[i + 1] == quote && s[i + 2] == quote) ? 3 : 1;
      size_t body = i + quote_len;
      size_t j = body;
      size_t body_end = n;
      while (j < n) {
        if (s[j] == '\\') {
          j = std::min(n, j + 2);
          continue;
        }
        if (quote_len == 1 && (s[j] == '\n' || s[j] == '\r')) {
          body_end = j;  // unterminated: the lexer reports it
          break;
        }
        if (s[j] == quote &&
            (quote_len == 1 || (j + 2 < n && s[j + 1] == quote && s[j + 2] == quote))) {
          body_end = j;
          j += quote_len;
          break;
        }
        ++j;
      }
      if (body_end == n) {
        j = n;
      }
      std::string_view content = s.substr(body, body_end - body);
      bool is_raw = is_prefix && prefix.find_first_of("rR") != std::string_view::npos;
      DecodeError e;
      if (!check_string_body(content, is_raw, e)) {
        auto [line, col] = position_of(s, start);
        if (is_bytes) {
          out.error(line, col, k_code_token, "bytes can only contain ASCII literal characters");
        } else {
          out.error(line, col, k_code_encoding,
                    "(unicode error) " + decode_error_text("utf-8", content, e));
        }
        return false;
      }
      i = j;
      continue;
    }
    if (is_identifier_byte(c)) {
      size_t start = i;
      while (i < n && is_identifier_byte(static_cast<unsigned char>(s[i]))) {
        ++i;
      }
      // A string prefix is handled with its quote.
      if (i < n && (s[i] == '\'' || s[i] == '"') && i - start <= 2) {
        continue;
      }
      std::string_view ident = s.substr(start, i - start);
      DecodeError e;
      if (!check_python_utf8(ident, e)) {
        auto [line, col] = position_of(s, start + e.start);
        out.error(line, col, k_code_encoding,
                  "(unicode error) " + decode_error_text("utf-8", ident, e));
        return false;
      }
      continue;
    }
    ++i;
  }
  return true;
}

// Step 3: the whole file through a codec. `body` is the file after the BOM (there is none here).
bool decode_with_codec(const Codec& codec, std::string_view body, int32_t cookie_line,
                       Decoder& out) {
  // Errors are found, and their positions counted, on the buffer CPython decodes.
  std::string translated = translate_newlines(body);
  DecodeError e;
  if (!codec_decode(codec, translated, nullptr, e)) {
    std::string codec_name = codec.kind == CodecKind::charmap ? "charmap" : codec.python_name;
    out.error(cookie_line, 0, k_code_encoding, decode_error_text(codec_name, translated, e));
    return false;
  }
  std::string utf8;
  if (!codec_decode(codec, body, &utf8, e)) {
    std::string codec_name = codec.kind == CodecKind::charmap ? "charmap" : codec.python_name;
    out.error(cookie_line, 0, k_code_encoding, decode_error_text(codec_name, body, e));
    return false;
  }
  out.text = std::move(utf8);
  return true;
}

}  // namespace

SourceFile SourceFile::from_bytes(std::string path, std::string bytes) {
  SourceFile f;
  f.m_path = std::move(path);
  Decoder out{f.m_text, f.m_diagnostics};

  // 1. NUL bytes.
  if (size_t nul = bytes.find('\0'); nul != std::string::npos) {
    auto [line, col] = position_of(bytes, nul);
    out.error(line, col, k_code_encoding, "source code string cannot contain null bytes");
    return f;
  }

  // 2. BOM and cookie.
  std::string_view body(bytes);
  bool bom = body.starts_with("\xEF\xBB\xBF");
  if (bom) {
    body.remove_prefix(3);
  }
  std::string cookie;
  int32_t cookie_line = 1;
  size_t end1 = line_end(body, 0);
  std::string_view line1 = body.substr(0, end1);
  cookie = normal_encoding_name(coding_spec(line1));
  if (cookie.empty() && is_blank_or_comment(line1) && end1 < body.size()) {
    size_t start2 = skip_newline(body, end1);
    std::string_view line2 = body.substr(start2, line_end(body, start2) - start2);
    cookie = normal_encoding_name(coding_spec(line2));
    cookie_line = 2;
  }

  if (bom && !cookie.empty() && cookie != "utf-8") {
    out.error(cookie_line, 0, k_code_encoding, "encoding problem: " + cookie + " with BOM");
    return f;
  }

  // 3. A codec other than CPython's built-in UTF-8 path.
  if (!cookie.empty() && cookie != "utf-8") {
    const Codec* codec = lookup_codec(cookie);
    if (codec == nullptr) {
      out.error(cookie_line, 0, k_code_encoding, "unknown encoding: " + cookie);
      return f;
    }
    if (codec->kind == CodecKind::not_text) {
      out.error(cookie_line, 0, k_code_encoding,
                "'" + cookie +
                    "' is not a text encoding; use codecs.decode() to handle arbitrary codecs");
      return f;
    }
    if (!decode_with_codec(*codec, body, cookie_line, out)) {
      f.m_text.clear();
      return f;
    }
    f.m_encoding = codec->python_name;
    f.index_lines();
    return f;
  }

  // 4. UTF-8. Only a file with invalid bytes needs the per-token walk that finds the error
  //    CPython reports (and, like CPython, tolerates some invalid bytes, e.g. after '\\').
  if (support::find_invalid_utf8(body) != std::string_view::npos && !check_utf8_tokens(body, out)) {
    return f;
  }
  if (bom) {
    bytes.erase(0, 3);
  }
  f.m_text = std::move(bytes);
  translate_newlines_in_place(f.m_text);
  f.index_lines();
  return f;
}

// ---------------------------------------------------------------------------------------------
// Line table

void SourceFile::index_lines() {
  m_line_starts.clear();
  m_line_starts.push_back(0);
  // Newlines are translated to LF on decoding.
  const char* base = m_text.data();
  const char* end = base + m_text.size();
  for (const char* p = base; p < end;) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (nl == nullptr) {
      break;
    }
    m_line_starts.push_back(static_cast<uint32_t>(nl - base + 1));
    p = nl + 1;
  }
}

int32_t SourceFile::line_of(uint32_t offset) const {
  if (m_line_starts.empty()) {
    return 1;
  }
  auto it = std::upper_bound(m_line_starts.begin(), m_line_starts.end(), offset);
  return static_cast<int32_t>(it - m_line_starts.begin());
}

std::string_view SourceFile::line_text(int32_t line) const {
  if (line < 1 || static_cast<size_t>(line) > m_line_starts.size()) {
    return {};
  }
  size_t start = m_line_starts[static_cast<size_t>(line - 1)];
  if (start > m_text.size()) {
    return {};
  }
  size_t end = line_end(m_text, start);
  return std::string_view(m_text).substr(start, end - start);
}

int32_t SourceFile::char_column(int32_t line, int32_t byte_col) const {
  if (byte_col <= 0) {
    return 1;
  }
  std::string_view text = line_text(line);
  size_t col = static_cast<size_t>(byte_col);
  if (text.empty() && (line < 1 || static_cast<size_t>(line) > m_line_starts.size())) {
    return byte_col + 1;  // no text (e.g. after an encoding error): CPython falls back to bytes too
  }
  size_t within = std::min(col, text.size());
  size_t chars = support::count_code_points(text.substr(0, within)) + (col - within);
  return static_cast<int32_t>(chars) + 1;
}

}  // namespace qd::syntax
