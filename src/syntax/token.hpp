// Tokens of Python 3.12 source, as produced by Lexer and consumed by Parser.
#pragma once

#include <cstdint>
#include <string_view>

namespace qd::syntax {

// Keep the keyword block contiguous and in this order (Lexer::keyword_kind relies on it).
enum class TokenKind : uint8_t {
  EndMarker,
  Name,           // identifiers, including the soft keywords match / case / type / _
  Number,         // int, float or imaginary literal, text as written
  String,         // one string or bytes literal with prefix and quotes (not f-strings)
  FStringStart,   // f" / rf''' ... : prefix and opening quote
  FStringMiddle,  // literal text inside an f-string (raw: escapes not yet decoded; `{{` kept doubled)
  FStringEnd,     // closing quote of an f-string
  Newline,
  Indent,
  Dedent,
  // operators and delimiters
  LPar, RPar, LSqb, RSqb, LBrace, RBrace,
  Colon, Comma, Semi, Dot, Ellipsis, Arrow, ColonEqual, At, AtEqual,
  Plus, Minus, Star, Slash, VBar, Amper, Less, Greater, Equal, Percent,
  EqEqual, NotEqual, LessEqual, GreaterEqual, Tilde, Circumflex, LeftShift, RightShift,
  DoubleStar, PlusEqual, MinEqual, StarEqual, SlashEqual, PercentEqual, AmperEqual, VBarEqual,
  CircumflexEqual, LeftShiftEqual, RightShiftEqual, DoubleStarEqual, DoubleSlash, DoubleSlashEqual,
  Exclamation,    // only inside f-string replacement fields (`!r`)
  // keywords
  KwFalse, KwNone, KwTrue, KwAnd, KwAs, KwAssert, KwAsync, KwAwait, KwBreak, KwClass, KwContinue,
  KwDef, KwDel, KwElif, KwElse, KwExcept, KwFinally, KwFor, KwFrom, KwGlobal, KwIf, KwImport,
  KwIn, KwIs, KwLambda, KwNonlocal, KwNot, KwOr, KwPass, KwRaise, KwReturn, KwTry, KwWhile,
  KwWith, KwYield,
  Error,          // the lexer reported a diagnostic here; the parser stops at it
};

const char* token_kind_name(TokenKind k);

// Positions follow CPython: 1-based lines, 0-based UTF-8 byte columns, end exclusive.
// `begin`/`end` are byte offsets into the decoded UTF-8 text of the SourceFile.
struct Token {
  TokenKind kind = TokenKind::EndMarker;
  uint8_t flags = 0;  // see k_flag_*
  uint32_t begin = 0;
  uint32_t end = 0;
  int32_t line = 0;
  int32_t col = 0;
  int32_t end_line = 0;
  int32_t end_col = 0;
};

// The token's text contains non-ASCII bytes (a Name that may need NFKC normalization).
inline constexpr uint8_t k_flag_non_ascii = 1;

}  // namespace qd::syntax
