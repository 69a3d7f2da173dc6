// The recursive-descent parser behind parse_bytes(). Private to src/syntax.
//
// The grammar is CPython 3.12's Grammar/python.gram. The parser reads the whole token array up
// front (the lexer runs first), so the few places where the PEG grammar backtracks (match and
// type statements, parenthesized with-items) are cheap save/restore points. Node positions come
// from tokens: a node starts at the first token of its rule and ends at the last token consumed,
// which reproduces CPython's positions (including parentheses around operands).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/arena.hpp"
#include "syntax/ast_nodes.hpp"
#include "syntax/diagnostic.hpp"
#include "syntax/token.hpp"

namespace qd::syntax {

// Thrown inside the parser only, after a diagnostic has been recorded; caught at statement level.
struct ParseAbort {};

class Parser {
public:
  Parser(std::string_view text, const std::vector<Token>& tokens, support::Arena& arena);

  ast::Module* parse_module();
  std::vector<Diagnostic>& diagnostics() { return m_diags; }

  // ---- token access --------------------------------------------------------------------------
  const Token& tok() const { return m_tokens[m_pos]; }
  const Token& peek(size_t n = 1) const {
    size_t i = m_pos + n;
    return m_tokens[i < m_tokens.size() ? i : m_tokens.size() - 1];
  }
  TokenKind kind() const { return m_tokens[m_pos].kind; }
  bool at(TokenKind k) const { return m_tokens[m_pos].kind == k; }
  std::string_view text_of(const Token& t) const { return m_text.substr(t.begin, t.end - t.begin); }
  bool at_name(std::string_view s) const { return at(TokenKind::Name) && text_of(tok()) == s; }
  // Consumes the current token. Layout tokens (NEWLINE, INDENT, DEDENT) do not move the end of
  // the current span: a statement ends at its last real token.
  const Token& advance() {
    const Token& t = m_tokens[m_pos];
    if (t.kind < TokenKind::Newline || t.kind > TokenKind::Dedent) {
      m_prev_line = t.end_line;
      m_prev_col = t.end_col;
    }
    if (m_pos + 1 < m_tokens.size()) {
      ++m_pos;
    }
    return t;
  }
  bool accept(TokenKind k) {
    if (at(k)) {
      advance();
      return true;
    }
    return false;
  }
  const Token& expect(TokenKind k);
  const Token& expect(TokenKind k, const char* message);

  // A span from the start of `start` to the end of the last consumed token.
  ast::Pos span(const Token& start) const {
    return {start.line, start.col, m_prev_line, m_prev_col};
  }
  ast::Pos span(const ast::Pos& start) const {
    return {start.lineno, start.col_offset, m_prev_line, m_prev_col};
  }
  static ast::Pos token_pos(const Token& t) { return {t.line, t.col, t.end_line, t.end_col}; }

  // ---- node construction ---------------------------------------------------------------------
  template <class T> T* make() {
    T* n = m_arena.make<T>();
    if constexpr (requires { T::k_tag; }) {
      n->tag = T::k_tag;
    }
    return n;
  }
  template <class T> T* make(const ast::Pos& pos) {
    T* n = make<T>();
    n->pos = pos;
    return n;
  }
  // Scratch stack for building sequences: remember size(), push, then take<T>(mark).
  size_t mark() const { return m_scratch.size(); }
  void push(void* p) { m_scratch.push_back(p); }
  // Builds the sync or async variant of a statement (For/AsyncFor, Try/TryStar, ...): the two
  // node types have the same fields, which `fill(node)` sets.
  template <class Sync, class Async, class Fill>
  ast::Stmt* make_variant(bool second, const ast::Pos& pos, Fill&& fill) {
    if (second) {
      auto* n = make<Async>(pos);
      fill(n);
      return n;
    }
    auto* n = make<Sync>(pos);
    fill(n);
    return n;
  }
  // `first (sep next)*` as a BoolOp when there is more than one operand.
  ast::Expr* parse_bool_chain(TokenKind sep, ast::BoolOperator op, ast::Expr* (Parser::*next)());
  // `first (',' next)* [',']` as a Tuple when there is a comma.
  ast::Expr* parse_tuple_chain(ast::Expr* (Parser::*next)());
  // '*' bitwise_or | next
  ast::Expr* parse_starred_or(ast::Expr* (Parser::*next)());

