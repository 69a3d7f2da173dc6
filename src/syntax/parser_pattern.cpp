// Patterns of match statements (python.gram "Pattern matching").
#include <string>

#include "syntax/parser_impl.hpp"

namespace qd::syntax {

using namespace ast;
using K = TokenKind;

namespace {

MatchAs* capture(Parser& p, const Token& t) {
  auto* m = p.make<MatchAs>(Parser::token_pos(t));
  if (p.text_of(t) != "_") {
    m->name = p.identifier(t);
  }
  return m;
}

}  // namespace

Pattern* Parser::parse_patterns() {
  // open_sequence_pattern: maybe_star_pattern ',' maybe_sequence_pattern? | pattern
  const Token& start = tok();
  Pattern* first = at(K::Star) ? parse_closed_pattern() : parse_as_pattern();
  if (!at(K::Comma) && first->tag != PatternKind::MatchStar) {
    return first;
  }
  size_t mk = mark();
  push(first);
  while (accept(K::Comma)) {
    if (at(K::Colon) || at(K::KwIf)) {
      break;
    }
    push(at(K::Star) ? parse_closed_pattern() : parse_as_pattern());
  }
  auto* s = make<MatchSequence>();
  s->patterns = take<Pattern>(mk);
  s->pos = span(start);
  return s;
}

Pattern* Parser::parse_as_pattern() {
  DepthGuard guard(*this);
  const Token& start = tok();
  Pattern* p = parse_or_pattern();
  if (!accept(K::KwAs)) {
    return p;
  }
  if (!at(K::Name)) {
    fail_invalid_syntax();
  }
  const Token& n = tok();
  if (text_of(n) == "_") {
    fail_at(n, "cannot use '_' as a target");
  }
  advance();
  auto* m = make<MatchAs>();
  m->pattern = p;
  m->name = identifier(n);
  m->pos = span(start);
  return m;
}

Pattern* Parser::parse_or_pattern() {
  const Token& start = tok();
  Pattern* first = parse_closed_pattern();
  if (!at(K::VBar)) {
    return first;
  }
  size_t mk = mark();
  push(first);
  while (accept(K::VBar)) {
    push(parse_closed_pattern());
  }
  auto* o = make<MatchOr>();
  o->patterns = take<Pattern>(mk);
  o->pos = span(start);
  return o;
}

Expr* Parser::parse_signed_number_or_complex() {
  // signed_number | complex_number: '-'? NUMBER (('+'|'-') NUMBER)?
  const Token& start = tok();
  Expr* e;
  if (at(K::Minus)) {
    advance();
    if (!at(K::Number)) {
      fail_invalid_syntax();
    }
    auto* u = make<UnaryOp>();
    u->op = UnaryOperator::USub;
    u->operand = parse_atom();
    u->pos = span(start);
    e = u;
  } else {
    e = parse_atom();
  }
  if (at(K::Plus) || at(K::Minus)) {
    Operator op = at(K::Plus) ? Operator::Add : Operator::Sub;
    advance();
    if (!at(K::Number)) {
      fail_invalid_syntax();
    }
    Expr* imag = parse_atom();
    if (static_cast<Constant*>(imag)->value.kind != ConstantValue::Kind::Complex) {
      fail_at(imag->pos, "imaginary number required in complex literal");
    }
    auto* b = make<BinOp>();
    b->left = e;
    b->op = op;
    b->right = imag;
    b->pos = span(start);
    e = b;
  }
  return e;
}

Expr* Parser::parse_pattern_value_name() {
  // name_or_attr: NAME ('.' NAME)*
  const Token& start = tok();
  Expr* e = name_node(advance(), ExprContext::Load);
  while (at(K::Dot)) {
    advance();
    if (!at(K::Name)) {
      fail_invalid_syntax();
    }
    auto* a = make<Attribute>();
    a->value = e;
    a->attr = identifier(advance());
    a->ctx = ExprContext::Load;
    a->pos = span(start);
    e = a;
  }
  return e;
}

Pattern* Parser::parse_closed_pattern() {
  DepthGuard guard(*this);
  const Token& start = tok();
  switch (start.kind) {
    case K::Star: {
      advance();
      if (!at(K::Name)) {
        fail_invalid_syntax();
      }
      const Token& n = advance();
      auto* s = make<MatchStar>(span(start));
      if (text_of(n) != "_") {
        s->name = identifier(n);
      }
      return s;
    }
    case K::Number:
    case K::Minus: {
      auto* v = make<MatchValue>();
      v->value = parse_signed_number_or_complex();
      v->pos = v->value->pos;
      return v;
    }
    case K::String:
    case K::FStringStart: {
      auto* v = make<MatchValue>();
      v->value = parse_strings();
      if (v->value->tag == ExprKind::JoinedStr) {
        fail_at(v->value->pos, "patterns may only match literals and attribute lookups");
      }
      v->pos = v->value->pos;
      return v;
    }
    case K::KwNone:
    case K::KwTrue:
    case K::KwFalse: {
      advance();
      auto* s = make<MatchSingleton>(span(start));
      s->value.kind = start.kind == K::KwNone   ? ConstantValue::Kind::None
                      : start.kind == K::KwTrue ? ConstantValue::Kind::True
                                                : ConstantValue::Kind::False;
      return s;
    }
    case K::Name: {
      if (peek().kind != K::Dot && peek().kind != K::LPar) {
        advance();
        return capture(*this, start);
      }
      Expr* cls = parse_pattern_value_name();
      if (!at(K::LPar)) {
        auto* v = make<MatchValue>();
        v->value = cls;
        v->pos = cls->pos;
        return v;
      }
      advance();  // '('
      size_t pos_mk = mark();
      std::vector<Identifier> kwd_attrs;
      std::vector<Pattern*> kwd_patterns;
      while (!at(K::RPar)) {
        if (at(K::Name) && peek().kind == K::Equal) {
          kwd_attrs.push_back(identifier(advance()));
          advance();
          kwd_patterns.push_back(parse_as_pattern());
        } else {
          Pattern* p = parse_as_pattern();
          if (!kwd_attrs.empty()) {
            fail_at(p->pos, "positional patterns follow keyword patterns");
          }
          push(p);
        }
        if (!accept(K::Comma)) {
          break;
        }
      }
      expect(K::RPar);
      auto* c = make<MatchClass>();
      c->cls = cls;
      c->patterns = take<Pattern>(pos_mk);
      c->kwd_attrs = copy_seq(kwd_attrs);
      c->kwd_patterns = copy_seq(kwd_patterns);
      c->pos = span(start);
      return c;
    }
    case K::LPar:
    case K::LSqb: {
      bool paren = start.kind == K::LPar;
      TokenKind close = paren ? K::RPar : K::RSqb;
      advance();
      if (accept(close)) {
        return make<MatchSequence>(span(start));
      }
      Pattern* first = at(K::Star) ? parse_closed_pattern() : parse_as_pattern();
      if (paren && at(K::RPar) && first->tag != PatternKind::MatchStar) {
        advance();  // a group pattern: the parentheses are not part of the node
        return first;
      }
      size_t mk = mark();
      push(first);
      while (accept(K::Comma)) {
        if (at(close)) {
          break;
        }
        push(at(K::Star) ? parse_closed_pattern() : parse_as_pattern());
      }
      expect(close);
      auto* s = make<MatchSequence>();
      s->patterns = take<Pattern>(mk);
      s->pos = span(start);
      return s;
    }
    case K::LBrace: {
      advance();
      std::vector<Expr*> keys;
      size_t mk = mark();
      Identifier rest{};
      while (!at(K::RBrace)) {
        if (accept(K::DoubleStar)) {
          if (!at(K::Name)) {
            fail_invalid_syntax();
          }
          rest = identifier(advance());
          accept(K::Comma);
          if (!at(K::RBrace)) {
            fail_at(tok(), "invalid syntax");
          }
          break;
        }
        const Token& kt = tok();
        Expr* key;
        switch (kt.kind) {
          case K::Number:
          case K::Minus: key = parse_signed_number_or_complex(); break;
          case K::String:
          case K::FStringStart: key = parse_strings(); break;
          case K::KwNone:
          case K::KwTrue:
          case K::KwFalse: key = parse_atom(); break;
          case K::Name:
            key = parse_pattern_value_name();
            if (key->tag == ExprKind::Name) {
              fail_invalid_syntax();
            }
            break;
          default: fail_invalid_syntax();
        }
        keys.push_back(key);
        expect(K::Colon);
        push(parse_as_pattern());
        if (!accept(K::Comma)) {
          break;
        }
      }
      expect(K::RBrace);
      auto* m = make<MatchMapping>();
      m->keys = copy_seq(keys);
      m->patterns = take<Pattern>(mk);
      m->rest = rest;
      m->pos = span(start);
      return m;
    }
    default: fail_invalid_syntax();
  }
}

}  // namespace qd::syntax
