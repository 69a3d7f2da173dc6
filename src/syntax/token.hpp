// Tokens of Python 3.12 source, as produced by Lexer and consumed by Parser.
#pragma once

#include <cstdint>
#include <string_view>

namespace qd::syntax {

// Keep the keyword block contiguous and in this order (Lexer::keyword_kind relies on it).
// clang-format off
enum class TokenKind : uint8_t {
  EndMarker,
  Name,           // identifiers, including the soft keywords match / case / type / _
  Number,         // int, float or imaginary literal, text as written
  String,         // one string or bytes literal with prefix and quotes (not f-strings)
  FStringStart,   // f" / rf''' ... : prefix and opening quote
  FStringMiddle,  // literal text inside an f-string, exactly as CPython 3.12 emits it (see below)
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
// clang-format on

const char* token_kind_name(TokenKind k);

// Positions follow CPython: 1-based lines, 0-based UTF-8 byte columns, end exclusive.
// `begin`/`end` are byte offsets into the decoded UTF-8 text of the SourceFile.
//
// The token stream is CPython 3.12's C tokenizer as its parser sees it: `begin`/`end` are the
// C token's start/end pointers (its bytes), line/col/end_line/end_col are the token's
// lineno/col_offset/end_lineno/end_col_offset. The two views differ in three places:
//  * Newline: the text is empty (begin == end == offset of the newline, or text.size() for the
//    implicit newline at EOF) unless a comment precedes it on the line, in which case the token
//    starts at the '#' (the C tokenizer does not split them); end_col = newline column + 1.
//  * FStringMiddle: the text is the raw literal text (escapes not decoded). A doubled brace
//    ends a middle token: `f"a{{b}}"` gives FStringMiddle "a{" (text keeps ONE brace, end_col
//    covers BOTH braces: 2..5) then "b}" (5..8). So `{{`/`}}` are already undoubled in the text
//    and a Constant built from merged middles spans first.col..last.end_col, as in CPython.
//    A middle may be empty (`f"{x:}"` has an empty middle after ':'), and "\N{...}" ends a
//    middle of its own; consecutive middles are merged by the parser. The middle's line is the
//    line where it starts (multi-line in triple-quoted f-strings).
//  * Indent: line start..end of indentation; Dedent: zero width at the first token of the line.
//    Dedent and EndMarker at EOF are at (last line + 1, 0), begin == end == text.size()
//    (CPython's parser gets col -1 for these; these are the `tokenize` module's positions).
// Other notes for the parser:
//  * Colon/Exclamation/Equal/RBrace inside f-string replacement fields are ordinary tokens; the
//    `=` debug text is text[lbrace.end .. equal.end] (CPython also strips `#` comments from it).
//  * ':' at the top level of a replacement field always starts the format spec (`f"{x:=1}"` is
//    Colon, FStringMiddle "=1"); use `(x:=1)` for a walrus.
//  * `<>` is NotEqual (CPython's tokenizer does the same; the parser must reject its text).
//  * Source newlines are not translated: token text (strings, f-string middles, the `=` text)
//    may contain "\r\n" or "\r", which CPython sees as "\n".
//  * `async`/`await` are always KwAsync/KwAwait (3.12).
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
