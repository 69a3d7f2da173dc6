// Expressions (python.gram "EXPRESSIONS" .. "PRIMARY ELEMENTS"), calls, comprehensions, lambdas.
#include <string>

#include "syntax/number_literal.hpp"
#include "syntax/parser_impl.hpp"

namespace qd::syntax {

using namespace ast;
using K = TokenKind;

namespace {

bool starts_expression(TokenKind k) {
  switch (k) {
    case K::Name:
    case K::Number:
    case K::String:
    case K::FStringStart:
    case K::LPar:
    case K::LSqb:
    case K::LBrace:
    case K::Minus:
    case K::Plus:
    case K::Tilde:
    case K::Star:
    case K::KwNot:
    case K::KwLambda:
    case K::KwAwait:
    case K::KwNone:
    case K::KwTrue:
    case K::KwFalse:
    case K::Ellipsis: return true;
    default: return false;
  }
}

}  // namespace

// ---- tuples, starred, named ---------------------------------------------------------------------

Expr* Parser::parse_tuple_chain(Expr* (Parser::*next)()) {
  const Token& start = tok();
  Expr* e = (this->*next)();
  if (!at(K::Comma)) {
    return e;
  }
  size_t mk = mark();
  push(e);
  while (accept(K::Comma)) {
    if (!starts_expression(kind())) {
      break;
    }
    push((this->*next)());
  }
  auto* t = make<Tuple>();
  t->elts = take<Expr>(mk);
  t->ctx = ExprContext::Load;
  t->pos = span(start);
  return t;
}

Expr* Parser::parse_star_expressions() { return parse_tuple_chain(&Parser::parse_star_expression); }

Expr* Parser::parse_expressions() { return parse_tuple_chain(&Parser::parse_expression); }

Expr* Parser::parse_starred_or(Expr* (Parser::*next)()) {
  if (!at(K::Star)) {
    return (this->*next)();
  }
  const Token& start = advance();
  auto* s = make<Starred>();
  s->value = parse_bitwise_or();
  s->ctx = ExprContext::Load;
  s->pos = span(start);
  return s;
}

Expr* Parser::parse_star_expression() { return parse_starred_or(&Parser::parse_expression); }

Expr* Parser::parse_star_named_expression() {
  return parse_starred_or(&Parser::parse_named_expression);
}

Expr* Parser::parse_named_expression() {
  if (at(K::Name) && peek().kind == K::ColonEqual) {
    const Token& start = tok();
    Name* target = name_node(advance(), ExprContext::Store);
    advance();
    auto* n = make<NamedExpr>();
    n->target = target;
    n->value = parse_expression();
    n->pos = span(start);
    return n;
  }
  Expr* e = parse_expression();
  if (at(K::ColonEqual)) {
    fail_at(e->pos, std::string("cannot use assignment expressions with ") + describe_expr(e));
  }
  return e;
}

Expr* Parser::parse_yield_expr() {
  const Token& start = advance();  // 'yield'
  if (accept(K::KwFrom)) {
    auto* y = make<YieldFrom>();
    y->value = parse_expression();
    y->pos = span(start);
    return y;
  }
  auto* y = make<Yield>();
  if (starts_expression(kind())) {
    y->value = parse_star_expressions();
  }
  y->pos = span(start);
  return y;
}

// ---- the operator precedence chain --------------------------------------------------------------

Expr* Parser::parse_expression() {
  DepthGuard guard(*this);
  if (at(K::KwLambda)) {
    return parse_lambda();
  }
  const Token& start = tok();
  Expr* e = parse_disjunction();
  if (!at(K::KwIf)) {
    return e;
  }
  advance();
  auto* x = make<IfExp>();
  x->body = e;
  x->test = parse_disjunction();
  if (!at(K::KwElse)) {
    if (at(K::Colon) || at(K::Error)) {
      fail_invalid_syntax();
    }
    fail_range(start.line, start.col, m_prev_line, m_prev_col,
               "expected 'else' after 'if' expression");
  }
  advance();
  x->orelse = parse_expression();
  x->pos = span(start);
  return x;
}

Expr* Parser::parse_bool_chain(TokenKind sep, BoolOperator op, Expr* (Parser::*next)()) {
  const Token& start = tok();
  Expr* e = (this->*next)();
  if (!at(sep)) {
    return e;
  }
  size_t mk = mark();
  push(e);
  while (accept(sep)) {
    push((this->*next)());
  }
  auto* b = make<BoolOp>();
  b->op = op;
  b->values = take<Expr>(mk);
  b->pos = span(start);
  return b;
}

Expr* Parser::parse_disjunction() {
  return parse_bool_chain(K::KwOr, BoolOperator::Or, &Parser::parse_conjunction);
}

Expr* Parser::parse_conjunction() {
  return parse_bool_chain(K::KwAnd, BoolOperator::And, &Parser::parse_inversion);
}

Expr* Parser::parse_inversion() {
  if (at(K::KwNot)) {
    DepthGuard guard(*this);
    const Token& start = advance();
    auto* u = make<UnaryOp>();
    u->op = UnaryOperator::Not;
    u->operand = parse_inversion();
    u->pos = span(start);
    return u;
  }
  return parse_comparison();
}

Expr* Parser::parse_comparison() {
  const Token& start = tok();
  Expr* left = parse_bitwise_or();
  std::vector<CmpOperator> ops;
  size_t mk = mark();
  for (;;) {
    CmpOperator op;
    switch (kind()) {
      case K::EqEqual: op = CmpOperator::Eq; break;
      case K::NotEqual:
        if (text_of(tok()) == "<>") {
          fail_invalid_syntax();  // only with `from __future__ import barry_as_FLUFL`
        }
        op = CmpOperator::NotEq;
        break;
      case K::Less: op = CmpOperator::Lt; break;
      case K::LessEqual: op = CmpOperator::LtE; break;
      case K::Greater: op = CmpOperator::Gt; break;
      case K::GreaterEqual: op = CmpOperator::GtE; break;
      case K::KwIn: op = CmpOperator::In; break;
      case K::KwIs: op = peek().kind == K::KwNot ? CmpOperator::IsNot : CmpOperator::Is; break;
      case K::KwNot:
        if (peek().kind != K::KwIn) {
          goto done;
        }
        op = CmpOperator::NotIn;
        break;
      default: goto done;
    }
    if (op == CmpOperator::IsNot || op == CmpOperator::NotIn) {
      advance();
    }
    advance();
    ops.push_back(op);
    push(parse_bitwise_or());
  }
done:
  if (ops.empty()) {
    return left;
  }
  auto* c = make<Compare>();
  c->left = left;
  c->ops = copy_seq(ops);
  c->comparators = take<Expr>(mk);
  c->pos = span(start);
  return c;
}

namespace {

template <class Next>
Expr* binary_chain(Parser& p, Next next, bool (*op_of)(TokenKind, Operator&)) {
  const Token& start = p.tok();
  Expr* left = (p.*next)();
  Operator op;
  int added = 0;
  while (op_of(p.kind(), op)) {
    p.chain_link(added);
    p.advance();
    auto* b = p.make<BinOp>();
    b->left = left;
    b->op = op;
    b->right = (p.*next)();
    b->pos = p.span(start);
    left = b;
  }
  p.m_depth -= added;
  return left;
}

bool or_op(TokenKind k, Operator& op) {
  op = Operator::BitOr;
  return k == K::VBar;
}
bool xor_op(TokenKind k, Operator& op) {
  op = Operator::BitXor;
  return k == K::Circumflex;
}
bool and_op(TokenKind k, Operator& op) {
  op = Operator::BitAnd;
  return k == K::Amper;
}
bool shift_op(TokenKind k, Operator& op) {
  if (k == K::LeftShift) {
    op = Operator::LShift;
    return true;
  }
  if (k == K::RightShift) {
    op = Operator::RShift;
    return true;
  }
  return false;
}
bool sum_op(TokenKind k, Operator& op) {
  if (k == K::Plus) {
    op = Operator::Add;
    return true;
  }
  if (k == K::Minus) {
    op = Operator::Sub;
    return true;
  }
  return false;
}
bool term_op(TokenKind k, Operator& op) {
  switch (k) {
    case K::Star: op = Operator::Mult; return true;
    case K::Slash: op = Operator::Div; return true;
    case K::DoubleSlash: op = Operator::FloorDiv; return true;
    case K::Percent: op = Operator::Mod; return true;
    case K::At: op = Operator::MatMult; return true;
    default: return false;
  }
}

}  // namespace

Expr* Parser::parse_bitwise_or() { return binary_chain(*this, &Parser::parse_bitwise_xor, or_op); }
Expr* Parser::parse_bitwise_xor() {
  return binary_chain(*this, &Parser::parse_bitwise_and, xor_op);
}
Expr* Parser::parse_bitwise_and() { return binary_chain(*this, &Parser::parse_shift, and_op); }
Expr* Parser::parse_shift() { return binary_chain(*this, &Parser::parse_sum, shift_op); }
Expr* Parser::parse_sum() { return binary_chain(*this, &Parser::parse_term, sum_op); }
Expr* Parser::parse_term() { return binary_chain(*this, &Parser::parse_factor, term_op); }

Expr* Parser::parse_factor() {
  UnaryOperator op;
  switch (kind()) {
    case K::Plus: op = UnaryOperator::UAdd; break;
    case K::Minus: op = UnaryOperator::USub; break;
    case K::Tilde: op = UnaryOperator::Invert; break;
    default: return parse_power();
  }
  DepthGuard guard(*this);
  const Token& start = advance();
  auto* u = make<UnaryOp>();
  u->op = op;
  u->operand = parse_factor();
  u->pos = span(start);
  return u;
}

Expr* Parser::parse_power() {
  const Token& start = tok();
  Expr* e = parse_await_primary();
  if (!at(K::DoubleStar)) {
    return e;
  }
  DepthGuard guard(*this);
  advance();
  auto* b = make<BinOp>();
  b->left = e;
  b->op = Operator::Pow;
  b->right = parse_factor();
  b->pos = span(start);
  return b;
}

Expr* Parser::parse_await_primary() {
  if (at(K::KwAwait)) {
    DepthGuard guard(*this);
    const Token& start = advance();
    auto* a = make<Await>();
    a->value = parse_primary();
    a->pos = span(start);
    return a;
  }
  return parse_primary();
}

Expr* Parser::parse_primary() {
  const Token& start = tok();
  Expr* e = parse_atom();
  int added = 0;
  for (;;) {
    if (at(K::Dot) || at(K::LPar) || at(K::LSqb)) {
      chain_link(added);
    }
    switch (kind()) {
      case K::Dot: {
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
        break;
      }
      case K::LPar: e = parse_call(e, start); break;
      case K::LSqb: {
        DepthGuard guard(*this);
        advance();
        auto* s = make<Subscript>();
        s->value = e;
        s->slice = parse_slices();
        expect(K::RSqb);
        s->ctx = ExprContext::Load;
        s->pos = span(start);
        e = s;
        break;
      }
      default: m_depth -= added; return e;
    }
  }
}

// ---- atoms ------------------------------------------------------------------------------------

namespace {

Constant* constant(Parser& p, const Token& t, ConstantValue::Kind k) {
  auto* c = p.make<Constant>(Parser::token_pos(t));
  c->value.kind = k;
  return c;
}

}  // namespace

Expr* Parser::parse_atom() {
  const Token& t = tok();
  switch (t.kind) {
    case K::Name: advance(); return name_node(t, ExprContext::Load);
    case K::KwTrue: advance(); return constant(*this, t, ConstantValue::Kind::True);
    case K::KwFalse: advance(); return constant(*this, t, ConstantValue::Kind::False);
    case K::KwNone: advance(); return constant(*this, t, ConstantValue::Kind::None);
    case K::Ellipsis: advance(); return constant(*this, t, ConstantValue::Kind::Ellipsis);
    case K::Number: {
      advance();
      std::string_view text = text_of(t);
      Constant* c = constant(*this, t, ConstantValue::Kind::Int);
      switch (classify_number(text)) {
        case NumberKind::Int: {
          bool plain = text[0] != '0' || text.size() == 1;
          for (char ch : text) {
            plain = plain && ch >= '0' && ch <= '9';
          }
          c->value.text = plain ? text : m_arena.copy(int_literal_decimal(text));
          break;
        }
        case NumberKind::Float:
          c->value.kind = ConstantValue::Kind::Float;
          c->value.number = float_literal_value(text);
          break;
        case NumberKind::Imaginary:
          c->value.kind = ConstantValue::Kind::Complex;
          c->value.number = float_literal_value(text);
          break;
      }
      return c;
    }
    case K::String:
    case K::FStringStart: return parse_strings();
    case K::LPar: return parse_paren_atom();
    case K::LSqb: return parse_list_atom();
    case K::LBrace: return parse_brace_atom();
    default: fail_invalid_syntax();
  }
}

Expr* Parser::parse_paren_atom() {
  DepthGuard guard(*this);
  const Token& start = advance();  // '('
  if (accept(K::RPar)) {
    auto* t = make<Tuple>(span(start));
    t->ctx = ExprContext::Load;
    return t;
  }
  if (at(K::KwYield)) {
    Expr* y = parse_yield_expr();
    expect(K::RPar);
    return y;
  }
  Expr* first = parse_star_named_expression();
  if (at(K::KwFor) || at(K::KwAsync)) {
    if (first->tag == ExprKind::Starred) {
      fail_at(first->pos, "iterable unpacking cannot be used in comprehension");
    }
    auto* g = make<GeneratorExp>();
    g->elt = first;
    g->generators = parse_comprehension_clauses();
    expect(K::RPar);
    g->pos = span(start);
    return g;
  }
  if (accept(K::RPar)) {
    if (first->tag == ExprKind::Starred) {
      fail_at(first->pos, "cannot use starred expression here");
    }
    return first;
  }
  if (!at(K::Comma)) {
    fail_invalid_syntax();
  }
  size_t mk = mark();
  push(first);
  while (accept(K::Comma)) {
    if (at(K::RPar)) {
      break;
    }
    push(parse_star_named_expression());
  }
  expect(K::RPar);
  auto* t = make<Tuple>();
  t->elts = take<Expr>(mk);
  t->ctx = ExprContext::Load;
  t->pos = span(start);
  return t;
}

Expr* Parser::parse_list_atom() {
  DepthGuard guard(*this);
  const Token& start = advance();  // '['
  size_t mk = mark();
  if (!at(K::RSqb)) {
    Expr* first = parse_star_named_expression();
    if (at(K::KwFor) || at(K::KwAsync)) {
      if (first->tag == ExprKind::Starred) {
        fail_at(first->pos, "iterable unpacking cannot be used in comprehension");
      }
      auto* l = make<ListComp>();
      l->elt = first;
      l->generators = parse_comprehension_clauses();
      expect(K::RSqb);
      l->pos = span(start);
      return l;
    }
    push(first);
    while (accept(K::Comma)) {
      if (at(K::RSqb)) {
        break;
      }
      push(parse_star_named_expression());
    }
  }
  expect(K::RSqb);
  auto* l = make<List>();
  l->elts = take<Expr>(mk);
  l->ctx = ExprContext::Load;
  l->pos = span(start);
  return l;
}

Expr* Parser::parse_brace_atom() {
  DepthGuard guard(*this);
  const Token& start = advance();  // '{'
  if (accept(K::RBrace)) {
    return make<Dict>(span(start));
  }
  Expr* first_key = nullptr;
  Expr* first_value = nullptr;
  if (accept(K::DoubleStar)) {
    first_value = parse_bitwise_or();
  } else {
    Expr* first = parse_star_named_expression();
    if (!at(K::Colon)) {
      // A set display or comprehension.
      if (at(K::KwFor) || at(K::KwAsync)) {
        if (first->tag == ExprKind::Starred) {
          fail_at(first->pos, "iterable unpacking cannot be used in comprehension");
        }
        auto* s = make<SetComp>();
        s->elt = first;
        s->generators = parse_comprehension_clauses();
        expect(K::RBrace);
        s->pos = span(start);
        return s;
      }
      size_t mk = mark();
      push(first);
      while (accept(K::Comma)) {
        if (at(K::RBrace)) {
          break;
        }
        push(parse_star_named_expression());
      }
      expect(K::RBrace);
      auto* s = make<Set>();
      s->elts = take<Expr>(mk);
      s->pos = span(start);
      return s;
    }
    if (first->tag == ExprKind::Starred) {
      fail_at(first->pos, "cannot use a starred expression in a dictionary value");
    }
    advance();  // ':'
    first_key = first;
    first_value = parse_expression();
    if (at(K::KwFor) || at(K::KwAsync)) {
      auto* d = make<DictComp>();
      d->key = first_key;
      d->value = first_value;
      d->generators = parse_comprehension_clauses();
      expect(K::RBrace);
      d->pos = span(start);
      return d;
    }
  }
  std::vector<Expr*> keys{first_key};
  size_t mk = mark();
  push(first_value);
  while (accept(K::Comma)) {
    if (at(K::RBrace)) {
      break;
    }
    if (accept(K::DoubleStar)) {
      keys.push_back(nullptr);
      push(parse_bitwise_or());
      continue;
    }
    Expr* k = parse_expression();
    if (!at(K::Colon)) {
      fail_invalid_syntax();
    }
    advance();
    keys.push_back(k);
    push(parse_expression());
  }
  expect(K::RBrace);
  auto* d = make<Dict>();
  d->keys = copy_seq(keys);
  d->values = take<Expr>(mk);
  d->pos = span(start);
  return d;
}

Seq<Comprehension*> Parser::parse_comprehension_clauses() {
  size_t mk = mark();
  while (at(K::KwFor) || (at(K::KwAsync) && peek().kind == K::KwFor)) {
    auto* c = make<Comprehension>();
    if (accept(K::KwAsync)) {
      c->is_async = 1;
    }
    advance();  // 'for'
    c->target = parse_star_targets();
    if (!at(K::KwIn)) {
      fail_invalid_syntax();
    }
    advance();
    c->iter = parse_disjunction();
    size_t ifs = mark();
    while (accept(K::KwIf)) {
      push(parse_disjunction());
    }
    c->ifs = take<Expr>(ifs);
    push(c);
  }
  return take<Comprehension>(mk);
}

// ---- subscripts --------------------------------------------------------------------------------

Expr* Parser::parse_slice() {
  const Token& start = tok();
  if (at(K::Star)) {
    return parse_star_expression();
  }
  Expr* lower = nullptr;
  if (!at(K::Colon)) {
    lower = parse_named_expression();
    if (!at(K::Colon)) {
      return lower;
    }
  }
  advance();  // ':'
  auto* s = make<Slice>();
  s->lower = lower;
  if (!at(K::Colon) && !at(K::RSqb) && !at(K::Comma)) {
    s->upper = parse_expression();
  }
  if (accept(K::Colon)) {
    if (!at(K::RSqb) && !at(K::Comma)) {
      s->step = parse_expression();
    }
  }
  s->pos = span(start);
  return s;
}

Expr* Parser::parse_slices() {
  const Token& start = tok();
  Expr* first = parse_slice();
  if (!at(K::Comma) && first->tag != ExprKind::Starred) {
    return first;
  }
  size_t mk = mark();
  push(first);
  while (accept(K::Comma)) {
    if (at(K::RSqb)) {
      break;
    }
    push(parse_slice());
  }
  auto* t = make<Tuple>();
  t->elts = take<Expr>(mk);
  t->ctx = ExprContext::Load;
  t->pos = span(start);
  return t;
}

// ---- calls ------------------------------------------------------------------------------------

Expr* Parser::parse_call(Expr* func, const Token& start) {
  DepthGuard guard(*this);
  const Token& lpar = advance();  // '('
  size_t args_mk = mark();
  std::vector<Keyword*> keywords;
  bool seen_keyword = false;
  bool seen_double_star = false;
  while (!at(K::RPar)) {
    const Token& arg_start = tok();
    if (at(K::Star)) {
      advance();
      auto* s = make<Starred>();
      s->value = parse_expression();
      s->ctx = ExprContext::Load;
      s->pos = span(arg_start);
      if (seen_double_star) {
        fail_at(s->pos, "iterable argument unpacking follows keyword argument unpacking");
      }
      push(s);
    } else if (at(K::DoubleStar)) {
      advance();
      auto* k = make<Keyword>();
      k->value = parse_expression();
      k->pos = span(arg_start);
      keywords.push_back(k);
      seen_double_star = true;
    } else if (at(K::Name) && peek().kind == K::Equal) {
      const Token& name = advance();
      advance();
      auto* k = make<Keyword>();
      k->arg = identifier(name);
      k->value = parse_expression();
      k->pos = span(arg_start);
      keywords.push_back(k);
      seen_keyword = true;
    } else {
      Expr* e = parse_named_expression();
      if (at(K::KwFor) || at(K::KwAsync)) {
        auto* g = make<GeneratorExp>();
        g->elt = e;
        g->generators = parse_comprehension_clauses();
        bool alone = mark() == args_mk && keywords.empty() && at(K::RPar);
        if (!alone) {
          g->pos = span(arg_start);
          fail_at(g->pos, "Generator expression must be parenthesized");
        }
        advance();  // ')'
        g->pos = span(lpar);
        push(g);
        auto* c = make<Call>();
        c->func = func;
        c->args = take<Expr>(args_mk);
        c->pos = span(start);
        return c;
      }
      if (at(K::Equal)) {
        fail_range(arg_start.line, arg_start.col, tok().end_line, tok().end_col,
                   "expression cannot contain assignment, perhaps you meant \"==\"?");
      }
      if (seen_double_star) {
        fail_at(e->pos, "positional argument follows keyword argument unpacking");
      }
      if (seen_keyword) {
        fail_at(e->pos, "positional argument follows keyword argument");
      }
      push(e);
    }
    if (!accept(K::Comma)) {
      break;
    }
  }
  if (!at(K::RPar)) {
    fail_invalid_syntax();
  }
  advance();
  auto* c = make<Call>();
  c->func = func;
  c->args = take<Expr>(args_mk);
  c->keywords = copy_seq(keywords);
  c->pos = span(start);
  return c;
}

// ---- lambda and parameters ---------------------------------------------------------------------

Expr* Parser::parse_lambda() {
  const Token& start = advance();  // 'lambda'
  auto* l = make<Lambda>();
  l->args = parse_parameters(K::Colon, false);
  expect(K::Colon, "expected ':'");
  l->body = parse_expression();
  l->pos = span(start);
  return l;
}

Arguments* Parser::parse_parameters(TokenKind close, bool allow_annotations) {
  auto* a = make<Arguments>();
  std::vector<Arg*> args;
  std::vector<Arg*> kwonly;
  std::vector<Expr*> kw_defaults;
  size_t defaults_mk = mark();
  bool seen_slash = false;
  bool seen_star = false;
  bool seen_default = false;
  auto parse_arg = [&](bool star_annotation) {
    const Token& n = tok();
    if (!at(K::Name)) {
      fail_invalid_syntax();
    }
    advance();
    auto* p = make<Arg>();
    p->arg = identifier(n);
    if (allow_annotations && accept(K::Colon)) {
      p->annotation = star_annotation && at(K::Star) ? parse_star_expression() : parse_expression();
    }
    p->pos = span(n);
    return p;
  };
  while (!at(close)) {
    const Token& t = tok();
    if (at(K::Slash)) {
      if (seen_slash) {
        fail_at(t, "/ may appear only once");
      }
      if (seen_star) {
        fail_at(t, "/ must be ahead of *");
      }
      if (args.empty()) {
        fail_at(t, "at least one argument must precede /");
      }
      advance();
      seen_slash = true;
      a->posonlyargs = copy_seq(args);
      args.clear();
    } else if (at(K::Star)) {
      if (seen_star) {
        fail_at(t, "* argument may appear only once");
      }
      advance();
      seen_star = true;
      if (at(K::Comma) || at(close)) {
        if (at(close) || peek().kind == close || peek().kind == K::DoubleStar) {
          fail_at(t, "named arguments must follow bare *");
        }
      } else {
        a->vararg = parse_arg(true);
        if (at(K::Equal)) {
          fail_at(tok(), "var-positional argument cannot have default value");
        }
      }
    } else if (at(K::DoubleStar)) {
      advance();
      a->kwarg = parse_arg(false);
      if (at(K::Equal)) {
        fail_at(tok(), "var-keyword argument cannot have default value");
      }
      accept(K::Comma);
      if (!at(close)) {
        fail_at(tok(), "arguments cannot follow var-keyword argument");
      }
      break;
    } else {
      Arg* p = parse_arg(false);
      Expr* def = nullptr;
      if (accept(K::Equal)) {
        def = parse_expression();
      }
      if (seen_star) {
        kwonly.push_back(p);
        kw_defaults.push_back(def);
      } else {
        args.push_back(p);
        if (def != nullptr) {
          push(def);
          seen_default = true;
        } else if (seen_default) {
          fail_at(p->pos, "parameter without a default follows parameter with a default");
        }
      }
    }
    if (!accept(K::Comma)) {
      break;
    }
  }
  a->args = copy_seq(args);
  a->kwonlyargs = copy_seq(kwonly);
  a->kw_defaults = copy_seq(kw_defaults);
  a->defaults = take<Expr>(defaults_mk);
  return a;
}

// ---- targets ---------------------------------------------------------------------------------

Expr* Parser::parse_star_targets() {
  const Token& start = tok();
  Expr* t = parse_star_target();
  if (!at(K::Comma)) {
    return t;
  }
  size_t mk = mark();
  push(t);
  while (accept(K::Comma)) {
    if (at(K::KwIn) || at(K::Equal) || !starts_expression(kind())) {
      break;
    }
    push(parse_star_target());
  }
  auto* tu = make<Tuple>();
  tu->elts = take<Expr>(mk);
  tu->ctx = ExprContext::Store;
  tu->pos = span(start);
  return tu;
}

Expr* Parser::parse_star_target() {
  DepthGuard guard(*this);
  if (at(K::Star)) {
    const Token& start = advance();
    if (at(K::Star)) {
      fail_invalid_syntax();
    }
    auto* s = make<Starred>();
    s->value = parse_star_target();
    s->ctx = ExprContext::Store;
    s->pos = span(start);
    return s;
  }
  Expr* e = parse_target_primary();
  set_context(e, ExprContext::Store, "assign to");
  return e;
}

Expr* Parser::parse_target_primary() { return parse_primary(); }

const char* Parser::describe_expr(const Expr* e) const {
  switch (e->tag) {
    case ExprKind::Attribute: return "attribute";
    case ExprKind::Subscript: return "subscript";
    case ExprKind::Starred: return "starred";
    case ExprKind::Name: return "name";
    case ExprKind::List: return "list";
    case ExprKind::Tuple: return "tuple";
    case ExprKind::Lambda: return "lambda";
    case ExprKind::Call: return "function call";
    case ExprKind::BoolOp:
    case ExprKind::BinOp:
    case ExprKind::UnaryOp: return "expression";
    case ExprKind::GeneratorExp: return "generator expression";
    case ExprKind::Yield:
    case ExprKind::YieldFrom: return "yield expression";
    case ExprKind::Await: return "await expression";
    case ExprKind::ListComp: return "list comprehension";
    case ExprKind::SetComp: return "set comprehension";
    case ExprKind::DictComp: return "dict comprehension";
    case ExprKind::Dict: return "dict literal";
    case ExprKind::Set: return "set display";
    case ExprKind::JoinedStr:
    case ExprKind::FormattedValue: return "f-string expression";
    case ExprKind::Constant: {
      auto k = static_cast<const Constant*>(e)->value.kind;
      if (k == ConstantValue::Kind::None) {
        return "None";
      }
      if (k == ConstantValue::Kind::True) {
        return "True";
      }
      if (k == ConstantValue::Kind::False) {
        return "False";
      }
      if (k == ConstantValue::Kind::Ellipsis) {
        return "ellipsis";
      }
      return "literal";
    }
    case ExprKind::Compare: return "comparison";
    case ExprKind::IfExp: return "conditional expression";
    case ExprKind::NamedExpr: return "named expression";
    case ExprKind::Slice: return "slice";
  }
  return "expression";
}

void Parser::set_context(Expr* e, ExprContext ctx, const char* verb) {
  switch (e->tag) {
    case ExprKind::Name: static_cast<Name*>(e)->ctx = ctx; return;
    case ExprKind::Attribute: static_cast<Attribute*>(e)->ctx = ctx; return;
    case ExprKind::Subscript: static_cast<Subscript*>(e)->ctx = ctx; return;
    case ExprKind::Starred:
      if (ctx == ExprContext::Del) {
        break;
      }
      static_cast<Starred*>(e)->ctx = ctx;
      set_context(static_cast<Starred*>(e)->value, ctx, verb);
      return;
    case ExprKind::Tuple:
      static_cast<Tuple*>(e)->ctx = ctx;
      for (Expr* x : static_cast<Tuple*>(e)->elts) {
        set_context(x, ctx, verb);
      }
      return;
    case ExprKind::List:
      static_cast<List*>(e)->ctx = ctx;
      for (Expr* x : static_cast<List*>(e)->elts) {
        set_context(x, ctx, verb);
      }
      return;
    default: break;
  }
  fail_at(e->pos, std::string("cannot ") + verb + " " + describe_expr(e));
}

bool Parser::is_assignable(const Expr* e) {
  switch (e->tag) {
    case ExprKind::Name:
    case ExprKind::Attribute:
    case ExprKind::Subscript:
    case ExprKind::Starred:
    case ExprKind::Tuple:
    case ExprKind::List: return true;
    default: return false;
  }
}

bool Parser::is_bitwise_or_level(const Expr* e) {
  switch (e->tag) {
    case ExprKind::Call:
    case ExprKind::BinOp:
    case ExprKind::Await:
    case ExprKind::Dict:
    case ExprKind::Set:
    case ExprKind::ListComp:
    case ExprKind::SetComp:
    case ExprKind::DictComp:
    case ExprKind::JoinedStr: return true;
    case ExprKind::UnaryOp: return static_cast<const UnaryOp*>(e)->op != UnaryOperator::Not;
    case ExprKind::Constant: {
      auto k = static_cast<const Constant*>(e)->value.kind;
      return k != ConstantValue::Kind::True && k != ConstantValue::Kind::False &&
             k != ConstantValue::Kind::None;
    }
    default: return false;
  }
}

}  // namespace qd::syntax
