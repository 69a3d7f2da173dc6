// Reading and writing whole files, with error messages that name the file and say why.
#pragma once

#include <string>
#include <string_view>

namespace qd::support {

// Reads the file at `path` into `out` (bytes as stored; no decoding, no newline translation).
// On failure returns false, leaves `out` empty and sets `error` to a message such as
// "cannot read 'a.py': No such file or directory" (strerror text; directories are refused).
bool read_file(const std::string& path, std::string& out, std::string& error);

// Writes `data` to `path` (truncating). On failure returns false and sets `error`.
bool write_file(const std::string& path, const std::string& data, std::string& error);

// Writes all of `data` to `fd` (retrying short writes and EINTR). False on an error (errno set).
bool write_all(int fd, std::string_view data);

}  // namespace qd::support
