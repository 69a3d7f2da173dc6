// String literals, implicit concatenation and PEP 701 f-strings, reproducing CPython 3.12's
// action helpers (_PyPegen_concatenate_strings, _PyPegen_joined_str, _PyPegen_formatted_value).
#include <string>
#include <vector>

#include "syntax/literal_decode.hpp"
#include "syntax/parser_impl.hpp"

namespace qd::syntax {

using namespace ast;
using K = TokenKind;

namespace {

struct Prefix {
  bool raw = false;
  bool bytes = false;
  bool unicode = false;
  size_t quote_len = 1;  // 1 or 3
  size_t prefix_len = 0;
};

Prefix read_prefix(std::string_view text) {
  Prefix p;
  size_t i = 0;
  while (i < text.size() && text[i] != '\'' && text[i] != '"') {
    char c = text[i];
    if (c == 'r' || c == 'R') {
      p.raw = true;
    } else if (c == 'b' || c == 'B') {
      p.bytes = true;
    } else if (c == 'u' || c == 'U') {
      p.unicode = true;
    }
    ++i;
  }
  p.prefix_len = i;
  if (i + 2 < text.size() && text[i + 1] == text[i] && text[i + 2] == text[i]) {
    p.quote_len = 3;
  }
  return p;
}

bool is_empty_str(const Expr* e) {
  if (e->tag != ExprKind::Constant) {
    return false;
  }
  const auto& v = static_cast<const Constant*>(e)->value;
  return v.kind == ConstantValue::Kind::Str && v.text.empty();
}

}  // namespace

namespace {

// Reports decoding problems of a literal: warnings stay warnings, the first error aborts.
class LiteralReporter {
public:
  explicit LiteralReporter(Parser& p) : m_p(p) {}
  void report(const Token& t, std::vector<LiteralProblem>& problems, bool ok) {
    for (auto& pr : problems) {
      if (pr.is_error) {
        m_p.fail_at(t, pr.message, k_code_token);
      }
      m_p.warn_at(t, pr.message);
    }
    problems.clear();
    if (!ok) {
      m_p.fail_at(t, "invalid string literal", k_code_token);
    }
  }

private:
  Parser& m_p;
};

}  // namespace

// One f-string: FSTRING_START (middle | replacement field)* FSTRING_END -> JoinedStr.
static Expr* parse_fstring(Parser& p);

static Expr* parse_replacement_field(Parser& p, bool is_raw) {
  Parser::DepthGuard guard(p);
  const Token& lbrace = p.expect(K::LBrace);
  Expr* value;
  if (p.at(K::KwYield)) {
    value = p.parse_yield_expr();
  } else {
    if (p.at(K::RBrace)) {
      p.fail_at(p.tok(), "f-string: valid expression required before '}'");
    }
    value = p.parse_star_expressions();
  }
  bool debug = false;
  std::string_view debug_text;
  if (p.at(K::Equal)) {
    p.advance();
    debug = true;
    debug_text = p.m_text.substr(lbrace.end, p.tok().begin - lbrace.end);
    if (debug_text.find('#') != std::string_view::npos) {
      // CPython's tokenizer drops every '#'..end-of-line run from the debug text (even one
      // inside a string literal of the expression).
      std::string stripped;
      for (size_t i = 0; i < debug_text.size(); ++i) {
        if (debug_text[i] == '#') {
          while (i < debug_text.size() && debug_text[i] != '\n') {
            ++i;
          }
          if (i < debug_text.size()) {
            stripped += '\n';
          }
        } else {
          stripped += debug_text[i];
        }
      }
      debug_text = p.m_arena.copy(stripped);
    }
  }
  int32_t conversion = -1;
  const Token* conv_tok = nullptr;
  if (p.at(K::Exclamation)) {
    const Token& bang = p.advance();
    if (!p.at(K::Name)) {
      p.fail_at(p.tok(), "f-string: missing conversion character");
    }
    const Token& name = p.tok();
    if (name.begin != bang.end) {
      p.fail_at(name, "f-string: conversion type must come right after the exclamanation mark");
    }
    std::string_view c = p.text_of(name);
    if (c != "s" && c != "r" && c != "a") {
      p.fail_at(name, "f-string: invalid conversion character '" + std::string(c) +
                          "': expected 's', 'r', or 'a'");
    }
    p.advance();
    conversion = c[0];
    conv_tok = &name;
  }
  JoinedStr* spec = nullptr;
  if (p.at(K::Colon)) {
    const Token& colon = p.advance();
    size_t mk = p.mark();
    while (!p.at(K::RBrace)) {
      if (p.at(K::FStringMiddle)) {
        const Token& t = p.advance();
        auto* c = p.make<Constant>(Parser::token_pos(t));
        c->value.kind = ConstantValue::Kind::Str;
        std::string out;
        std::vector<LiteralProblem> problems;
        bool ok = decode_fstring_part(p.text_of(t), false, out, problems);
        LiteralReporter(p).report(t, problems, ok);
        c->value.text = p.m_arena.copy(out);
        p.push(c);
      } else if (p.at(K::LBrace)) {
        p.push(parse_replacement_field(p, is_raw));
      } else {
        p.fail_invalid_syntax();
      }
    }
    spec = p.make<JoinedStr>(p.span(colon));
    spec->values = p.take<Expr>(mk);
    if (spec->values.size == 1 && is_empty_str(spec->values[0])) {
      spec->values = {};
    }
  }
  if (!p.at(K::RBrace)) {
    if (p.at(K::Error)) {
      p.fail_invalid_syntax();
    }
    p.fail_at(p.tok(), "f-string: expecting '}'");
  }
  p.advance();
  auto* fv = p.make<FormattedValue>(p.span(lbrace));
  fv->value = value;
  fv->format_spec = spec;
  fv->conversion = conversion;
  if (!debug) {
    return fv;
  }
  if (conversion == -1 && spec == nullptr) {
    fv->conversion = 'r';
  }
  int32_t end_line;
  int32_t end_col;
  if (conv_tok != nullptr) {
    end_line = conv_tok->line;
    end_col = conv_tok->col;
  } else if (spec != nullptr) {
    end_line = spec->pos.lineno;
    end_col = spec->pos.col_offset + 1;
  } else {
    end_line = fv->pos.end_lineno;
    end_col = fv->pos.end_col_offset;
  }
  auto* text = p.make<Constant>(Pos{fv->pos.lineno, fv->pos.col_offset + 1, end_line, end_col - 1});
  text->value.kind = ConstantValue::Kind::Str;
  text->value.text = debug_text;
  auto* js = p.make<JoinedStr>(Pos{fv->pos.lineno, fv->pos.col_offset, end_line, end_col});
  size_t mk = p.mark();
  p.push(text);
  p.push(fv);
  js->values = p.take<Expr>(mk);
  return js;
}

static Expr* parse_fstring(Parser& p) {
  const Token& start = p.advance();  // FSTRING_START
  Prefix prefix = read_prefix(p.text_of(start));
  size_t mk = p.mark();
  while (!p.at(K::FStringEnd)) {
    if (p.at(K::FStringMiddle)) {
      const Token& t = p.advance();
      std::string_view raw = p.text_of(t);
      bool is_raw = prefix.raw || raw.find('\\') == std::string_view::npos;
      std::string out;
      std::vector<LiteralProblem> problems;
      bool ok = decode_fstring_part(raw, is_raw, out, problems);
      LiteralReporter(p).report(t, problems, ok);
      if (out.empty()) {
        continue;  // the tokenizer emits parts that decode to nothing (e.g. "\\\n")
      }
      auto* c = p.make<Constant>(Parser::token_pos(t));
      c->value.kind = ConstantValue::Kind::Str;
      c->value.text = out == raw ? raw : p.m_arena.copy(out);
      p.push(c);
    } else if (p.at(K::LBrace)) {
      Expr* e = parse_replacement_field(p, prefix.raw);
      if (e->tag == ExprKind::JoinedStr) {
        // A debug field `{x=}` contributes its text and its value (unpack_top_level_joined_strs).
        for (Expr* v : static_cast<JoinedStr*>(e)->values) {
          p.push(v);
        }
      } else {
        p.push(e);
      }
    } else {
      p.fail_invalid_syntax();
    }
  }
  p.advance();  // FSTRING_END
  auto* js = p.make<JoinedStr>(p.span(start));
  js->values = p.take<Expr>(mk);
  return js;
}

Expr* Parser::parse_strings() {
  const Token& start = tok();
  size_t mk = mark();
  bool fstring_found = false;
  bool bytes_found = false;
  bool str_found = false;
  size_t count = 0;
  LiteralReporter reporter(*this);
  while (at(K::String) || at(K::FStringStart)) {
    ++count;
    if (at(K::FStringStart)) {
      push(parse_fstring(*this));
      fstring_found = true;
      continue;
    }
    const Token& t = advance();
    std::string_view text = text_of(t);
    Prefix pre = read_prefix(text);
    size_t open = pre.prefix_len + pre.quote_len;
    std::string_view body = text.substr(open, text.size() - open - pre.quote_len);
    auto* c = make<Constant>(token_pos(t));
    std::vector<LiteralProblem> problems;
    if (pre.bytes) {
      bytes_found = true;
      std::string out;
      bool ok = decode_bytes_literal(body, pre.raw, out, problems);
      reporter.report(t, problems, ok);
      c->value.kind = ConstantValue::Kind::Bytes;
      c->value.text = out == body ? body : m_arena.copy(out);
    } else {
      str_found = true;
      c->value.kind = ConstantValue::Kind::Str;
      if (pre.raw || body.find('\\') == std::string_view::npos) {
        c->value.text = body;
      } else {
        std::string out;
        bool ok = decode_str_literal(body, pre.raw, out, problems);
        reporter.report(t, problems, ok);
        c->value.text = m_arena.copy(out);
      }
      if (pre.unicode) {
        c->kind = OptString{"u", true};
      }
    }
    push(c);
  }
  Pos whole = span(start);
  if ((str_found || fstring_found) && bytes_found) {
    m_scratch.resize(mk);
    fail_at(whole, "cannot mix bytes and nonbytes literals");
  }
  if (count == 1 && !fstring_found) {
    Expr* only = static_cast<Expr*>(m_scratch[mk]);
    m_scratch.resize(mk);
    return only;
  }
  if (bytes_found) {
    std::string all;
    auto* first = static_cast<Constant*>(m_scratch[mk]);
    for (size_t i = mk; i < m_scratch.size(); ++i) {
      all += static_cast<Constant*>(m_scratch[i])->value.text;
    }
    m_scratch.resize(mk);
    auto* c = make<Constant>(whole);
    c->value.kind = ConstantValue::Kind::Bytes;
    c->value.text = m_arena.copy(all);
    c->kind = first->kind;
    return c;
  }
  // Flatten f-strings into their parts, then fold runs of constants (CPython's
  // _PyPegen_concatenate_strings; empty constants are dropped when an f-string is present).
  std::vector<Expr*> flat;
  for (size_t i = mk; i < m_scratch.size(); ++i) {
    auto* e = static_cast<Expr*>(m_scratch[i]);
    if (e->tag == ExprKind::JoinedStr) {
      for (Expr* v : static_cast<JoinedStr*>(e)->values) {
        flat.push_back(v);
      }
    } else {
      flat.push_back(e);
    }
  }
  m_scratch.resize(mk);
  for (size_t i = 0; i < flat.size(); ++i) {
    Expr* e = flat[i];
    if (e->tag == ExprKind::Constant) {
      if (i + 1 < flat.size() && flat[i + 1]->tag == ExprKind::Constant) {
        auto* first = static_cast<Constant*>(e);
        Constant* last = first;
        std::string joined;
        size_t j = i;
        for (; j < flat.size() && flat[j]->tag == ExprKind::Constant; ++j) {
          last = static_cast<Constant*>(flat[j]);
          joined += last->value.text;
        }
        i = j - 1;
        auto* c = make<Constant>(Pos{first->pos.lineno, first->pos.col_offset, last->pos.end_lineno,
                                     last->pos.end_col_offset});
        c->value.kind = ConstantValue::Kind::Str;
        c->value.text = m_arena.copy(joined);
        c->kind = first->kind;
        e = c;
      }
      if (fstring_found && is_empty_str(e)) {
        continue;
      }
    }
    push(e);
  }
  if (!fstring_found) {
    Expr* only = static_cast<Expr*>(m_scratch[mk]);
    m_scratch.resize(mk);
    return only;
  }
  auto* js = make<JoinedStr>(whole);
  js->values = take<Expr>(mk);
  return js;
}

}  // namespace qd::syntax
