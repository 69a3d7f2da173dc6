// The Python 3.12 tokenizer. It follows CPython's Parser/tokenizer.c step by step (same state
// machine, same cursor movements), so that token positions and error positions agree with what
// CPython's parser sees. Differences from the C code:
//  * the text is not copied or newline-translated: "\r\n" and a lone "\r" are read as one '\n'
//    by next_char(), and a missing final newline is a virtual '\n' at text.size();
//  * hot paths (names, blanks, string bodies) scan bytes of the current line directly.
#include "syntax/lexer.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>

#include "support/utf8.hpp"
#include "syntax/unicode.hpp"

namespace qd::syntax {
namespace {

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
constexpr std::array<uint8_t, 256> k_char_class = make_char_classes();

inline bool is_digit(int c) { return c >= '0' && c <= '9'; }
inline bool is_xdigit(int c) {
  return c >= 0 && (k_char_class[static_cast<uint8_t>(c)] & k_cc_xdigit);
}
inline bool is_ident_char(int c) {
  return c >= 0 && (k_char_class[static_cast<uint8_t>(c)] & k_cc_ident);
}
inline bool is_ident_start(int c) { return is_ident_char(c) && !is_digit(c); }

TokenKind keyword_kind(const char* s, size_t n) {
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
TokenKind one_char(int c) {
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

TokenKind two_chars(int c1, int c2) {
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

TokenKind three_chars(int c1, int c2, int c3) {
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

std::string hex_code_point(uint32_t cp) {
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
  TokenKind name_or_keyword(int c);
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

}  // namespace

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
