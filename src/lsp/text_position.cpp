#include "lsp/text_position.hpp"

#include "support/hex.hpp"
#include <algorithm>
#include <cctype>

namespace qd::lsp {

namespace {

// The length of the UTF-8 sequence starting with `lead` (1 for a stray byte: counted as one).
size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) {
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) {
    return 2;
  }
  if ((lead & 0xF0) == 0xE0) {
    return 3;
  }
  if ((lead & 0xF8) == 0xF0) {
    return 4;
  }
  return 1;
}

}  // namespace

std::string uri_to_path(std::string_view uri, std::string& error) {
  constexpr std::string_view scheme = "file://";
  bool is_file = uri.size() >= scheme.size();
  for (size_t k = 0; is_file && k < scheme.size(); ++k) {
    is_file = std::tolower(static_cast<unsigned char>(uri[k])) == scheme[k];
  }
  if (!is_file) {
    error = "not a file URI: '" + std::string(uri.substr(0, 200)) + "'";
    return "";
  }
  std::string_view rest = uri.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string_view host = rest.substr(0, slash);
  if (slash == std::string_view::npos || (!host.empty() && host != "localhost")) {
    error = "not a local file URI: '" + std::string(uri.substr(0, 200)) + "'";
    return "";
  }
  rest = rest.substr(slash);
  if (size_t q = rest.find_first_of("?#"); q != std::string_view::npos) {
    rest = rest.substr(0, q);
  }
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%') {
      int hi = i + 2 < rest.size() ? support::hex_digit_value(rest[i + 1]) : -1;
      int lo = i + 2 < rest.size() ? support::hex_digit_value(rest[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        error = "a bad percent escape in '" + std::string(uri.substr(0, 200)) + "'";
        return "";
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += rest[i];
    }
  }
  if (out.find('\0') != std::string::npos) {
    error = "a NUL in the path of '" + std::string(uri.substr(0, 200)) + "'";
    return "";
  }
  return out;
}

std::string path_to_uri(std::string_view path) {
  static const char* digits = "0123456789ABCDEF";
  std::string out = "file://";
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

std::string_view line_of(std::string_view text, int64_t line) {
  size_t pos = 0;
  for (int64_t l = 0; l < line; ++l) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      return {};
    }
    pos = nl + 1;
  }
  size_t end = text.find('\n', pos);
  std::string_view out =
      text.substr(pos, end == std::string_view::npos ? text.size() - pos : end - pos);
  if (!out.empty() && out.back() == '\r') {
    out.remove_suffix(1);
  }
  return out;
}

int64_t character_of(std::string_view line_text, int64_t byte_col, Encoding enc) {
  size_t limit = static_cast<size_t>(std::clamp<int64_t>(byte_col, 0, line_text.size()));
  if (enc == Encoding::utf8) {
    return static_cast<int64_t>(limit);
  }
  int64_t units = 0;
  size_t i = 0;
  while (i < limit) {
    size_t n = sequence_length(static_cast<unsigned char>(line_text[i]));
    units += n == 4 ? 2 : 1;
    i += n;
  }
  return units;
}

int64_t byte_column_of(std::string_view line_text, int64_t character, Encoding enc) {
  if (character <= 0) {
    return 0;
  }
  if (enc == Encoding::utf8) {
    size_t col = std::min<size_t>(static_cast<size_t>(character), line_text.size());
    while (col > 0 && col < line_text.size() &&
           (static_cast<unsigned char>(line_text[col]) & 0xC0) == 0x80) {
      --col;  // inside a sequence: its start
    }
    return static_cast<int64_t>(col);
  }
  int64_t units = 0;
  size_t i = 0;
  while (i < line_text.size()) {
    size_t n = sequence_length(static_cast<unsigned char>(line_text[i]));
    int64_t w = n == 4 ? 2 : 1;
    if (units + w > character) {
      break;  // `character` is inside this one (the second half of a surrogate pair)
    }
    units += w;
    i = std::min(line_text.size(), i + n);
    if (units == character) {
      break;
    }
  }
  return static_cast<int64_t>(i);
}

size_t offset_of(std::string_view text, int64_t line, int64_t character, Encoding enc) {
  if (line < 0) {
    return 0;
  }
  size_t pos = 0;
  for (int64_t l = 0; l < line; ++l) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      return text.size();
    }
    pos = nl + 1;
  }
  std::string_view line_text = line_of(text.substr(pos), 0);
  return pos + static_cast<size_t>(byte_column_of(line_text, character, enc));
}

}  // namespace qd::lsp
