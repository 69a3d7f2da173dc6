// The statement blocks nested in a compound statement that belong to the same scope: the bodies
// of if/for/while/with/try/match (and their else/except/finally blocks), but not the bodies of
// def and class, which open scopes of their own.
#pragma once

#include "syntax/ast_nodes.hpp"

namespace qd::syntax::ast {

// Calls fn(const Seq<Stmt*>&) for each such block of `s`, in source order; nothing for a simple
// statement, a def or a class.
template <class Fn> void for_each_nested_block(const Stmt* s, Fn&& fn) {
  auto try_blocks = [&](const auto* t) {
    fn(t->body);
    for (const ExceptHandler* h : t->handlers) {
      fn(h->body);
    }
    fn(t->orelse);
    fn(t->finalbody);
  };
  switch (s->tag) {
    case StmtKind::If: {
      const auto* n = static_cast<const If*>(s);
      fn(n->body);
      fn(n->orelse);
      return;
    }
    case StmtKind::For: {
      const auto* n = static_cast<const For*>(s);
      fn(n->body);
      fn(n->orelse);
      return;
    }
    case StmtKind::AsyncFor: {
      const auto* n = static_cast<const AsyncFor*>(s);
      fn(n->body);
      fn(n->orelse);
      return;
    }
    case StmtKind::While: {
      const auto* n = static_cast<const While*>(s);
      fn(n->body);
      fn(n->orelse);
      return;
    }
    case StmtKind::With: fn(static_cast<const With*>(s)->body); return;
    case StmtKind::AsyncWith: fn(static_cast<const AsyncWith*>(s)->body); return;
    case StmtKind::Try: try_blocks(static_cast<const Try*>(s)); return;
    case StmtKind::TryStar: try_blocks(static_cast<const TryStar*>(s)); return;
    case StmtKind::Match:
      for (const MatchCase* c : static_cast<const Match*>(s)->cases) {
        fn(c->body);
      }
      return;
    default: return;
  }
}

}  // namespace qd::syntax::ast
