// Internal to the tokenizer (lexer.cpp, lexer_numbers.cpp, lexer_strings.cpp): the Lexer class,
// a port of CPython's Parser/tokenizer.c, and the character classes of its ASCII fast paths. The
// hot per-character helpers are inline here; the keyword and operator tables are in
// lexer_tables.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "syntax/lexer.hpp"

namespace qd::syntax::lexer_detail {

constexpr int k_eof = -1;
constexpr int k_tab_size = 8;
constexpr int k_max_indent = 100;         // MAXINDENT
constexpr int k_max_level = 200;          // MAXLEVEL
constexpr int k_max_fstring_level = 150;  // MAXFSTRINGLEVEL
constexpr int k_max_expr_nesting = 3;     // MAX_EXPR_NESTING

// Character classes of the ASCII fast paths.
enum : uint8_t {
  k_cc_ident = 1,  // a-z A-Z _ and bytes >= 0x80 (is_potential_identifier_char)
  k_cc_digit = 2,
  k_cc_blank = 4,  // ' ' '\t' '\f'
  k_cc_xdigit = 8,
};

constexpr std::array<uint8_t, 256> make_char_classes() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    uint8_t v = 0;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 128) {
      v |= k_cc_ident;
    }
    if (c >= '0' && c <= '9') {
      v |= k_cc_digit | k_cc_ident | k_cc_xdigit;
    }
    if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
      v |= k_cc_xdigit;
    }
    if (c == ' ' || c == '\t' || c == '\f') {
      v |= k_cc_blank;
    }
    t[static_cast<size_t>(c)] = v;
  }
  return t;
}
inline constexpr std::array<uint8_t, 256> k_char_class = make_char_classes();

inline bool is_digit(int c) { return c >= '0' && c <= '9'; }
inline bool is_xdigit(int c) {
  return c >= 0 && (k_char_class[static_cast<uint8_t>(c)] & k_cc_xdigit);
}
inline bool is_ident_char(int c) {
  return c >= 0 && (k_char_class[static_cast<uint8_t>(c)] & k_cc_ident);
}
inline bool is_ident_start(int c) { return is_ident_char(c) && !is_digit(c); }

