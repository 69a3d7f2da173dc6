// The tokenizer's string literals and f-strings (PEP 701: tokenizer.c's string branch,
// tok_get_fstring_mode).
#include "syntax/lexer_impl.hpp"

#include "support/utf8.hpp"
#include "syntax/unicode.hpp"

namespace qd::syntax::lexer_detail {

TokenKind Lexer::string_literal(int quote) {
  int quote_size = 1;
  int end_quote_size = 0;
  m_first_lineno = m_line;
  m_multi_line_start = m_line_start;
  int c = next_char();
  if (c == quote) {
    c = next_char();
    if (c == quote) {
      quote_size = 3;
    } else {
      end_quote_size = 1;
    }
  }
  if (c != quote) {
    backup(c);
  }
  while (end_quote_size != quote_size) {
    // Fast path: skip ordinary bytes of the current line.
    uint32_t lim = m_inp < m_size ? m_inp : m_size;
    uint32_t p = m_cur;
    while (p < lim) {
      char ch = m_s[p];
      if (ch == quote || ch == '\\' || ch == '\n' || ch == '\r') {
        break;
      }
      ++p;
    }
    if (p != m_cur) {
      m_cur = p;
      end_quote_size = 0;
    }
    c = next_char();
    if (c == k_eof || (quote_size == 1 && c == '\n')) {
      int32_t detected = m_line;
      m_cur = m_start + 1;
      m_line_start = m_multi_line_start;
      m_line = m_first_lineno;
      int32_t cc = static_cast<int32_t>(m_start - m_line_start);
      if (m_mode_index > 0) {
        const Mode& fm = m_modes[static_cast<size_t>(m_mode_index)];
        if (fm.quote == quote && fm.quote_size == quote_size) {
          return fail(k_code_token, "f-string: expecting '}'", m_line, cc, m_line, cc);
        }
      }
      std::string msg = quote_size == 3 ? "unterminated triple-quoted string literal"
                                        : "unterminated string literal";
      msg += " (detected at line " + std::to_string(detected) + ")";
      return fail(k_code_token, std::move(msg), m_line, cc, m_line, cc);
    }
    if (c == quote) {
      ++end_quote_size;
    } else {
      end_quote_size = 0;
      if (c == '\\') {
        next_char();
      }
    }
  }
  return push(TokenKind::String, m_start, m_cur, m_first_lineno, m_start_col, m_line, col());
}

TokenKind Lexer::fstring_start(int quote) {
  int quote_size = 1;
  m_first_lineno = m_line;
  m_multi_line_start = m_line_start;
  int after_quote = next_char();
  if (after_quote == quote) {
    int after_after_quote = next_char();
    if (after_after_quote == quote) {
      quote_size = 3;
    } else {
      backup(after_after_quote);
      backup(after_quote);
    }
  }
  if (after_quote != quote) {
    backup(after_quote);
  }
  if (m_mode_index + 1 >= k_max_fstring_level) {
    return syntax_error("too many nested f-strings", k_code_limit);
  }
  Mode& m = m_modes[static_cast<size_t>(++m_mode_index)];
  m = Mode{};
  m.regular = false;
  m.quote = static_cast<char>(quote);
  m.quote_size = quote_size;
  m.start = m_start;
  m.multi_line_start = m_line_start;
  m.line = m_line;
  char p0 = m_s[m_start];
  if (p0 == 'f' || p0 == 'F') {
    char p1 = m_s[m_start + 1];
    m.raw = p1 == 'r' || p1 == 'R';
  } else {
    m.raw = true;
  }
  m.curly_depth = 0;
  m.expr_start_depth = -1;
  return make(TokenKind::FStringStart);
}

TokenKind Lexer::get_fstring(Mode& mode) {
  int end_quote_size = 0;
  bool unicode_escape = false;
  m_start = m_cur;
  m_first_lineno = m_line;
  m_start_col = col();

  int start_char = next_char();
  if (start_char == '{') {
    int peek1 = next_char();
    backup(peek1);
    backup(start_char);
    if (peek1 != '{') {
      ++mode.expr_start_depth;
      if (mode.expr_start_depth >= k_max_expr_nesting) {
        return syntax_error("f-string: expressions nested too deeply", k_code_limit);
      }
      mode.regular = true;
      return get_normal(mode);
    }
  } else {
    backup(start_char);
  }

  for (int i = 0; i < mode.quote_size; ++i) {
    int q = next_char();
    if (q != mode.quote) {
      backup(q);
      goto middle;
    }
  }
  --m_mode_index;
  return make(TokenKind::FStringEnd);

middle:
  m_multi_line_start = m_line_start;
  while (end_quote_size != mode.quote_size) {
    bool in_format_spec = mode.in_format_spec && mode.expr_start_depth >= 0;
    // Fast path over ordinary bytes.
    uint32_t lim = m_inp < m_size ? m_inp : m_size;
    uint32_t p = m_cur;
    while (p < lim) {
      char ch = m_s[p];
      if (ch == mode.quote || ch == '\\' || ch == '\n' || ch == '\r' || ch == '{' || ch == '}') {
        break;
      }
      ++p;
    }
    if (p != m_cur) {
      m_cur = p;
      end_quote_size = 0;
    }
    int c = next_char();
    if (c == k_eof || (mode.quote_size == 1 && c == '\n')) {
      if (in_format_spec && c == '\n') {
        backup(c);
        mode.regular = true;
        mode.in_format_spec = false;
        return make(TokenKind::FStringMiddle, m_start, m_cur, m_first_lineno);
      }
      int32_t detected = m_line;
      m_cur = mode.start + 1;
      m_line_start = mode.multi_line_start;
      m_line = mode.line;
      int32_t cc = static_cast<int32_t>(mode.start - m_line_start);
      std::string msg = mode.quote_size == 3 ? "unterminated triple-quoted f-string literal"
                                             : "unterminated f-string literal";
      msg += " (detected at line " + std::to_string(detected) + ")";
      return fail(k_code_token, std::move(msg), m_line, cc, m_line, cc);
    }
    if (c == mode.quote) {
      ++end_quote_size;
      continue;
    }
    end_quote_size = 0;
    if (c == '{') {
      int peek = next_char();
      if (peek != '{' || in_format_spec) {
        backup(peek);
        backup(c);
        ++mode.expr_start_depth;
        if (mode.expr_start_depth >= k_max_expr_nesting) {
          return syntax_error("f-string: expressions nested too deeply", k_code_limit);
        }
        mode.regular = true;
        mode.in_format_spec = false;
        return make(TokenKind::FStringMiddle, m_start, m_cur, m_first_lineno);
      }
      // `{{`: the text keeps one brace, the position covers both.
      return make(TokenKind::FStringMiddle, m_start, m_cur - 1, m_first_lineno);
    }
    if (c == '}') {
      if (unicode_escape) {
        return make(TokenKind::FStringMiddle, m_start, m_cur, m_first_lineno);
      }
      int peek = next_char();
      if (peek == '}' && !in_format_spec && mode.curly_depth == 0) {
        return make(TokenKind::FStringMiddle, m_start, m_cur - 1, m_first_lineno);
      }
      backup(peek);
      backup(c);
      mode.regular = true;
      return make(TokenKind::FStringMiddle, m_start, m_cur, m_first_lineno);
    }
    if (c == '\\') {
      int escape_line = m_line;
      int32_t escape_col = col() - 1;
      int peek = next_char();
      if (peek == '{' || peek == '}') {
        if (!mode.raw) {
          warn(std::string("invalid escape sequence '\\") + static_cast<char>(peek) + "'",
               escape_line, escape_col);
        }
        backup(peek);
        continue;
      }
      if (!mode.raw && peek == 'N') {
        peek = next_char();
        if (peek == '{') {
          unicode_escape = true;
        } else {
          backup(peek);
        }
      }
    }
  }
  for (int i = 0; i < mode.quote_size; ++i) {
    backup(mode.quote);
  }
  return make(TokenKind::FStringMiddle, m_start, m_cur, m_first_lineno);
}

}  // namespace qd::syntax::lexer_detail
