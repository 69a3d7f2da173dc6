// The tokenizer's tables: Python 3.12's keywords (hard and soft) and CPython's
// _PyToken_OneChar / TwoChars / ThreeChars. Included by lexer.cpp only (inline: they sit on the
// per-token path).
#pragma once

#include <cstddef>
#include <cstring>

#include "syntax/lexer_impl.hpp"

namespace qd::syntax::lexer_detail {

inline TokenKind keyword_kind(const char* s, size_t n) {
  auto is = [&](const char* kw) { return std::memcmp(s, kw, n) == 0; };
  switch (n) {
    case 2:
      if (s[0] == 'a' && s[1] == 's') {
        return TokenKind::KwAs;
      }
      if (s[0] == 'i') {
        if (s[1] == 'f') {
          return TokenKind::KwIf;
        }
        if (s[1] == 'n') {
          return TokenKind::KwIn;
        }
        if (s[1] == 's') {
          return TokenKind::KwIs;
        }
      }
      if (s[0] == 'o' && s[1] == 'r') {
        return TokenKind::KwOr;
      }
      break;
    case 3:
      switch (s[0]) {
        case 'a':
          if (is("and")) {
            return TokenKind::KwAnd;
          }
          break;
        case 'd':
          if (is("def")) {
            return TokenKind::KwDef;
          }
          if (is("del")) {
            return TokenKind::KwDel;
          }
          break;
        case 'f':
          if (is("for")) {
            return TokenKind::KwFor;
          }
          break;
        case 'n':
          if (is("not")) {
            return TokenKind::KwNot;
          }
          break;
        case 't':
          if (is("try")) {
            return TokenKind::KwTry;
          }
          break;
        default: break;
      }
      break;
    case 4:
      switch (s[0]) {
        case 'N':
          if (is("None")) {
            return TokenKind::KwNone;
          }
          break;
        case 'T':
          if (is("True")) {
            return TokenKind::KwTrue;
          }
          break;
        case 'e':
          if (is("elif")) {
            return TokenKind::KwElif;
          }
          if (is("else")) {
            return TokenKind::KwElse;
          }
          break;
        case 'f':
          if (is("from")) {
            return TokenKind::KwFrom;
          }
          break;
        case 'p':
          if (is("pass")) {
            return TokenKind::KwPass;
          }
          break;
        case 'w':
          if (is("with")) {
            return TokenKind::KwWith;
          }
          break;
        default: break;
      }
      break;
    case 5:
      switch (s[0]) {
        case 'F':
          if (is("False")) {
            return TokenKind::KwFalse;
          }
          break;
        case 'a':
          if (is("async")) {
            return TokenKind::KwAsync;
          }
          if (is("await")) {
            return TokenKind::KwAwait;
          }
          break;
        case 'b':
          if (is("break")) {
            return TokenKind::KwBreak;
          }
          break;
        case 'c':
          if (is("class")) {
            return TokenKind::KwClass;
          }
          break;
        case 'r':
          if (is("raise")) {
            return TokenKind::KwRaise;
          }
          break;
        case 'w':
          if (is("while")) {
            return TokenKind::KwWhile;
          }
          break;
        case 'y':
          if (is("yield")) {
            return TokenKind::KwYield;
          }
          break;
        default: break;
      }
      break;
    case 6:
      switch (s[0]) {
        case 'a':
          if (is("assert")) {
            return TokenKind::KwAssert;
          }
          break;
        case 'e':
          if (is("except")) {
            return TokenKind::KwExcept;
          }
          break;
        case 'g':
          if (is("global")) {
            return TokenKind::KwGlobal;
          }
          break;
        case 'i':
          if (is("import")) {
            return TokenKind::KwImport;
          }
          break;
        case 'l':
          if (is("lambda")) {
            return TokenKind::KwLambda;
          }
          break;
        case 'r':
          if (is("return")) {
            return TokenKind::KwReturn;
          }
          break;
        default: break;
      }
      break;
    case 7:
      if (is("finally")) {
        return TokenKind::KwFinally;
      }
      break;
    case 8:
      if (is("continue")) {
        return TokenKind::KwContinue;
      }
      if (is("nonlocal")) {
        return TokenKind::KwNonlocal;
      }
      break;
    default: break;
  }
  return TokenKind::Name;
}

// CPython's _PyToken_OneChar / TwoChars / ThreeChars. Error means "OP" (no such operator).
inline TokenKind one_char(int c) {
  switch (c) {
    case '!': return TokenKind::Exclamation;
    case '%': return TokenKind::Percent;
    case '&': return TokenKind::Amper;
    case '(': return TokenKind::LPar;
    case ')': return TokenKind::RPar;
    case '*': return TokenKind::Star;
    case '+': return TokenKind::Plus;
    case ',': return TokenKind::Comma;
    case '-': return TokenKind::Minus;
    case '.': return TokenKind::Dot;
    case '/': return TokenKind::Slash;
    case ':': return TokenKind::Colon;
    case ';': return TokenKind::Semi;
    case '<': return TokenKind::Less;
    case '=': return TokenKind::Equal;
    case '>': return TokenKind::Greater;
    case '@': return TokenKind::At;
    case '[': return TokenKind::LSqb;
    case ']': return TokenKind::RSqb;
    case '^': return TokenKind::Circumflex;
    case '{': return TokenKind::LBrace;
    case '|': return TokenKind::VBar;
    case '}': return TokenKind::RBrace;
    case '~': return TokenKind::Tilde;
    default: return TokenKind::Error;
  }
}

inline TokenKind two_chars(int c1, int c2) {
  switch (c1) {
    case '!':
      if (c2 == '=') {
        return TokenKind::NotEqual;
      }
      break;
    case '%':
      if (c2 == '=') {
        return TokenKind::PercentEqual;
      }
      break;
    case '&':
      if (c2 == '=') {
        return TokenKind::AmperEqual;
      }
      break;
    case '*':
      if (c2 == '*') {
        return TokenKind::DoubleStar;
      }
      if (c2 == '=') {
        return TokenKind::StarEqual;
      }
      break;
    case '+':
      if (c2 == '=') {
        return TokenKind::PlusEqual;
      }
      break;
    case '-':
      if (c2 == '=') {
        return TokenKind::MinEqual;
      }
      if (c2 == '>') {
        return TokenKind::Arrow;
      }
      break;
    case '/':
      if (c2 == '/') {
        return TokenKind::DoubleSlash;
      }
      if (c2 == '=') {
        return TokenKind::SlashEqual;
      }
      break;
    case ':':
      if (c2 == '=') {
        return TokenKind::ColonEqual;
      }
      break;
    case '<':
      if (c2 == '<') {
        return TokenKind::LeftShift;
      }
      if (c2 == '=') {
        return TokenKind::LessEqual;
      }
      if (c2 == '>') {
        return TokenKind::NotEqual;
      }  // `<>` (PEP 401); the parser rejects it
      break;
    case '=':
      if (c2 == '=') {
        return TokenKind::EqEqual;
      }
      break;
    case '>':
      if (c2 == '=') {
        return TokenKind::GreaterEqual;
      }
      if (c2 == '>') {
        return TokenKind::RightShift;
      }
      break;
    case '@':
      if (c2 == '=') {
        return TokenKind::AtEqual;
      }
      break;
    case '^':
      if (c2 == '=') {
        return TokenKind::CircumflexEqual;
      }
      break;
    case '|':
      if (c2 == '=') {
        return TokenKind::VBarEqual;
      }
      break;
    default: break;
  }
  return TokenKind::Error;
}

inline TokenKind three_chars(int c1, int c2, int c3) {
  if (c3 == '=') {
    if (c1 == '*' && c2 == '*') {
      return TokenKind::DoubleStarEqual;
    }
    if (c1 == '/' && c2 == '/') {
      return TokenKind::DoubleSlashEqual;
    }
    if (c1 == '<' && c2 == '<') {
      return TokenKind::LeftShiftEqual;
    }
    if (c1 == '>' && c2 == '>') {
      return TokenKind::RightShiftEqual;
    }
  }
  if (c1 == '.' && c2 == '.' && c3 == '.') {
    return TokenKind::Ellipsis;
  }
  return TokenKind::Error;
}

}  // namespace qd::syntax::lexer_detail
