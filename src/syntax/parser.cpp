// Entry points of the parser, error reporting and the choice of the error CPython would report.
#include "syntax/parser.hpp"

#include <algorithm>

#include "support/file_io.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser_impl.hpp"
#include "syntax/unicode.hpp"

namespace qd::syntax {

bool ParseResult::ok() const {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

Parser::Parser(std::string_view text, const std::vector<Token>& tokens, support::Arena& arena)
    : m_text(text), m_tokens(tokens), m_arena(arena) {
  m_scratch.reserve(256);
}

const Token& Parser::expect(TokenKind k) {
  if (!at(k)) {
    fail_invalid_syntax();
  }
  return advance();
}

const Token& Parser::expect(TokenKind k, const char* message) {
  if (!at(k)) {
    if (at(TokenKind::Error)) {
      fail_invalid_syntax();
    }
    // CPython reports "expected ':'" at the previous token's end.
    fail_range(m_prev_line, m_prev_col, m_prev_line, m_prev_col + 1, message);
  }
  return advance();
}

ast::Identifier Parser::identifier(const Token& t) {
  std::string_view s = text_of(t);
  if ((t.flags & k_flag_non_ascii) == 0) {
    return s;
  }
  std::string n = nfkc(s);
  if (n == s) {
    return s;
  }
  return m_arena.copy(n);
}

ast::Name* Parser::name_node(const Token& t, ast::ExprContext ctx) {
  auto* n = make<ast::Name>(token_pos(t));
  n->id = identifier(t);
  n->ctx = ctx;
  return n;
}

void Parser::fail_range(int32_t line, int32_t col, int32_t end_line, int32_t end_col,
                        std::string message, const char* code) {
  if (!m_speculating) {
    if (m_first_error_token == SIZE_MAX) {
      m_first_error_token = m_pos;
    }
    Diagnostic d;
    d.severity = Severity::Error;
    d.line = line;
    d.col = col;
    d.end_line = end_line;
    d.end_col = end_col;
    d.code = code;
    d.message = std::move(message);
    m_diags.push_back(std::move(d));
  }
  throw ParseAbort{};
}

void Parser::fail_at(const Token& t, std::string message, const char* code) {
  fail_range(t.line, t.col, t.end_line, t.end_col, std::move(message), code);
}

void Parser::fail_at(const ast::Pos& p, std::string message, const char* code) {
  fail_range(p.lineno, p.col_offset, p.end_lineno, p.end_col_offset, std::move(message), code);
}

void Parser::fail_invalid_syntax() {
  const Token& t = tok();
  switch (t.kind) {
    case TokenKind::Indent: fail_at(t, "unexpected indent", k_code_indent);
    case TokenKind::Dedent: fail_at(t, "unexpected unindent", k_code_indent);
    case TokenKind::EndMarker: fail_at(t, "unexpected EOF while parsing");
    default: break;
  }
  if (!m_speculating && m_pos > 0 && ends_operand(m_tokens[m_pos - 1].kind) &&
      begins_operand(t.kind) &&
      !(m_tokens[m_pos - 1].kind == TokenKind::Name && t.kind == TokenKind::String) &&
      bracket_depth() > 0) {
    // CPython's invalid_expression: two expressions side by side inside brackets.
    const Token& prev = m_tokens[m_pos - 1];
    fail_range(prev.line, prev.col, t.end_line, t.end_col,
               "invalid syntax. Perhaps you forgot a comma?");
  }
  if (t.kind == TokenKind::Newline) {
    // CPython points at the NEWLINE token, which starts where the line's text ends.
    fail_range(t.line, t.col, t.line, t.col + 1, "invalid syntax");
  }
  fail_at(t, "invalid syntax");
}

bool Parser::ends_operand(TokenKind k) {
  switch (k) {
    case TokenKind::Name:
    case TokenKind::Number:
    case TokenKind::String:
    case TokenKind::FStringEnd:
    case TokenKind::RPar:
    case TokenKind::RSqb:
    case TokenKind::RBrace:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNone:
    case TokenKind::Ellipsis: return true;
    default: return false;
  }
}

bool Parser::begins_operand(TokenKind k) {
  switch (k) {
    case TokenKind::Name:
    case TokenKind::Number:
    case TokenKind::String:
    case TokenKind::FStringStart:
    case TokenKind::LPar:
    case TokenKind::LSqb:
    case TokenKind::LBrace:
    case TokenKind::Tilde:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNone:
    case TokenKind::KwLambda:
    case TokenKind::KwNot:
    case TokenKind::KwAwait:
    case TokenKind::Ellipsis: return true;
    default: return false;
  }
}

int Parser::bracket_depth() const {
  int depth = 0;
  for (size_t i = 0; i < m_pos; ++i) {
    switch (m_tokens[i].kind) {
      case TokenKind::LPar:
      case TokenKind::LSqb:
      case TokenKind::LBrace: ++depth; break;
      case TokenKind::RPar:
      case TokenKind::RSqb:
      case TokenKind::RBrace: --depth; break;
      case TokenKind::Newline:
        depth = 0;  // a logical line ended: no bracket is open
        break;
      default: break;
    }
  }
  return depth;
}

void Parser::warn_at(const Token& t, std::string message) {
  if (m_speculating) {
    return;
  }
  Diagnostic d;
  d.severity = Severity::Warning;
  d.line = t.line;
  d.col = t.col;
  d.end_line = t.end_line;
  d.end_col = t.end_col;
  d.code = k_code_syntax;
  d.message = std::move(message);
  m_diags.push_back(std::move(d));
}

void Parser::too_deep() {
  fail_at(tok(),
          "source too complex to parse: expressions nested deeper than " +
              std::to_string(k_max_depth) + " levels",
          k_code_limit);
}

ast::Module* Parser::parse_module() {
  auto* m = make<ast::Module>();
  size_t mk = mark();
  parse_statements_until(TokenKind::EndMarker, mk);
  m->body = take<ast::Stmt>(mk);
  return m;
}

namespace {

bool is_unclosed_bracket_error(const Diagnostic& d) {
  return d.message.ends_with("' was never closed");
}

// CPython reports the parser's error unless the tokenizer fails somewhere in the file: a
// tokenizer error at or before the parser's error always wins; a later one wins too (CPython
// tokenizes the rest of the file to look for one), except an unclosed bracket opened after the
// line of the parser's error.
// `parser_error_token` / `lexer_error_token`: token indexes of the first errors (SIZE_MAX: none).
void order_errors(std::vector<Diagnostic>& parser_diags, size_t parser_error_token,
                  int32_t parser_error_line, const std::vector<Diagnostic>& lexer_diags,
                  size_t lexer_error_token, std::vector<Diagnostic>& out) {
  const Diagnostic* lex_err = nullptr;
  for (const auto& d : lexer_diags) {
    if (d.severity == Severity::Error) {
      lex_err = &d;
      break;
    }
  }
  const Diagnostic* parse_err = nullptr;
  for (const auto& d : parser_diags) {
    if (d.severity == Severity::Error) {
      parse_err = &d;
      break;
    }
  }
  bool lexer_first = false;
  if (lex_err != nullptr) {
    if (parse_err == nullptr || parser_error_token >= lexer_error_token) {
      lexer_first = true;
    } else if (!is_unclosed_bracket_error(*lex_err)) {
      lexer_first = true;
    } else {
      // CPython compares with the line of the furthest token the parser read, not with the
      // line of the error it reports (a "forgot a comma" range can start lines earlier).
      lexer_first = lex_err->line < parser_error_line;
    }
  }
  if (lexer_first) {
    out.push_back(*lex_err);
    for (auto& d : parser_diags) {
      // Errors the parser found before the tokenizer's error position are real too.
      if (d.severity != Severity::Error || d.line < lex_err->line) {
        out.push_back(std::move(d));
      }
    }
  } else {
    for (auto& d : parser_diags) {
      out.push_back(std::move(d));
    }
    if (lex_err != nullptr) {
      out.push_back(*lex_err);
    }
  }
  for (const auto& d : lexer_diags) {
    if (d.severity != Severity::Error) {
      out.push_back(d);
    }
  }
  std::vector<Diagnostic> ordered;
  ordered.reserve(out.size());
  for (auto& d : out) {
    if (d.severity == Severity::Error) {
      ordered.push_back(std::move(d));
    }
  }
  for (auto& d : out) {
    if (d.severity != Severity::Error) {
      ordered.push_back(std::move(d));
    }
  }
  out = std::move(ordered);
}

}  // namespace

std::unique_ptr<ParseResult> parse_bytes(std::string path, std::string bytes) {
  auto r = std::make_unique<ParseResult>(
      ParseResult{SourceFile::from_bytes(std::move(path), std::move(bytes)), {}, nullptr, {}});
  if (!r->source.ok()) {
    r->diagnostics = r->source.diagnostics();
    r->module = r->arena.make<ast::Module>();
    r->module->tag = ast::ModKind::Module;
    return r;
  }
  TokenStream ts = tokenize(r->source.text());
  Parser p(r->source.text(), ts.tokens, r->arena);
  r->module = p.parse_module();
  size_t lexer_error_token = SIZE_MAX;
  for (size_t i = 0; i < ts.tokens.size(); ++i) {
    if (ts.tokens[i].kind == TokenKind::Error) {
      lexer_error_token = i;
      break;
    }
  }
  int32_t parser_error_line =
      p.m_first_error_token < ts.tokens.size() ? ts.tokens[p.m_first_error_token].line : 0;
  order_errors(p.diagnostics(), p.m_first_error_token, parser_error_line, ts.diagnostics,
               lexer_error_token, r->diagnostics);
  return r;
}

std::unique_ptr<ParseResult> parse_file(const std::string& path) {
  std::string bytes;
  std::string error;
  if (!support::read_file(path, bytes, error)) {
    auto r = std::make_unique<ParseResult>(
        ParseResult{SourceFile::from_bytes(path, ""), {}, nullptr, {}});
    Diagnostic d;
    d.line = 1;
    d.code = k_code_io;
    d.message = error;
    r->diagnostics.push_back(std::move(d));
    r->module = r->arena.make<ast::Module>();
    r->module->tag = ast::ModKind::Module;
    return r;
  }
  return parse_bytes(path, std::move(bytes));
}

}  // namespace qd::syntax
