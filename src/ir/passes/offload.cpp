#include "ir/passes/offload.hpp"

namespace qd::ir::passes {

namespace {

std::string serial_label(const Block& b) {
  std::string first = b.front()->text;
  size_t n = b.size();
  return first + (n > 1 ? " (+" + std::to_string(n - 1) + " more)" : "");
}

}  // namespace

void offload(Kernel& k) {
  k.tasks.clear();
  Task pending;
  auto flush = [&]() {
    if (!pending.body.empty()) {
      pending.range = false;
      pending.label = serial_label(pending.body);
      pending.line = pending.body.front()->line;
      k.tasks.push_back(std::move(pending));
    }
    pending = Task{};
  };
  // A block at the kernel root: its statements, with graph loops split into their own tasks
  // (the loop's first task begins it; its last task ends it).
  auto root = [&](const Block& block, auto& self) -> void {
    for (const Stmt* s : block) {
      if (s->kind == StmtKind::graph_loop) {
        flush();
        int32_t first = static_cast<int32_t>(k.tasks.size());
        self(s->body, self);
        flush();
        if (static_cast<int32_t>(k.tasks.size()) == first) {
          // Nothing to run in the body (it lowered to no statements): an empty task carries
          // the loop, which then only reads its condition, as Quadrants' host loop does.
          Task t;
          t.label = "empty graph loop body";
          t.line = s->line;
          k.tasks.push_back(std::move(t));
        }
        k.tasks.back().loop_ends.push_back({first, s->array, s->line});
        continue;
      }
      if (s->kind == StmtKind::range_for && s->parallel) {
        flush();
        Task t;
        t.range = true;
        t.loop = s;
        t.label = s->label;
        t.line = s->line;
        k.tasks.push_back(std::move(t));
        continue;
      }
      pending.body.push_back(const_cast<Stmt*>(s));
    }
  };
  root(k.body, root);
  flush();
  if (k.tasks.empty()) {
    // A kernel with nothing to run still launches (and the index requires a task per entry).
    Task t;
    t.label = "empty kernel";
    t.line = 0;
    k.tasks.push_back(std::move(t));
  }
}

}  // namespace qd::ir::passes
