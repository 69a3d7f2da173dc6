// A generic pre-order traversal of the AST. Override visit() for the node groups you need and
// call children() to descend; children() is generated from python.asdl (ast_walk_gen.cpp).
#pragma once

#include "syntax/ast_nodes.hpp"

namespace qd::syntax::ast {

class Walker {
public:
  virtual ~Walker() = default;

  virtual void visit(const Mod* n) { children(n); }
  virtual void visit(const Stmt* n) { children(n); }
  virtual void visit(const Expr* n) { children(n); }
  virtual void visit(const Comprehension* n) { children(n); }
  virtual void visit(const ExceptHandler* n) { children(n); }
  virtual void visit(const Arguments* n) { children(n); }
  virtual void visit(const Arg* n) { children(n); }
  virtual void visit(const Keyword* n) { children(n); }
  virtual void visit(const Alias* n) { children(n); }
  virtual void visit(const WithItem* n) { children(n); }
  virtual void visit(const MatchCase* n) { children(n); }
  virtual void visit(const Pattern* n) { children(n); }
  virtual void visit(const TypeIgnore* n) { children(n); }
  virtual void visit(const TypeParam* n) { children(n); }

  void children(const Mod* n);
  void children(const Stmt* n);
  void children(const Expr* n);
  void children(const Comprehension* n);
  void children(const ExceptHandler* n);
  void children(const Arguments* n);
  void children(const Arg* n);
  void children(const Keyword* n);
  void children(const Alias* n);
  void children(const WithItem* n);
  void children(const MatchCase* n);
  void children(const Pattern* n);
  void children(const TypeIgnore* n);
  void children(const TypeParam* n);
};

}  // namespace qd::syntax::ast
