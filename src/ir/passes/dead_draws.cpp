#include "ir/passes/dead_draws.hpp"

#include <vector>

namespace qd::ir::passes {

namespace {

void count_reads(const Expr* e, std::vector<int32_t>& reads) {
  walk_expr(e, [&](const Expr& x) {
    if (x.kind == ExprKind::var && x.index >= 0 && static_cast<size_t>(x.index) < reads.size()) {
      ++reads[x.index];
    }
  });
}

void count_block(const Block& block, std::vector<int32_t>& reads) {
  walk_stmts(block, [&](const Stmt& s) {
    for (const Expr* e : {s.index, s.value, s.expected, s.cond, s.begin, s.end}) {
      count_reads(e, reads);
    }
    for (const Expr* e : s.nd_begins) {
      count_reads(e, reads);
    }
    for (const Expr* e : s.nd_extents) {
      count_reads(e, reads);
    }
    for (const Expr* e : s.args) {
      count_reads(e, reads);
    }
    if (s.kind == StmtKind::atomic && s.target_var >= 0) {
      ++reads[s.target_var];  // an atomic on a variable reads it
    }
  });
}

bool has_draw(const Block& block) {
  bool found = false;
  walk_stmts(block, [&](const Stmt& s) { found = found || s.kind == StmtKind::random; });
  return found;
}

// Removes assignments and draws into unread variables from `block` and its nested blocks.
size_t sweep(Block& block, const std::vector<int32_t>& reads) {
  size_t removed = 0;
  Block kept;
  kept.reserve(block.size());
  for (Stmt* s : block) {
    bool dead = (s->kind == StmtKind::assign || s->kind == StmtKind::random) && s->var >= 0 &&
                reads[s->var] == 0;
    if (dead) {
      ++removed;
      continue;
    }
    removed += sweep(s->then_body, reads) + sweep(s->else_body, reads) + sweep(s->body, reads);
    kept.push_back(s);
  }
  block = std::move(kept);
  return removed;
}

}  // namespace

size_t remove_dead_draws(Kernel& k) {
  if (!has_draw(k.body)) {
    return 0;  // only kernels that draw: the others' IR stays exactly as lowered
  }
  size_t total = 0;
  for (;;) {
    std::vector<int32_t> reads(k.vars.size(), 0);
    count_block(k.body, reads);
    size_t removed = sweep(k.body, reads);
    total += removed;
    if (removed == 0) {
      return total;
    }
  }
}

}  // namespace qd::ir::passes
