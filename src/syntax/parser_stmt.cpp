// Statements: blocks, simple statements, compound statements (python.gram "STATEMENTS").
#include <string>

#include "syntax/parser_impl.hpp"

namespace qd::syntax {

using namespace ast;
using K = TokenKind;

namespace {

constexpr size_t k_max_errors = 50;

std::string on_line(const char* what, int32_t line) {
  return std::string(what) + " on line " + std::to_string(line);
}

}  // namespace

void Parser::parse_statements_until(TokenKind end, size_t mk) {
  while (!at(end) && !at(K::EndMarker)) {
    if (at(K::Error)) {
      // The tokenizer stopped here; its diagnostic is the error to report.
      return;
    }
    size_t before = m_pos;
    Checkpoint cp = checkpoint();
    try {
      parse_statement(mk);
    } catch (ParseAbort&) {
      m_scratch.resize(cp.scratch);
      m_depth = cp.depth;
      m_speculating = cp.speculating;
      if (m_diags.size() >= k_max_errors) {
        while (!at(K::EndMarker) && !at(K::Error)) {
          advance();
        }
        return;
      }
      // Recover: skip to the end of the logical line and go on with the next statement.
      while (!at(K::Newline) && !at(K::EndMarker) && !at(K::Error)) {
        advance();
      }
      accept(K::Newline);
      if (at(K::Indent)) {
        // The failed statement's indented block goes with it.
        int depth = 0;
        do {
          if (at(K::Indent)) {
            ++depth;
          } else if (at(K::Dedent)) {
            --depth;
          }
          advance();
        } while (depth > 0 && !at(K::EndMarker) && !at(K::Error));
      } else if (m_pos == before && at(K::Dedent) && end == K::EndMarker) {
        advance();
      }
    }
  }
}

Seq<Stmt*> Parser::parse_block(const Token& owner, const char* what) {
  size_t mk = mark();
  if (accept(K::Newline)) {
    if (!at(K::Indent)) {
      if (at(K::Error)) {
        fail_invalid_syntax();
      }
      fail_at(tok(), "expected an indented block after " + on_line(what, owner.line),
              k_code_indent);
    }
    advance();
    parse_statements_until(K::Dedent, mk);
    if (at(K::Dedent)) {
      advance();
    } else if (!at(K::EndMarker)) {
      Seq<Stmt*> partial = take<Stmt>(mk);
      (void)partial;
      fail_invalid_syntax();
    }
  } else {
    parse_simple_statements(mk);
  }
  return take<Stmt>(mk);
}

void Parser::parse_statement(size_t mk) {
  DepthGuard guard(*this);
  if (Stmt* s = parse_compound_statement()) {
    push(s);
    return;
  }
  parse_simple_statements(mk);
}

void Parser::parse_simple_statements(size_t mk) {
  for (;;) {
    push(parse_simple_statement());
    if (!accept(K::Semi)) {
      break;
    }
    if (at(K::Newline)) {
      break;
    }
  }
  if (!at(K::Newline)) {
    if (at(K::EndMarker)) {
      return;
    }
    fail_invalid_syntax();
  }
  advance();
}

Stmt* Parser::parse_compound_statement() {
  const Token& t = tok();
  switch (t.kind) {
    case K::KwDef: return parse_function_def(t, {}, false);
    case K::KwIf: return parse_if(t);
    case K::KwClass: return parse_class_def(t, {});
    case K::KwWith: return parse_with(t, false);
    case K::KwFor: return parse_for(t, false);
    case K::KwTry: return parse_try();
    case K::KwWhile: return parse_while();
    case K::At: return parse_decorated();
    case K::KwAsync: {
      TokenKind next = peek().kind;
      if (next == K::KwDef) {
        return parse_function_def(t, {}, true);
      }
      if (next == K::KwWith) {
        return parse_with(t, true);
      }
      if (next == K::KwFor) {
        return parse_for(t, true);
      }
      advance();
      fail_invalid_syntax();
    }
    case K::Name:
      if (text_of(t) == "match") {
        return try_parse_match();
      }
      return nullptr;
    default: return nullptr;
  }
}

Stmt* Parser::parse_decorated() {
  size_t mk = mark();
  while (accept(K::At)) {
    push(parse_named_expression());
    expect(K::Newline);
  }
  Seq<Expr*> decorators = take<Expr>(mk);
  const Token& t = tok();
  if (at(K::KwDef)) {
    return parse_function_def(t, decorators, false);
  }
  if (at(K::KwAsync) && peek().kind == K::KwDef) {
    return parse_function_def(t, decorators, true);
  }
  if (at(K::KwClass)) {
    return parse_class_def(t, decorators);
  }
  fail_invalid_syntax();
}

Stmt* Parser::parse_function_def(const Token& start, Seq<Expr*> decorators, bool is_async) {
  if (is_async) {
    advance();
  }
  expect(K::KwDef);
  if (!at(K::Name)) {
    fail_invalid_syntax();
  }
  Identifier name = identifier(advance());
  Seq<TypeParam*> type_params = at(K::LSqb) ? parse_type_params() : Seq<TypeParam*>{};
  expect(K::LPar, "expected '('");
  Arguments* args = parse_parameters(K::RPar, true);
  expect(K::RPar);
  Expr* returns = nullptr;
  if (accept(K::Arrow)) {
    returns = parse_expression();
  }
  expect(K::Colon, "expected ':'");
  Seq<Stmt*> body = parse_block(start, "function definition");
  return make_variant<FunctionDef, AsyncFunctionDef>(is_async, span(start), [&](auto* f) {
    f->name = name;
    f->args = args;
    f->body = body;
    f->decorator_list = decorators;
    f->returns = returns;
    f->type_params = type_params;
  });
}

Stmt* Parser::parse_class_def(const Token& start, Seq<Expr*> decorators) {
  expect(K::KwClass);
  if (!at(K::Name)) {
    fail_invalid_syntax();
  }
  Identifier name = identifier(advance());
  Seq<TypeParam*> type_params = at(K::LSqb) ? parse_type_params() : Seq<TypeParam*>{};
  Seq<Expr*> bases;
  Seq<Keyword*> keywords;
  if (at(K::LPar)) {
    const Token& lpar = tok();
    Call* call = static_cast<Call*>(parse_call(nullptr, lpar));
    for (Expr* b : call->args) {
      if (b->tag == ExprKind::GeneratorExp && b->pos.col_offset == lpar.col &&
          b->pos.lineno == lpar.line) {
        fail_at(static_cast<GeneratorExp*>(b)->generators[0]->target->pos, "invalid syntax");
      }
    }
    bases = call->args;
    keywords = call->keywords;
  }
  expect(K::Colon, "expected ':'");
  Seq<Stmt*> body = parse_block(start, "class definition");
  auto* c = make<ClassDef>(span(start));
  c->name = name;
  c->bases = bases;
  c->keywords = keywords;
  c->body = body;
  c->decorator_list = decorators;
  c->type_params = type_params;
  return c;
}

Seq<TypeParam*> Parser::parse_type_params() {
  expect(K::LSqb);
  size_t mk = mark();
  if (at(K::RSqb)) {
    fail_at(tok(), "Type parameter list cannot be empty");
  }
  while (!at(K::RSqb)) {
    const Token& start = tok();
    if (accept(K::Star)) {
      auto* p = make<TypeVarTuple>();
      p->name = identifier(expect(K::Name));
      if (at(K::Colon)) {
        fail_at(tok(), "cannot use bound with TypeVarTuple");
      }
      p->pos = span(start);
      push(p);
    } else if (accept(K::DoubleStar)) {
      auto* p = make<ParamSpec>();
      p->name = identifier(expect(K::Name));
      if (at(K::Colon)) {
        fail_at(tok(), "cannot use bound with ParamSpec");
      }
      p->pos = span(start);
      push(p);
    } else {
      auto* p = make<TypeVar>();
      p->name = identifier(expect(K::Name));
      if (accept(K::Colon)) {
        p->bound = parse_expression();
      }
      p->pos = span(start);
      push(p);
    }
    if (!accept(K::Comma)) {
      break;
    }
  }
  expect(K::RSqb);
  return take<TypeParam>(mk);
}

Stmt* Parser::parse_if(const Token& start) {
  advance();  // 'if' or 'elif'
  Expr* test = parse_named_expression();
  expect(K::Colon, "expected ':'");
  const char* what = start.kind == K::KwIf ? "'if' statement" : "'elif' statement";
  Seq<Stmt*> body = parse_block(start, what);
  Seq<Stmt*> orelse;
  if (at(K::KwElif)) {
    orelse = one<Stmt>(parse_if(tok()));
  } else if (at(K::KwElse)) {
    const Token& e = advance();
    expect(K::Colon, "expected ':'");
    orelse = parse_block(e, "'else' statement");
  }
  auto* s = make<If>(span(start));
  s->test = test;
  s->body = body;
  s->orelse = orelse;
  return s;
}

Stmt* Parser::parse_while() {
  const Token& start = advance();
  Expr* test = parse_named_expression();
  expect(K::Colon, "expected ':'");
  Seq<Stmt*> body = parse_block(start, "'while' statement");
  Seq<Stmt*> orelse;
  if (at(K::KwElse)) {
    const Token& e = advance();
    expect(K::Colon, "expected ':'");
    orelse = parse_block(e, "'else' statement");
  }
  auto* s = make<While>(span(start));
  s->test = test;
  s->body = body;
  s->orelse = orelse;
  return s;
}

Stmt* Parser::parse_for(const Token& start, bool is_async) {
  if (is_async) {
    advance();
  }
  const Token& for_tok = expect(K::KwFor);
  Expr* target = parse_star_targets();
  if (!at(K::KwIn)) {
    fail_invalid_syntax();
  }
  advance();
  Expr* iter = parse_star_expressions();
  expect(K::Colon, "expected ':'");
  Seq<Stmt*> body = parse_block(for_tok, "'for' statement");
  Seq<Stmt*> orelse;
  if (at(K::KwElse)) {
    const Token& e = advance();
    expect(K::Colon, "expected ':'");
    orelse = parse_block(e, "'else' statement");
  }
  return make_variant<For, AsyncFor>(is_async, span(start), [&](auto* s) {
    s->target = target;
    s->iter = iter;
    s->body = body;
    s->orelse = orelse;
  });
}

namespace {

WithItem* make_with_item(Parser& p) {
  auto* item = p.make<WithItem>();
  item->context_expr = p.parse_expression();
  if (p.accept(K::KwAs)) {
    item->optional_vars = p.parse_star_target();
    TokenKind k = p.kind();
    if (k != K::Comma && k != K::RPar && k != K::Colon) {
      p.fail_invalid_syntax();
    }
  }
  return item;
}

}  // namespace

Stmt* Parser::parse_with(const Token& start, bool is_async) {
  if (is_async) {
    advance();
  }
  const Token& with_tok = expect(K::KwWith);
  Seq<WithItem*> items;
  bool parsed = false;
  if (at(K::LPar)) {
    // 'with' '(' ','.with_item+ ','? ')' ':' — otherwise the parenthesis belongs to an expression.
    Checkpoint cp = checkpoint();
    m_speculating = true;
    try {
      advance();
      size_t mk = mark();
      for (;;) {
        push(make_with_item(*this));
        if (!accept(K::Comma) || at(K::RPar)) {
          break;
        }
      }
      expect(K::RPar);
      if (!at(K::Colon)) {
        throw ParseAbort{};
      }
      items = take<WithItem>(mk);
      parsed = true;
    } catch (ParseAbort&) {
      restore(cp);
    }
    m_speculating = cp.speculating;
  }
  if (!parsed) {
    size_t mk = mark();
    for (;;) {
      push(make_with_item(*this));
      if (!accept(K::Comma)) {
        break;
      }
    }
    items = take<WithItem>(mk);
  }
  expect(K::Colon, "expected ':'");
  Seq<Stmt*> body = parse_block(with_tok, "'with' statement");
  return make_variant<With, AsyncWith>(is_async, span(start), [&](auto* s) {
    s->items = items;
    s->body = body;
  });
}

Stmt* Parser::parse_try() {
  const Token& start = advance();
  expect(K::Colon, "expected ':'");
  Seq<Stmt*> body = parse_block(start, "'try' statement");
  size_t mk = mark();
  bool star = false;
  bool any_handler = false;
  while (at(K::KwExcept)) {
    const Token& ex = advance();
    bool this_star = accept(K::Star);
    if (any_handler && this_star != star) {
      fail_at(ex, "cannot have both 'except' and 'except*' on the same 'try'");
    }
    star = this_star;
    any_handler = true;
    auto* h = make<ExceptHandler>();
    if (!at(K::Colon)) {
      const Token& type_start = tok();
      h->type = parse_expression();
      if (at(K::Comma)) {
        // except A, B:  (Python 2 style)
        fail_range(type_start.line, type_start.col, m_prev_line, m_prev_col,
                   "multiple exception types must be parenthesized");
      }
      if (accept(K::KwAs)) {
        if (!at(K::Name)) {
          fail_invalid_syntax();
        }
        h->name = identifier(advance());
      }
    } else if (star) {
      fail_at(tok(), "expected one or more exception types");
    }
    expect(K::Colon, "expected ':'");
    h->body = parse_block(ex, star ? "'except*' statement" : "'except' statement");
    h->pos = span(ex);
    push(h);
  }
  Seq<ExceptHandler*> handlers = take<ExceptHandler>(mk);
  Seq<Stmt*> orelse;
  Seq<Stmt*> finalbody;
  if (at(K::KwElse)) {
    if (handlers.empty()) {
      fail_invalid_syntax();
    }
    const Token& e = advance();
    expect(K::Colon, "expected ':'");
    orelse = parse_block(e, "'else' statement");
  }
  if (at(K::KwFinally)) {
    const Token& f = advance();
    expect(K::Colon, "expected ':'");
    finalbody = parse_block(f, "'finally' statement");
  }
  if (handlers.empty() && finalbody.empty()) {
    fail_range(m_prev_line, m_prev_col, m_prev_line, m_prev_col + 1,
               "expected 'except' or 'finally' block");
  }
  return make_variant<Try, TryStar>(star, span(start), [&](auto* s) {
    s->body = body;
    s->handlers = handlers;
    s->orelse = orelse;
    s->finalbody = finalbody;
  });
}

Stmt* Parser::try_parse_match() {
  // "match" subject_expr ':' NEWLINE INDENT case_block+ DEDENT; `match` is a soft keyword, so
  // anything else starting with the name `match` is an ordinary statement.
  const Token& start = tok();
  Checkpoint cp = checkpoint();
  Expr* subject = nullptr;
  {
    m_speculating = true;
    try {
      advance();
      const Token& s = tok();
      if (s.kind == K::Star) {
        subject = parse_star_expressions();
      } else {
        Expr* first = parse_named_expression();
        if (at(K::Comma)) {
          size_t mk = mark();
          push(first);
          while (accept(K::Comma)) {
            if (at(K::Colon)) {
              break;
            }
            push(parse_star_named_expression());
          }
          auto* t = make<Tuple>(span(s));
          t->elts = take<Expr>(mk);
          t->ctx = ExprContext::Load;
          subject = t;
        } else {
          subject = first;
        }
      }
      if (!at(K::Colon)) {
        throw ParseAbort{};
      }
    } catch (ParseAbort&) {
      subject = nullptr;
    }
    m_speculating = cp.speculating;
  }
  if (subject == nullptr) {
    restore(cp);
    return nullptr;
  }
  advance();  // ':'
  if (!accept(K::Newline)) {
    fail_invalid_syntax();
  }
  if (!at(K::Indent)) {
    fail_at(tok(), "expected an indented block after " + on_line("'match' statement", start.line),
            k_code_indent);
  }
  advance();
  size_t mk = mark();
  while (!at(K::Dedent) && !at(K::EndMarker)) {
    if (!at_name("case")) {
      fail_invalid_syntax();
    }
    const Token& case_tok = advance();
    auto* c = make<MatchCase>();
    c->pattern = parse_patterns();
    if (accept(K::KwIf)) {
      c->guard = parse_named_expression();
    }
    expect(K::Colon, "expected ':'");
    c->body = parse_block(case_tok, "'case' statement");
    push(c);
  }
  accept(K::Dedent);
  auto* m = make<Match>(span(start));
  m->subject = subject;
  m->cases = take<MatchCase>(mk);
  return m;
}

Stmt* Parser::parse_simple_statement() {
  const Token& start = tok();
  switch (start.kind) {
    case K::KwPass: advance(); return make<Pass>(span(start));
    case K::KwBreak: advance(); return make<Break>(span(start));
    case K::KwContinue: advance(); return make<Continue>(span(start));
    case K::KwReturn: {
      advance();
      auto* s = make<Return>();
      if (!at(K::Newline) && !at(K::Semi) && !at(K::EndMarker)) {
        s->value = parse_star_expressions();
      }
      s->pos = span(start);
      return s;
    }
    case K::KwImport: return parse_import();
    case K::KwFrom: return parse_from_import();
    case K::KwRaise: {
      advance();
      auto* s = make<Raise>();
      if (!at(K::Newline) && !at(K::Semi) && !at(K::EndMarker)) {
        s->exc = parse_expression();
        if (accept(K::KwFrom)) {
          s->cause = parse_expression();
        }
      }
      s->pos = span(start);
      return s;
    }
    case K::KwGlobal:
    case K::KwNonlocal: {
      advance();
      std::vector<Identifier> names;
      for (;;) {
        if (!at(K::Name)) {
          fail_invalid_syntax();
        }
        names.push_back(identifier(advance()));
        if (!accept(K::Comma)) {
          break;
        }
      }
      if (start.kind == K::KwGlobal) {
        auto* s = make<Global>(span(start));
        s->names = copy_seq(names);
        return s;
      }
      auto* s = make<Nonlocal>(span(start));
      s->names = copy_seq(names);
      return s;
    }
    case K::KwDel: {
      advance();
      size_t mk = mark();
      for (;;) {
        Expr* t = parse_bitwise_or();
        set_context(t, ExprContext::Del, "delete");
        push(t);
        if (!accept(K::Comma)) {
          break;
        }
        if (at(K::Newline) || at(K::Semi)) {
          break;
        }
      }
      auto* s = make<Delete>();
      s->targets = take<Expr>(mk);
      s->pos = span(start);
      return s;
    }
    case K::KwAssert: {
      advance();
      auto* s = make<Assert>();
      s->test = parse_expression();
      if (accept(K::Comma)) {
        s->msg = parse_expression();
      }
      s->pos = span(start);
      return s;
    }
    case K::Name:
      if (text_of(start) == "type" && peek().kind == K::Name &&
          (peek(2).kind == K::Equal || peek(2).kind == K::LSqb)) {
        return parse_type_alias();
      }
      return parse_expression_statement();
    default: return parse_expression_statement();
  }
}

Stmt* Parser::parse_type_alias() {
  const Token& start = advance();  // 'type'
  auto* s = make<TypeAlias>();
  s->name = name_node(advance(), ExprContext::Store);
  if (at(K::LSqb)) {
    s->type_params = parse_type_params();
  }
  expect(K::Equal);
  s->value = parse_expression();
  s->pos = span(start);
  return s;
}

Identifier Parser::parse_dotted_name() {
  if (!at(K::Name)) {
    fail_invalid_syntax();
  }
  const Token& first = advance();
  if (!at(K::Dot)) {
    return identifier(first);
  }
  std::string dotted(identifier(first));
  while (accept(K::Dot)) {
    if (!at(K::Name)) {
      fail_invalid_syntax();
    }
    dotted += '.';
    dotted += identifier(advance());
  }
  return m_arena.copy(dotted);
}

Alias* Parser::parse_alias(bool dotted) {
  const Token& start = tok();
  auto* a = make<Alias>();
  if (dotted) {
    a->name = parse_dotted_name();
  } else {
    if (!at(K::Name)) {
      fail_invalid_syntax();
    }
    a->name = identifier(advance());
  }
  if (accept(K::KwAs)) {
    if (!at(K::Name)) {
      fail_invalid_syntax();
    }
    a->asname = identifier(advance());
  }
  a->pos = span(start);
  return a;
}

Stmt* Parser::parse_import() {
  const Token& start = advance();
  size_t mk = mark();
  do {
    push(parse_alias(true));
  } while (accept(K::Comma));
  auto* s = make<Import>();
  s->names = take<Alias>(mk);
  s->pos = span(start);
  return s;
}

Stmt* Parser::parse_from_import() {
  const Token& start = advance();
  int32_t level = 0;
  for (;;) {
    if (accept(K::Dot)) {
      level += 1;
    } else if (accept(K::Ellipsis)) {
      level += 3;
    } else {
      break;
    }
  }
  Identifier module{};
  if (at(K::Name)) {
    module = parse_dotted_name();
  } else if (level == 0) {
    fail_invalid_syntax();
  }
  if (!at(K::KwImport)) {
    fail_invalid_syntax();
  }
  advance();
  size_t mk = mark();
  if (at(K::Star)) {
    const Token& star = advance();
    auto* a = make<Alias>(token_pos(star));
    a->name = "*";
    push(a);
  } else {
    bool paren = accept(K::LPar);
    for (;;) {
      push(parse_alias(false));
      if (!accept(K::Comma)) {
        break;
      }
      if (paren && at(K::RPar)) {
        break;
      }
      if (!paren && !at(K::Name)) {
        fail_at(tok(), "trailing comma not allowed without surrounding parentheses");
      }
    }
    if (paren) {
      expect(K::RPar);
    }
  }
  auto* s = make<ImportFrom>();
  s->module = module;
  s->names = take<Alias>(mk);
  s->level = level;
  s->pos = span(start);
  return s;
}

Stmt* Parser::parse_expression_statement() {
  const Token& start = tok();
  Expr* e = at(K::KwYield) ? parse_yield_expr() : parse_star_expressions();
  TokenKind k = kind();
  if (k == K::Colon) {
    // Annotated assignment: a single target, simple when it is an unparenthesized name.
    if (e->tag == ExprKind::Tuple) {
      fail_at(e->pos, "only single target (not tuple) can be annotated");
    }
    if (e->tag == ExprKind::List) {
      fail_at(e->pos, "only single target (not list) can be annotated");
    }
    if (e->tag != ExprKind::Name && e->tag != ExprKind::Attribute &&
        e->tag != ExprKind::Subscript) {
      fail_at(e->pos, "illegal target for annotation");
    }
    set_context(e, ExprContext::Store, "assign to");
    advance();
    auto* s = make<AnnAssign>();
    s->target = e;
    s->annotation = parse_expression();
    if (accept(K::Equal)) {
      s->value = at(K::KwYield) ? parse_yield_expr() : parse_star_expressions();
    }
    s->simple = (e->tag == ExprKind::Name && start.kind != K::LPar) ? 1 : 0;
    s->pos = span(start);
    return s;
  }
  if (k == K::Equal) {
    size_t mk = mark();
    Expr* value = e;
    bool paren_first = start.kind == K::LPar;
    while (accept(K::Equal)) {
      push(value);
      value = at(K::KwYield) ? parse_yield_expr() : parse_star_expressions();
    }
    Seq<Expr*> targets = take<Expr>(mk);
    for (uint32_t i = 0; i < targets.size; ++i) {
      Expr* t = targets[i];
      if (t->tag == ExprKind::Yield || t->tag == ExprKind::YieldFrom) {
        fail_at(t->pos, "assignment to yield expression not possible");
      }
      // CPython's invalid_named_expression: `x = <bitwise_or> = <value>` suggests '=='.
      bool last = i + 1 == targets.size;
      bool grouped =
          i == 0 && paren_first && (t->pos.lineno != start.line || t->pos.col_offset != start.col);
      if (last && !is_assignable(t) && (grouped || is_bitwise_or_level(t))) {
        fail_at(t->pos, std::string("cannot assign to ") + describe_expr(t) +
                            " here. Maybe you meant '==' instead of '='?");
      }
      set_context(t, ExprContext::Store, "assign to");
    }
    auto* s = make<Assign>();
    s->targets = targets;
    s->value = value;
    s->pos = span(start);
    return s;
  }
  Operator op{};
  bool aug = true;
  switch (k) {
    case K::PlusEqual: op = Operator::Add; break;
    case K::MinEqual: op = Operator::Sub; break;
    case K::StarEqual: op = Operator::Mult; break;
    case K::AtEqual: op = Operator::MatMult; break;
    case K::SlashEqual: op = Operator::Div; break;
    case K::PercentEqual: op = Operator::Mod; break;
    case K::AmperEqual: op = Operator::BitAnd; break;
    case K::VBarEqual: op = Operator::BitOr; break;
    case K::CircumflexEqual: op = Operator::BitXor; break;
    case K::LeftShiftEqual: op = Operator::LShift; break;
    case K::RightShiftEqual: op = Operator::RShift; break;
    case K::DoubleStarEqual: op = Operator::Pow; break;
    case K::DoubleSlashEqual: op = Operator::FloorDiv; break;
    default: aug = false; break;
  }
  if (aug) {
    if (e->tag != ExprKind::Name && e->tag != ExprKind::Attribute &&
        e->tag != ExprKind::Subscript) {
      fail_at(e->pos, std::string("'") + describe_expr(e) +
                          "' is an illegal expression for augmented assignment");
    }
    set_context(e, ExprContext::Store, "assign to");
    advance();
    auto* s = make<AugAssign>();
    s->target = e;
    s->op = op;
    s->value = at(K::KwYield) ? parse_yield_expr() : parse_star_expressions();
    s->pos = span(start);
    return s;
  }
  if (e->tag == ExprKind::Name &&
      (k == K::String || k == K::Name || k == K::Number || k == K::FStringStart)) {
    std::string_view id = static_cast<Name*>(e)->id;
    if (id == "print" || id == "exec") {
      // CPython: the statement from `print` up to the end of the expression that follows.
      const Token& s0 = start;
      parse_star_expressions();
      fail_range(s0.line, s0.col, m_prev_line, m_prev_col,
                 std::string("Missing parentheses in call to '") + std::string(id) +
                     "'. Did you mean " + std::string(id) + "(...)?");
    }
  }
  auto* s = make<ExprStmt>(span(start));
  s->value = e;
  return s;
}

}  // namespace qd::syntax
