// The Python 3.12 tokenizer (CPython's Parser/tokenizer.c behaviour, PEP 701 f-strings included).
#pragma once

#include <string_view>
#include <vector>

#include "syntax/diagnostic.hpp"
#include "syntax/token.hpp"

namespace qd::syntax {

struct TokenStream {
  std::vector<Token> tokens;  // always ends with EndMarker (or Error then EndMarker)
  // At most one error (CPython stops there), plus SyntaxWarnings CPython's tokenizer emits
  // before it: "invalid decimal literal" for `1if`, "invalid escape sequence '\{'" in f-strings.
  // Error positions: line = SyntaxError.lineno, col = 0-based byte column of the character at
  // SyntaxError.offset (end_* likewise from end_offset where CPython gives one). This includes
  // the errors CPython's parser raises for tokenizer states: "unexpected EOF while parsing",
  // "'(' was never closed", "unindent does not match any outer indentation level" (QD003),
  // "inconsistent use of tabs and spaces in indentation" (TabError, QD003), "too many levels of
  // indentation" (QD005), and "invalid syntax" (QD001) for a character no token starts with.
  // Note CPython reports a tokenizer error found after a parser error only if the tokenizer
  // set an exception (all of the above except the indentation/EOF ones).
  std::vector<Diagnostic> diagnostics;
};

// Tokenizes UTF-8 text. Comments, blank lines and non-logical newlines (NL) are dropped;
// NEWLINE/INDENT/DEDENT follow CPython, including the implicit NEWLINE and DEDENTs at EOF.
// Inside parentheses newlines are ignored. Never throws; never reads outside `text`.
TokenStream tokenize(std::string_view text);

}  // namespace qd::syntax