  template <class T> ast::Seq<T*> take(size_t mark) {
    ast::Seq<T*> s;
    s.size = static_cast<uint32_t>(m_scratch.size() - mark);
    s.items = m_arena.make_array<T*>(s.size);
    for (uint32_t i = 0; i < s.size; ++i) {
      s.items[i] = static_cast<T*>(m_scratch[mark + i]);
    }
    m_scratch.resize(mark);
    return s;
  }
  template <class T> ast::Seq<T> copy_seq(const std::vector<T>& v) {
    ast::Seq<T> s;
    s.size = static_cast<uint32_t>(v.size());
    s.items = m_arena.make_array<T>(s.size);
    for (uint32_t i = 0; i < s.size; ++i) {
      s.items[i] = v[i];
    }
    return s;
  }
  template <class T> ast::Seq<T*> one(T* x) {
    ast::Seq<T*> s;
    s.size = 1;
    s.items = m_arena.make_array<T*>(1);
    s.items[0] = x;
    return s;
  }
  ast::Identifier identifier(const Token& t);
  ast::Name* name_node(const Token& t, ast::ExprContext ctx);

  // ---- errors --------------------------------------------------------------------------------
  [[noreturn]] void fail_at(const Token& t, std::string message, const char* code = k_code_syntax);
  [[noreturn]] void fail_at(const ast::Pos& p, std::string message,
                            const char* code = k_code_syntax);
  [[noreturn]] void fail_range(int32_t line, int32_t col, int32_t end_line, int32_t end_col,
                               std::string message, const char* code = k_code_syntax);
  [[noreturn]] void fail_here() { fail_invalid_syntax(); }
  [[noreturn]] void fail_invalid_syntax();
  void warn_at(const Token& t, std::string message);
  // For CPython's "Perhaps you forgot a comma?": tokens that can end / begin an operand, and the
  // number of brackets open at the current token.
  static bool ends_operand(TokenKind k);
  static bool begins_operand(TokenKind k);
  int bracket_depth() const;

  // ---- statements (parser_stmt.cpp) ----------------------------------------------------------
  void parse_statements_until(TokenKind end, size_t mark);
  ast::Seq<ast::Stmt*> parse_block(const Token& owner, const char* what);
  void parse_statement(size_t mark);
  void parse_simple_statements(size_t mark);
  ast::Stmt* parse_simple_statement();
  ast::Stmt* parse_compound_statement();
  ast::Stmt* parse_expression_statement();
  ast::Stmt* parse_function_def(const Token& start, ast::Seq<ast::Expr*> decorators, bool is_async);
  ast::Stmt* parse_class_def(const Token& start, ast::Seq<ast::Expr*> decorators);
  ast::Stmt* parse_decorated();
  ast::Stmt* parse_if(const Token& start);
  ast::Stmt* parse_while();
  ast::Stmt* parse_for(const Token& start, bool is_async);
  ast::Stmt* parse_with(const Token& start, bool is_async);
  ast::Stmt* parse_try();
  ast::Stmt* parse_import();
  ast::Identifier parse_dotted_name();   // NAME ('.' NAME)*
  ast::Alias* parse_alias(bool dotted);  // dotted_name|NAME ['as' NAME]
  ast::Stmt* parse_from_import();
  ast::Stmt* parse_type_alias();
  ast::Stmt* try_parse_match();
  ast::Seq<ast::TypeParam*> parse_type_params();
  ast::Arguments* parse_parameters(TokenKind close, bool allow_annotations);

