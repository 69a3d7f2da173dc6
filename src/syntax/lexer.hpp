// The Python 3.12 tokenizer (CPython's Parser/tokenizer.c behaviour, PEP 701 f-strings included).
#pragma once

#include <string_view>
#include <vector>

#include "syntax/diagnostic.hpp"
#include "syntax/token.hpp"

namespace qd::syntax {

struct TokenStream {
  std::vector<Token> tokens;             // always ends with EndMarker (or Error then EndMarker)
  std::vector<Diagnostic> diagnostics;   // tokenizer errors (at most one error: CPython stops there)
};

// Tokenizes UTF-8 text. Comments, blank lines and non-logical newlines (NL) are dropped;
// NEWLINE/INDENT/DEDENT follow CPython, including the implicit NEWLINE and DEDENTs at EOF.
// Inside parentheses newlines are ignored. Never throws; never reads outside `text`.
TokenStream tokenize(std::string_view text);

}  // namespace qd::syntax
