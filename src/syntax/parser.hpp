// Parsing a Python 3.12 module into an arena-allocated AST.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/arena.hpp"
#include "syntax/ast_nodes.hpp"
#include "syntax/diagnostic.hpp"
#include "syntax/source_file.hpp"

namespace qd::syntax {

struct ParseResult {
  SourceFile source;
  support::Arena arena;
  // Always a tree (possibly partial after errors); nodes point into `arena` and `source.text()`.
  ast::Module* module = nullptr;
  // Errors first in source order; diagnostics[0] is the one CPython would report.
  std::vector<Diagnostic> diagnostics;
  bool ok() const;  // no error-severity diagnostic
};

// Decodes and parses one file's bytes. Never throws for bad input.
std::unique_ptr<ParseResult> parse_bytes(std::string path, std::string bytes);
// Reads the file first; an unreadable file yields a QD006 diagnostic.
std::unique_ptr<ParseResult> parse_file(const std::string& path);

}  // namespace qd::syntax
