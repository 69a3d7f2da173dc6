// Positions and documents as the Language Server Protocol has them: file URIs, lines and
// characters counted in UTF-16 code units (the default) or UTF-8 bytes (when the client offers
// "utf-8" in general.positionEncodings), and the open documents with the edits the client sends.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace qd::lsp {

enum class Encoding { utf16, utf8 };

// "file:///home/a/b%20c.py" -> "/home/a/b c.py". "" with `error` for anything that is not a
// local file URI (another scheme, a remote host, a relative path, bad percent escapes, a NUL).
std::string uri_to_path(std::string_view uri, std::string& error);
// An absolute path as a file URI (percent-encoding all but unreserved characters and '/').
std::string path_to_uri(std::string_view path);

// Line `line` (0-based) of `text`, without its line break ("" past the end).
std::string_view line_of(std::string_view text, int64_t line);
// The character (in `enc` units) of byte column `byte_col` on `line_text` (clamped to the line).
int64_t character_of(std::string_view line_text, int64_t byte_col, Encoding enc);
// The byte column of character `character` (in `enc` units) on `line_text` (clamped; a position
// inside a surrogate pair or a UTF-8 sequence moves to the character's start).
int64_t byte_column_of(std::string_view line_text, int64_t character, Encoding enc);
// The byte offset in `text` of (line, character); past the end: the end.
size_t offset_of(std::string_view text, int64_t line, int64_t character, Encoding enc);

}  // namespace qd::lsp
