// The tokenizer's number literals (tokenizer.c tok_get_normal_mode's number branch and
// verify_end_of_number, lookahead, tok_decimal_tail).
#include "syntax/lexer_impl.hpp"

namespace qd::syntax::lexer_detail {

bool Lexer::lookahead(const char* test) {
  const char* s = test;
  bool res = false;
  for (;;) {
    int c = next_char();
    if (*s == 0) {
      res = !is_ident_char(c);
    } else if (c == *s) {
      ++s;
      continue;
    }
    backup(c);
    while (s != test) {
      backup(*--s);
    }
    return res;
  }
}

bool Lexer::verify_end_of_number(int c, const char* kind) {
  bool r = false;
  if (c == 'a') {
    r = lookahead("nd");
  } else if (c == 'e') {
    r = lookahead("lse");
  } else if (c == 'f') {
    r = lookahead("or");
  } else if (c == 'i') {
    int c2 = next_char();
    if (c2 == 'f' || c2 == 'n' || c2 == 's') {
      r = true;
    }
    backup(c2);
  } else if (c == 'o') {
    r = lookahead("r");
  } else if (c == 'n') {
    r = lookahead("ot");
  }
  if (r) {
    backup(c);
    warn(std::string("invalid ") + kind + " literal", m_line,
         static_cast<int32_t>(prev_char_offset() - m_line_start));
    next_char();
  } else if (c >= 0 && c < 128 && is_ident_char(c)) {
    backup(c);
    syntax_error(std::string("invalid ") + kind + " literal");
    return false;
  }
  return true;
}

int Lexer::decimal_tail() {
  int c;
  for (;;) {
    do {
      c = next_char();
    } while (is_digit(c));
    if (c != '_') {
      break;
    }
    c = next_char();
    if (!is_digit(c)) {
      backup(c);
      syntax_error("invalid decimal literal");
      return 0;
    }
  }
  return c;
}

// `c` is the first digit (already consumed), or '.' when called for ".5" with the cursor after
// the first fraction digit.
TokenKind Lexer::number(int c) {
  if (c == '.') {
    c = at(m_cur - 1);  // the digit after '.'
    goto fraction;
  }
  if (c == '0') {
    c = next_char();
    if (c == 'x' || c == 'X') {
      c = next_char();
      do {
        if (c == '_') {
          c = next_char();
        }
        if (!is_xdigit(c)) {
          backup(c);
          return syntax_error("invalid hexadecimal literal");
        }
        do {
          c = next_char();
        } while (is_xdigit(c));
      } while (c == '_');
      if (!verify_end_of_number(c, "hexadecimal")) {
        return TokenKind::Error;
      }
    } else if (c == 'o' || c == 'O') {
      c = next_char();
      do {
        if (c == '_') {
          c = next_char();
        }
        if (c < '0' || c >= '8') {
          if (is_digit(c)) {
            return syntax_error(std::string("invalid digit '") + static_cast<char>(c) +
                                "' in octal literal");
          }
          backup(c);
          return syntax_error("invalid octal literal");
        }
        do {
          c = next_char();
        } while ('0' <= c && c < '8');
      } while (c == '_');
      if (is_digit(c)) {
        return syntax_error(std::string("invalid digit '") + static_cast<char>(c) +
                            "' in octal literal");
      }
      if (!verify_end_of_number(c, "octal")) {
        return TokenKind::Error;
      }
    } else if (c == 'b' || c == 'B') {
      c = next_char();
      do {
        if (c == '_') {
          c = next_char();
        }
        if (c != '0' && c != '1') {
          if (is_digit(c)) {
            return syntax_error(std::string("invalid digit '") + static_cast<char>(c) +
                                "' in binary literal");
          }
          backup(c);
          return syntax_error("invalid binary literal");
        }
        do {
          c = next_char();
        } while (c == '0' || c == '1');
      } while (c == '_');
      if (is_digit(c)) {
        return syntax_error(std::string("invalid digit '") + static_cast<char>(c) +
                            "' in binary literal");
      }
      if (!verify_end_of_number(c, "binary")) {
        return TokenKind::Error;
      }
    } else {
      bool nonzero = false;
      for (;;) {
        if (c == '_') {
          c = next_char();
          if (!is_digit(c)) {
            backup(c);
            return syntax_error("invalid decimal literal");
          }
        }
        if (c != '0') {
          break;
        }
        c = next_char();
      }
      uint32_t zeros_end = m_cur;
      if (is_digit(c)) {
        nonzero = true;
        c = decimal_tail();
        if (c == 0) {
          return TokenKind::Error;
        }
      }
      if (c == '.') {
        c = next_char();
        goto fraction;
      }
      if (c == 'e' || c == 'E') {
        goto exponent;
      }
      if (c == 'j' || c == 'J') {
        goto imaginary;
      }
      if (nonzero) {
        backup(c);
        int32_t b = m_start_col;
        int32_t e = static_cast<int32_t>(zeros_end - m_line_start) - 1;
        return fail(k_code_token,
                    "leading zeros in decimal integer literals are not permitted; use an 0o "
                    "prefix for octal integers",
                    m_line, b, m_line, e);
      }
      if (!verify_end_of_number(c, "decimal")) {
        return TokenKind::Error;
      }
    }
  } else {
    c = decimal_tail();
    if (c == 0) {
      return TokenKind::Error;
    }
    if (c == '.') {
      c = next_char();
    fraction:
      if (is_digit(c)) {
        c = decimal_tail();
        if (c == 0) {
          return TokenKind::Error;
        }
      }
    }
    if (c == 'e' || c == 'E') {
    exponent:
      int e = c;
      c = next_char();
      if (c == '+' || c == '-') {
        c = next_char();
        if (!is_digit(c)) {
          backup(c);
          return syntax_error("invalid decimal literal");
        }
      } else if (!is_digit(c)) {
        backup(c);
        if (!verify_end_of_number(e, "decimal")) {
          return TokenKind::Error;
        }
        backup(e);
        return make(TokenKind::Number);
      }
      c = decimal_tail();
      if (c == 0) {
        return TokenKind::Error;
      }
    }
    if (c == 'j' || c == 'J') {
    imaginary:
      c = next_char();
      if (!verify_end_of_number(c, "imaginary")) {
        return TokenKind::Error;
      }
    } else if (!verify_end_of_number(c, "decimal")) {
      return TokenKind::Error;
    }
  }
  backup(c);
  return make(TokenKind::Number);
}

}  // namespace qd::syntax::lexer_detail