inline std::string hex_code_point(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

// One entry of CPython's tok_mode_stack.
struct Mode {
  bool regular = true;
  char quote = 0;
  int quote_size = 0;
  bool raw = false;
  uint32_t start = 0;             // offset of the f-string's first prefix character
  uint32_t multi_line_start = 0;  // start offset of the line holding `start`
  int32_t line = 0;               // line of `start`
  int curly_depth = 0;
  int expr_start_depth = 0;  // -1 outside replacement fields (0 for the base mode, as in C)
  bool in_format_spec = false;
};

class Lexer {
public:
  explicit Lexer(std::string_view text)
      : m_s(text.data()), m_size(static_cast<uint32_t>(text.size())) {
    char last = m_size ? m_s[m_size - 1] : '\n';
    m_end = m_size + ((last != '\n' && last != '\r') ? 1u : 0u);
    m_has_cr = std::memchr(m_s, '\r', m_size) != nullptr;
    // ~6 bytes of source per token on the stdlib; untouched reserved pages cost nothing.
    m_out.tokens.reserve(m_size / 4 + 64);
  }

  TokenStream run();

private:
  // ---- input -----------------------------------------------------------------------------
  int at(uint32_t p) const { return p < m_size ? static_cast<uint8_t>(m_s[p]) : '\n'; }
  bool read_line();
  // tok_nextc(): the next character, reading the next line when the current one is exhausted.
  __attribute__((always_inline)) int next_char() {
    if (m_cur != m_inp) [[likely]] {
      int c = at(m_cur);
      if (c == '\r') [[unlikely]] {
        m_cur += (m_cur + 1 < m_size && m_s[m_cur + 1] == '\n') ? 2 : 1;
        return '\n';
      }
      ++m_cur;
      return c;
    }
    return next_char_slow();
  }
  __attribute__((noinline)) int next_char_slow() {
    if (m_eof || !read_line()) {
      return k_eof;
    }
    return next_char();
  }
  void backup(int c) {
    if (c == k_eof) {
      return;
    }
    if (c == '\n' && m_cur >= 2 && m_cur <= m_size && m_s[m_cur - 1] == '\n' &&
        m_s[m_cur - 2] == '\r') {
      m_cur -= 2;
    } else {
      m_cur -= 1;
    }
  }
  int32_t col() const { return static_cast<int32_t>(m_cur - m_line_start); }
  // Offset of the (newline-translated) character before the cursor, clamped to the line.
  uint32_t prev_char_offset() const {
    if (m_cur <= m_line_start) {
      return m_line_start;
    }
    uint32_t p = m_cur - 1;
    if (p < m_size && m_s[p] == '\n' && p > m_line_start && m_s[p - 1] == '\r') {
      --p;
    }
    while (p > m_line_start && p < m_size && (static_cast<uint8_t>(m_s[p]) & 0xC0) == 0x80) {
      --p;
    }
    return p;
  }

  // ---- output ----------------------------------------------------------------------------
  TokenKind push(TokenKind kind, uint32_t begin, uint32_t end, int32_t line, int32_t col,
                 int32_t end_line, int32_t end_col, uint8_t flags = 0) {
    Token t;
    t.kind = kind;
    t.flags = flags;
    t.begin = begin;
    t.end = end;
    t.line = line;
    t.col = col;
    t.end_line = end_line;
    t.end_col = end_col;
    m_out.tokens.push_back(t);
    return kind;
  }
  // A token from m_start/m_start_col to the cursor (CPython's MAKE_TOKEN with p_start..p_end).
  TokenKind make(TokenKind kind, uint32_t begin, uint32_t end, int32_t line) {
    return push(kind, begin, end, line, m_start_col, m_line, col());
  }
  TokenKind make(TokenKind kind) { return make(kind, m_start, m_cur, m_line); }
  // Records the first error: Diagnostic plus an Error token at its position.
  TokenKind fail(const char* code, std::string message, int32_t line, int32_t col, int32_t end_line,
                 int32_t end_col) {
    Diagnostic d;
    d.line = line;
    d.col = col;
    d.end_line = end_line;
    d.end_col = end_col;
    d.code = code;
    d.message = std::move(message);
    m_out.diagnostics.push_back(std::move(d));
    uint32_t off = m_line_start + static_cast<uint32_t>(col < 0 ? 0 : col);
    if (line != m_line || off > m_size) {
      off = m_cur > m_size ? m_size : m_cur;
    }
    m_failed = true;
    return push(TokenKind::Error, off, off, line, col, line, col);
  }
  // tokenizer.c syntaxerror(): reported at the character before the cursor.
  TokenKind syntax_error(std::string message, const char* code = k_code_token) {
    int32_t c = static_cast<int32_t>(prev_char_offset() - m_line_start);
    return fail(code, std::move(message), m_line, c, m_line, c);
  }
  void warn(std::string message, int32_t line, int32_t col) {
    Diagnostic d;
    d.severity = Severity::Warning;
    d.line = d.end_line = line;
    d.col = d.end_col = col;
    d.code = k_code_token;
    d.message = std::move(message);
    m_out.diagnostics.push_back(std::move(d));
  }

  // ---- tokenizer -------------------------------------------------------------------------
  TokenKind get_normal(Mode& mode);
  TokenKind get_fstring(Mode& mode);
  TokenKind number(int c);
  TokenKind string_literal(int quote);
  TokenKind fstring_start(int quote);
  // Every NAME token goes through it: inlined into get_normal (lexer.cpp), as it was while the
  // class had internal linkage (2-3% of parse time on the stdlib).
  __attribute__((always_inline)) TokenKind name_or_keyword(int c);
  TokenKind indent_error_tabs();
  int continuation_line();
  bool verify_end_of_number(int c, const char* kind);
  bool lookahead(const char* test);
  int decimal_tail();
  bool verify_identifier(uint32_t begin);

  const char* m_s;
  uint32_t m_size;
  uint32_t m_end = 0;  // m_size, plus one for the virtual final newline
  bool m_has_cr = false;

  uint32_t m_cur = 0;  // cursor
  uint32_t m_inp = 0;  // end of the current line (after its newline)
  uint32_t m_line_start = 0;
  int32_t m_line = 0;
  bool m_eof = false;  // E_EOF
  bool m_failed = false;

  uint32_t m_start = 0;     // tok->start
  int32_t m_start_col = 0;  // tok->starting_col_offset
  int32_t m_first_lineno = 0;
  uint32_t m_multi_line_start = 0;

  bool m_atbol = true;
  int m_pendin = 0;
  int m_indent = 0;
  std::array<int, k_max_indent> m_indstack{};
  std::array<int, k_max_indent> m_altindstack{};

  int m_level = 0;
  std::array<char, k_max_level> m_parenstack{};
  std::array<int32_t, k_max_level> m_paren_line{};
  std::array<int32_t, k_max_level> m_paren_col{};

  std::array<Mode, k_max_fstring_level> m_modes{};
  int m_mode_index = 0;

  TokenStream m_out;
};

}  // namespace qd::syntax::lexer_detail
