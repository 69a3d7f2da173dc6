// The Python 3.12 tokenizer. It follows CPython's Parser/tokenizer.c step by step (same state
// machine, same cursor movements), so that token positions and error positions agree with what
// CPython's parser sees. Differences from the C code:
//  * the text is not copied or newline-translated: "\r\n" and a lone "\r" are read as one '\n'
//    by next_char(), and a missing final newline is a virtual '\n' at text.size();
//  * hot paths (names, blanks, string bodies) scan bytes of the current line directly.
#include "syntax/lexer.hpp"

#include "support/utf8.hpp"
#include "syntax/lexer_impl.hpp"
#include "syntax/lexer_tables.hpp"
#include "syntax/unicode.hpp"

namespace qd::syntax {

namespace lexer_detail {

bool Lexer::read_line() {
  if (m_inp >= m_end) {
    m_eof = true;
    m_cur = m_inp;
    return false;
  }
  uint32_t p = m_inp;
  uint32_t e;
  if (!m_has_cr) {
    const void* nl = p < m_size ? std::memchr(m_s + p, '\n', m_size - p) : nullptr;
    e = nl ? static_cast<uint32_t>(static_cast<const char*>(nl) - m_s) + 1 : m_end;
  } else {
    e = m_end;
    for (uint32_t q = p; q < m_size; ++q) {
      char ch = m_s[q];
      if (ch == '\n') {
        e = q + 1;
        break;
      }
      if (ch == '\r') {
        e = (q + 1 < m_size && m_s[q + 1] == '\n') ? q + 2 : q + 1;
        break;
      }
    }
  }
  m_line_start = p;
  m_cur = p;
  m_inp = e;
  ++m_line;
  return true;
}

TokenStream Lexer::run() {
  const void* nul = std::memchr(m_s, '\0', m_size);
  if (nul != nullptr) {
    // ast.parse / compile() reject the whole source before tokenizing (no position); we point
    // at the first NUL byte.
    uint32_t off = static_cast<uint32_t>(static_cast<const char*>(nul) - m_s);
    int32_t line = 1;
    uint32_t ls = 0;
    for (uint32_t i = 0; i < off; ++i) {
      if (m_s[i] == '\n' || (m_s[i] == '\r' && !(i + 1 < m_size && m_s[i + 1] == '\n'))) {
        ++line;
        ls = i + 1;
      }
    }
    int32_t c = static_cast<int32_t>(off - ls);
    Diagnostic d;
    d.line = d.end_line = line;
    d.col = d.end_col = c;
    d.code = k_code_encoding;
    d.message = "source code string cannot contain null bytes";
    m_out.diagnostics.push_back(std::move(d));
    push(TokenKind::Error, off, off, line, c, line, c);
    push(TokenKind::EndMarker, off, off, line, c, line, c);
    return std::move(m_out);
  }
  for (;;) {
    Mode& mode = m_modes[static_cast<size_t>(m_mode_index)];
    TokenKind k = mode.regular ? get_normal(mode) : get_fstring(mode);
    if (m_failed) {
      const Token& e = m_out.tokens.back();
      push(TokenKind::EndMarker, e.begin, e.end, e.line, e.col, e.line, e.col);
      break;
    }
    if (k == TokenKind::EndMarker) {
      break;
    }
  }
  return std::move(m_out);
}

// tok_continuation_line(): after a backslash. Returns the next char (backed up) or -1.
int Lexer::continuation_line() {
  int c = next_char();
  if (c != '\n') {
    // E_LINECONT: the parser reports at the offending character (cur - 1).
    uint32_t p = m_cur - 1;
    int32_t cc = static_cast<int32_t>(p - m_line_start);
    fail(k_code_token, "unexpected character after line continuation character", m_line, cc, m_line,
         cc);
    return -1;
  }
  c = next_char();
  if (c == k_eof) {
    // E_EOF: the parser reports "unexpected EOF while parsing" at cur - line_start.
    int32_t cc = static_cast<int32_t>(m_cur - m_line_start) - 1;
    if (m_level > 0) {
      int i = m_level - 1;
      std::string msg = "'";
      msg += m_parenstack[static_cast<size_t>(i)];
      msg += "' was never closed";
      fail(k_code_token, std::move(msg), m_paren_line[static_cast<size_t>(i)],
           m_paren_col[static_cast<size_t>(i)], m_paren_line[static_cast<size_t>(i)],
           m_paren_col[static_cast<size_t>(i)]);
    } else {
      fail(k_code_token, "unexpected EOF while parsing", m_line, cc < 0 ? 0 : cc, m_line,
           cc < 0 ? 0 : cc);
    }
    return -1;
  }
  backup(c);
  return c;
}

TokenKind Lexer::indent_error_tabs() {
  return fail(k_code_indent, "inconsistent use of tabs and spaces in indentation", m_line, 0,
              m_line, 0);
}

TokenKind Lexer::get_normal(Mode& mode) {
  int c = 0;
  bool blankline = false;

nextline:
  blankline = false;
  if (m_atbol) {
    int icol = 0;
    int altcol = 0;
    m_atbol = false;
    int cont_line_col = 0;
    for (;;) {
      uint32_t lim = m_inp < m_size ? m_inp : m_size;
      if (m_cur == m_inp && !m_eof && read_line()) {
        lim = m_inp < m_size ? m_inp : m_size;
      }
      uint32_t p = m_cur;
      while (p < lim && m_s[p] == ' ') {
        ++p;
      }
      icol += static_cast<int>(p - m_cur);
      altcol += static_cast<int>(p - m_cur);
      m_cur = p;
      c = next_char();
      if (c == ' ') {
        ++icol;
        ++altcol;
      } else if (c == '\t') {
        icol = (icol / k_tab_size + 1) * k_tab_size;
        altcol = altcol + 1;
      } else if (c == '\f') {
        icol = altcol = 0;
      } else if (c == '\\') {
        cont_line_col = cont_line_col ? cont_line_col : icol;
        if ((c = continuation_line()) == -1) {
          return TokenKind::Error;
        }
      } else {
        break;
      }
    }
    backup(c);
    if (c == '#' || c == '\n') {
      blankline = true;
    }
    if (!blankline && m_level == 0) {
      icol = cont_line_col ? cont_line_col : icol;
      altcol = cont_line_col ? cont_line_col : altcol;
      int top = m_indstack[static_cast<size_t>(m_indent)];
      if (icol == top) {
        if (altcol != m_altindstack[static_cast<size_t>(m_indent)]) {
          return indent_error_tabs();
        }
      } else if (icol > top) {
        if (m_indent + 1 >= k_max_indent) {
          return fail(k_code_limit, "too many levels of indentation", m_line, 0, m_line, 0);
        }
        if (altcol <= m_altindstack[static_cast<size_t>(m_indent)]) {
          return indent_error_tabs();
        }
        ++m_pendin;
        ++m_indent;
        m_indstack[static_cast<size_t>(m_indent)] = icol;
        m_altindstack[static_cast<size_t>(m_indent)] = altcol;
      } else {
        while (m_indent > 0 && icol < m_indstack[static_cast<size_t>(m_indent)]) {
          --m_pendin;
          --m_indent;
        }
        if (icol != m_indstack[static_cast<size_t>(m_indent)]) {
          // E_DEDENT: the parser reports at the end of the line (cur = inp).
          m_cur = m_inp;
          int32_t cc = static_cast<int32_t>(prev_char_offset() - m_line_start);
          return fail(k_code_indent, "unindent does not match any outer indentation level", m_line,
                      cc, m_line, cc);
        }
        if (altcol != m_altindstack[static_cast<size_t>(m_indent)]) {
          return indent_error_tabs();
        }
      }
    }
  }

  m_start = m_cur;
  m_start_col = col();

  if (m_pendin != 0) {
    if (m_pendin < 0) {
      ++m_pendin;
      if (m_eof) {
        return push(TokenKind::Dedent, m_size, m_size, m_line + 1, 0, m_line + 1, 0);
      }
      return push(TokenKind::Dedent, m_cur, m_cur, m_line, col(), m_line, col());
    }
    --m_pendin;
    return push(TokenKind::Indent, m_line_start, m_cur, m_line, 0, m_line, col());
  }

again:
  // Skip spaces.
  for (;;) {
    uint32_t lim = m_inp < m_size ? m_inp : m_size;
    while (m_cur < lim && (k_char_class[static_cast<uint8_t>(m_s[m_cur])] & k_cc_blank)) {
      ++m_cur;
    }
    if (m_cur != m_inp || m_eof) {
      break;
    }
    if (!read_line()) {
      break;
    }
  }
  m_start = m_cur;
  m_start_col = col();
  c = next_char();

  if (c == '#') {
    // Comments run to the end of the line; the NEWLINE that follows starts at the '#'.
    uint32_t lim = m_inp < m_size ? m_inp : m_size;
    while (m_cur < lim && m_s[m_cur] != '\n' && m_s[m_cur] != '\r') {
      ++m_cur;
    }
    c = next_char();
  }

  if (c == k_eof) {
    if (m_level > 0) {
      int i = m_level - 1;
      std::string msg = "'";
      msg += m_parenstack[static_cast<size_t>(i)];
      msg += "' was never closed";
      return fail(k_code_token, std::move(msg), m_paren_line[static_cast<size_t>(i)],
                  m_paren_col[static_cast<size_t>(i)], m_paren_line[static_cast<size_t>(i)],
                  m_paren_col[static_cast<size_t>(i)]);
    }
    return push(TokenKind::EndMarker, m_size, m_size, m_line + 1, 0, m_line + 1, 0);
  }

  if (is_ident_start(c)) {
    return name_or_keyword(c);
  }

  if (c == '\n') {
    m_atbol = true;
    if (blankline || m_level > 0) {
      goto nextline;
    }
    // p_end = cur - 1 (the newline itself, translated); end_col counts the newline.
    uint32_t nl = m_cur - 1;
    if (nl < m_size && m_s[nl] == '\n' && nl > m_line_start && m_s[nl - 1] == '\r') {
      --nl;
    }
    if (nl > m_size) {
      nl = m_size;
    }
    int32_t nl_col = static_cast<int32_t>(nl - m_line_start);
    return push(TokenKind::Newline, m_start, nl, m_line, m_start_col, m_line, nl_col + 1);
  }

  if (c == '.') {
    c = next_char();
    if (is_digit(c)) {
      return number('.');
    }
    if (c == '.') {
      c = next_char();
      if (c == '.') {
        return make(TokenKind::Ellipsis);
      }
      backup(c);
      backup('.');
    } else {
      backup(c);
    }
    return make(TokenKind::Dot);
  }

  if (is_digit(c)) {
    return number(c);
  }

  if (c == '\'' || c == '"') {
    return string_literal(c);
  }

  if (c == '\\') {
    if (continuation_line() == -1) {
      return TokenKind::Error;
    }
    goto again;
  }

  // f-string punctuation: ':' at the top level of a replacement field opens the format spec.
  if (c == ':' && m_mode_index > 0 && mode.expr_start_depth >= 0) {
    int cursor = mode.curly_depth - 1;
    if (cursor == mode.expr_start_depth) {
      mode.regular = false;
      mode.in_format_spec = true;
      return make(TokenKind::Colon);
    }
  }

  {
    int c2 = next_char();
    TokenKind two = two_chars(c, c2);
    if (two != TokenKind::Error) {
      int c3 = next_char();
      TokenKind three = three_chars(c, c2, c3);
      if (three != TokenKind::Error) {
        two = three;
      } else {
        backup(c3);
      }
      return make(two);
    }
    backup(c2);
  }

  switch (c) {
    case '(':
    case '[':
    case '{':
      if (m_level >= k_max_level) {
        return syntax_error("too many nested parentheses", k_code_limit);
      }
      m_parenstack[static_cast<size_t>(m_level)] = static_cast<char>(c);
      m_paren_line[static_cast<size_t>(m_level)] = m_line;
      m_paren_col[static_cast<size_t>(m_level)] = m_start_col;
      ++m_level;
      if (m_mode_index > 0) {
        ++mode.curly_depth;
      }
      break;
    case ')':
    case ']':
    case '}': {
      if (m_mode_index > 0 && mode.curly_depth == 0 && c == '}') {
        return syntax_error("f-string: single '}' is not allowed");
      }
      if (m_level == 0) {
        return syntax_error(std::string("unmatched '") + static_cast<char>(c) + "'");
      }
      --m_level;
      int opening = m_parenstack[static_cast<size_t>(m_level)];
      if (!((opening == '(' && c == ')') || (opening == '[' && c == ']') ||
            (opening == '{' && c == '}'))) {
        if (m_mode_index > 0 && opening == '{') {
          int previous_bracket = mode.curly_depth - 1;
          if (previous_bracket == mode.expr_start_depth) {
            return syntax_error(std::string("f-string: unmatched '") + static_cast<char>(c) + "'");
          }
        }
        std::string msg = "closing parenthesis '";
        msg += static_cast<char>(c);
        msg += "' does not match opening parenthesis '";
        msg += static_cast<char>(opening);
        msg += "'";
        if (m_paren_line[static_cast<size_t>(m_level)] != m_line) {
          msg += " on line " + std::to_string(m_paren_line[static_cast<size_t>(m_level)]);
        }
        return syntax_error(std::move(msg));
      }
      if (m_mode_index > 0) {
        --mode.curly_depth;
        if (mode.curly_depth < 0) {
          return syntax_error(std::string("f-string: unmatched '") + static_cast<char>(c) + "'");
        }
        if (c == '}' && mode.curly_depth == mode.expr_start_depth) {
          --mode.expr_start_depth;
          mode.regular = false;
          mode.in_format_spec = false;
        }
      }
      break;
    }
    default: break;
  }

  if (c < 32 || c == 127) {
    return syntax_error("invalid non-printable character " +
                        hex_code_point(static_cast<uint32_t>(c)));
  }
  TokenKind k = one_char(c);
  if (k == TokenKind::Error) {
    // CPython returns an OP token that no grammar rule accepts: "invalid syntax" at it.
    return fail(k_code_syntax, "invalid syntax", m_line, m_start_col, m_line, m_start_col + 1);
  }
  return make(k);
}

TokenKind Lexer::name_or_keyword(int c) {
  // String prefixes: b r u f in CPython's accepted combinations.
  bool saw_b = false, saw_r = false, saw_u = false, saw_f = false;
  for (;;) {
    if (!(saw_b || saw_u || saw_f) && (c == 'b' || c == 'B')) {
      saw_b = true;
    } else if (!(saw_b || saw_u || saw_r || saw_f) && (c == 'u' || c == 'U')) {
      saw_u = true;
    } else if (!(saw_r || saw_u) && (c == 'r' || c == 'R')) {
      saw_r = true;
    } else if (!(saw_f || saw_b || saw_u) && (c == 'f' || c == 'F')) {
      saw_f = true;
    } else {
      break;
    }
    c = next_char();
    if (c == '"' || c == '\'') {
      return saw_f ? fstring_start(c) : string_literal(c);
    }
  }
  // c is the character after the prefix letters (already consumed).
  backup(c);
  uint8_t flags = 0;
  uint32_t lim = m_inp < m_size ? m_inp : m_size;
  uint32_t p = m_cur;
  while (p < lim) {
    uint8_t b = static_cast<uint8_t>(m_s[p]);
    if (!(k_char_class[b] & k_cc_ident)) {
      break;
    }
    if (b >= 0x80) {
      flags = k_flag_non_ascii;
    }
    ++p;
  }
  m_cur = p;
  if (flags && !verify_identifier(m_start)) {
    return TokenKind::Error;
  }
  TokenKind k = keyword_kind(m_s + m_start, m_cur - m_start);
  return push(k, m_start, m_cur, m_line, m_start_col, m_line, col(), flags);
}

bool Lexer::verify_identifier(uint32_t begin) {
  std::string_view text(m_s + begin, m_cur - begin);
  size_t i = 0;
  bool first = true;
  while (i < text.size()) {
    size_t at_i = i;
    uint32_t cp = support::decode_utf8(text, i);
    bool ok = cp != support::k_invalid_code_point &&
              (first ? (cp == '_' || is_identifier_start(cp)) : is_identifier_continue(cp));
    if (!ok) {
      // CPython moves the cursor just past the offending character and reports there.
      m_cur = begin + static_cast<uint32_t>(i);
      int32_t cc = static_cast<int32_t>(begin + at_i - m_line_start);
      std::string msg;
      if (cp != support::k_invalid_code_point && is_printable(cp)) {
        msg = "invalid character '";
        support::append_utf8(msg, cp);
        msg += "' (" + hex_code_point(cp) + ")";
      } else {
        msg = "invalid non-printable character " +
              hex_code_point(cp == support::k_invalid_code_point ? 0xFFFD : cp);
      }
      fail(k_code_token, std::move(msg), m_line, cc, m_line, cc);
      return false;
    }
    first = false;
  }
  return true;
}

}  // namespace lexer_detail

using lexer_detail::Lexer;

TokenStream tokenize(std::string_view text) {
  if (text.size() >= 0xFFFFFFF0u) {
    TokenStream out;
    Diagnostic d;
    d.line = d.end_line = 1;
    d.code = k_code_limit;
    d.message = "source file too large";
    out.diagnostics.push_back(std::move(d));
    Token t;
    t.kind = TokenKind::Error;
    t.line = t.end_line = 1;
    out.tokens.push_back(t);
    t.kind = TokenKind::EndMarker;
    out.tokens.push_back(t);
    return out;
  }
  Lexer lexer(text);
  return lexer.run();
}

}  // namespace qd::syntax
