#include "syntax/diagnostic_render.hpp"

#include <cstdio>

#include "support/utf8.hpp"

namespace qd::syntax {

const char* name_of(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

namespace {

int32_t column_of(const SourceFile* source, int32_t line, int32_t byte_col) {
  if (source == nullptr) {
    return byte_col < 0 ? 1 : byte_col + 1;
  }
  return source->char_column(line, byte_col);
}

}  // namespace

std::string render_header(const Diagnostic& d, std::string_view path, const SourceFile* source) {
  std::string out(path);
  out +=
      ":" + std::to_string(d.line) + ":" + std::to_string(column_of(source, d.line, d.col)) + ": ";
  out += name_of(d.severity);
  out += ": ";
  out += d.message;
  if (!d.code.empty()) {
    out += " [" + d.code + "]";
  }
  return out;
}

std::string render_diagnostic(const Diagnostic& d, std::string_view path,
                              const SourceFile* source) {
  std::string out = render_header(d, path, source);
  out += '\n';
  if (source == nullptr) {
    return out;
  }
  std::string_view line = source->line_text(d.line);
  if (line.empty()) {
    return out;
  }
  out += line;
  out += '\n';
  // The caret line: whitespace up to the column (tabs kept), '^', then '~' to the end column
  // when the range stays on this line.
  int32_t col = source->char_column(d.line, d.col) - 1;
  size_t i = 0;
  int32_t chars = 0;
  while (chars < col) {
    if (i < line.size()) {
      size_t start = i;
      support::decode_utf8(line, i);
      out += line[start] == '\t' ? '\t' : ' ';
    } else {
      out += ' ';
    }
    ++chars;
  }
  out += '^';
  if (d.end_line == d.line && d.end_col > d.col) {
    int32_t end = source->char_column(d.line, d.end_col) - 1;
    for (int32_t c = col + 1; c < end; ++c) {
      out += '~';
    }
  }
  out += '\n';
  return out;
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    uint32_t cp = support::decode_utf8(text, i);
    if (cp == support::k_invalid_code_point) {
      out += "\\ufffd";
    } else if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      out += buf;
    } else {
      out.append(text.substr(start, i - start));
    }
  }
  out += '"';
  return out;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    uint32_t cp = support::decode_utf8(text, i);
    if (cp == support::k_invalid_code_point) {
      out += "\xEF\xBF\xBD";  // U+FFFD
    } else {
      out.append(text.substr(start, i - start));
    }
  }
  return out;
}

DiagnosticFields diagnostic_fields(const Diagnostic& d, std::string_view path,
                                   const SourceFile* source, std::string_view kernel) {
  DiagnosticFields f;
  f.file = valid_utf8(path);
  f.line = d.line;
  f.col = column_of(source, d.line, d.col);
  f.end_line = d.end_line > 0 ? d.end_line : d.line;
  f.end_col = column_of(source, f.end_line, d.end_line > 0 ? d.end_col : d.col);
  f.severity = name_of(d.severity);
  f.code = valid_utf8(d.code);
  f.kernel = valid_utf8(kernel);
  f.message = valid_utf8(d.message);
  return f;
}

std::string diagnostic_json(const Diagnostic& d, std::string_view path, const SourceFile* source,
                            std::string_view kernel) {
  // The numbers from diagnostic_fields; the texts quoted from the raw bytes (\ufffd escapes).
  DiagnosticFields f = diagnostic_fields(d, {}, source);
  std::string out = "{\"file\":" + json_quote(path);
  out += ",\"line\":" + std::to_string(f.line);
  out += ",\"col\":" + std::to_string(f.col);
  out += ",\"end_line\":" + std::to_string(f.end_line);
  out += ",\"end_col\":" + std::to_string(f.end_col);
  out += ",\"severity\":" + json_quote(f.severity);
  out += ",\"code\":" + json_quote(d.code);
  out += ",\"kernel\":" + (kernel.empty() ? std::string("null") : json_quote(kernel));
  out += ",\"message\":" + json_quote(d.message);
  out += "}";
  return out;
}

}  // namespace qd::syntax
