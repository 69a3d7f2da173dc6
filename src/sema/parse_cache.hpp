// Parse results kept between analyses of one tree (`qdbuild build --watch`, issue 8): a file whose
// size, mtime and content are unchanged is not parsed again. The parse result is shared (the
// analysis only reads it), so an Analysis keeps the parses it used alive after the cache moves on.
//
// A lookup stat()s the file. Same size, mtime and inode as the cached parse, and the mtime older
// than the racy window (input_stamp.hpp: edits within the file system clock's tick keep the
// mtime) when the parse was cached: a hit without reading. Otherwise the file is read and its
// content hash (SHA-256) compared: equal content is a hit too (a touched file), else it is parsed.
// Thread-safe: build_program() looks files up from its parse threads.
//
// Overlays (`qdbuild lsp`): an editor's unsaved buffer stands for the file's content until it is
// cleared; the file on disk is not read. A buffer equal to the cached parse's content is a hit.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "syntax/parser.hpp"

namespace qd::sema {

class ParseCache {
public:
  // The parse of `path` (parse_file's result when the file cannot be read).
  std::shared_ptr<syntax::ParseResult> get(const std::string& path);
  // Drops every file not in `paths` (files that left the tree).
  void retain(const std::vector<std::string>& paths);
  // `path` (as the source walk names it, or absolute: both find it) reads as `text`.
  void set_overlay(const std::string& path, std::string text);
  void clear_overlay(const std::string& path);

  size_t hits() const { return m_hits; }
  size_t misses() const { return m_misses; }
  size_t size() const;

private:
  struct Item {
    int64_t size = -1;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    int64_t cached_ns = 0;  // when the stat was taken
    std::string hash;
    std::shared_ptr<syntax::ParseResult> parsed;
  };
  static std::string overlay_key(const std::string& path);

  mutable std::mutex m_mutex;
  std::map<std::string, Item> m_items;
  std::map<std::string, std::string> m_overlays;  // absolute, lexically normal path -> text
  size_t m_hits = 0;
  size_t m_misses = 0;
};

}  // namespace qd::sema