  // ---- expressions (parser_expr.cpp) ---------------------------------------------------------
  ast::Expr* parse_expression();        // expression (ternary, lambda)
  ast::Expr* parse_named_expression();  // NAME := expression | expression
  ast::Expr* parse_star_expressions();  // tuple without parentheses, starred allowed
  ast::Expr* parse_star_named_expression();
  ast::Expr* parse_star_expression();
  ast::Expr* parse_expressions();  // expression (',' expression)* [','] (no star)
  ast::Expr* parse_yield_expr();
  ast::Expr* parse_disjunction();
  ast::Expr* parse_conjunction();
  ast::Expr* parse_inversion();
  ast::Expr* parse_comparison();
  ast::Expr* parse_bitwise_or();
  ast::Expr* parse_bitwise_xor();
  ast::Expr* parse_bitwise_and();
  ast::Expr* parse_shift();
  ast::Expr* parse_sum();
  ast::Expr* parse_term();
  ast::Expr* parse_factor();
  ast::Expr* parse_power();
  ast::Expr* parse_await_primary();
  ast::Expr* parse_primary();
  ast::Expr* parse_atom();
  ast::Expr* parse_lambda();
  ast::Expr* parse_paren_atom();
  ast::Expr* parse_list_atom();
  ast::Expr* parse_brace_atom();
  ast::Expr* parse_slices();
  ast::Expr* parse_slice();
  ast::Expr* parse_call(ast::Expr* func, const Token& start);
  ast::Seq<ast::Comprehension*> parse_comprehension_clauses();
  ast::Expr* parse_star_targets();  // for-loop / with / comprehension targets
  ast::Expr* parse_star_target();
  ast::Expr* parse_target_primary();
  // Turns a parsed expression into an assignment (Store) or deletion (Del) target.
  void set_context(ast::Expr* e, ast::ExprContext ctx, const char* verb);
  const char* describe_expr(const ast::Expr* e) const;
  static bool is_assignable(const ast::Expr* e);
  // Could the expression be CPython's `bitwise_or` (what its '==' hint applies to)?
  static bool is_bitwise_or_level(const ast::Expr* e);

  // ---- strings (parser_fstring.cpp) ----------------------------------------------------------
  ast::Expr* parse_strings();

  // ---- patterns (parser_pattern.cpp) ---------------------------------------------------------
  ast::Pattern* parse_patterns();  // open sequence allowed (case a, b:)
  ast::Pattern* parse_as_pattern();
  ast::Pattern* parse_or_pattern();
  ast::Pattern* parse_closed_pattern();
  ast::Expr* parse_signed_number_or_complex();
  ast::Expr* parse_pattern_value_name();

  // ---- depth guard ---------------------------------------------------------------------------
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.m_depth > k_max_depth) {
        p.too_deep();
      }
    }
    ~DepthGuard() { --p.m_depth; }
  };
  [[noreturn]] void too_deep();
  // Adds one level for a link of a left-associative chain (a + b + c, a.b.c, f()()).
  void chain_link(int& added) {
    ++added;
    if (++m_depth > k_max_depth) {
      too_deep();
    }
  }
  // CPython 3.12 gives up below 5,000 levels (RecursionError / "too complex"); so do we, with a
  // diagnostic, which keeps every recursive consumer of the tree (dump, walkers) within the stack.
  static constexpr int k_max_depth = 4000;

  // A backtracking point for the few speculative parses.
  struct Checkpoint {
    size_t pos;
    int32_t prev_line;
    int32_t prev_col;
    size_t scratch;
    int depth;
    bool speculating;
  };
  Checkpoint checkpoint() const {
    return {m_pos, m_prev_line, m_prev_col, m_scratch.size(), m_depth, m_speculating};
  }
  void restore(const Checkpoint& c) {
    m_pos = c.pos;
    m_prev_line = c.prev_line;
    m_prev_col = c.prev_col;
    m_scratch.resize(c.scratch);
    m_depth = c.depth;
    m_speculating = c.speculating;
  }

  std::string_view m_text;
  const std::vector<Token>& m_tokens;
  support::Arena& m_arena;
  size_t m_pos = 0;
  int32_t m_prev_line = 1;
  int32_t m_prev_col = 0;
  int m_depth = 0;
  int m_loop_depth = 0;
  std::vector<void*> m_scratch;
  std::vector<Diagnostic> m_diags;
  bool m_speculating = false;
  // Index of the token at which the first error was reported (SIZE_MAX: none).
  size_t m_first_error_token = SIZE_MAX;
};

}  // namespace qd::syntax
