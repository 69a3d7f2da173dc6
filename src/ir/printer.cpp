#include "ir/printer.hpp"

#include <cstdio>

namespace qd::ir {

namespace {

std::string var_name(const Kernel& k, int32_t v) {
  const Var& x = k.vars[v];
  return "%" + std::to_string(v) + (x.name.empty() ? "" : ":" + x.name);
}

std::string constant_text(const Expr* e) {
  if (is_float(e->type)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", e->fval);
    return buf;
  }
  if (e->type == DType::u64) {
    return std::to_string(static_cast<uint64_t>(e->ival));
  }
  return std::to_string(e->ival);
}

void print_block(const Kernel& k, const Block& b, int indent, std::string& out);

// A print format as a C-like string literal.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void line(std::string& out, int indent, const std::string& text, const Stmt* s) {
  out.append(static_cast<size_t>(indent) * 2, ' ');
  out += text;
  if (s != nullptr && s->line > 0) {
    out += "    # line " + std::to_string(s->line);
  }
  out += "\n";
}

void print_stmt(const Kernel& k, const Stmt* s, int indent, std::string& out) {
  switch (s->kind) {
    case StmtKind::assign:
      line(out, indent,
           std::string(s->decl ? "let " : "") + var_name(k, s->var) + ": " +
               name_of(k.vars[s->var].type) + " = " + print_expr(k, s->value),
           s);
      return;
    case StmtKind::store:
      line(out, indent,
           "store " + k.params[s->array].name + "[" + print_expr(k, s->index) +
               "] = " + print_expr(k, s->value),
           s);
      return;
    case StmtKind::atomic: {
      std::string target = s->target_var >= 0
                               ? var_name(k, s->target_var)
                               : k.params[s->array].name + "[" + print_expr(k, s->index) + "]";
      std::string lhs = s->var >= 0 ? "let " + var_name(k, s->var) + " = " : "";
      std::string expected = s->expected != nullptr ? print_expr(k, s->expected) + ", " : "";
      line(out, indent,
           lhs + "atomic_" + name_of(s->op) + "(" + target + ", " + expected +
               print_expr(k, s->value) + ")",
           s);
      return;
    }
    case StmtKind::random:
      line(out, indent,
           std::string(s->decl ? "let " : "") + var_name(k, s->var) + ": " +
               name_of(k.vars[s->var].type) + " = random()",
           s);
      return;
    case StmtKind::print: {
      std::string text = "print " + quoted(s->format);
      for (const Expr* a : s->args) {
        text += ", " + print_expr(k, a);
      }
      line(out, indent, text, s);
      return;
    }
    case StmtKind::if_:
      line(out, indent, "if " + print_expr(k, s->cond) + ":", s);
      print_block(k, s->then_body, indent + 1, out);
      if (!s->else_body.empty()) {
        line(out, indent, "else:", nullptr);
        print_block(k, s->else_body, indent + 1, out);
      }
      return;
    case StmtKind::while_:
      line(out, indent, "while true:", s);
      print_block(k, s->body, indent + 1, out);
      return;
    case StmtKind::warp_op:
      line(out, indent,
           "let " + var_name(k, s->var) + ": " + name_of(k.vars[s->var].type) + " = warp_" +
               name_of(s->warp) + "(" + print_expr(k, s->value) + ", " + print_expr(k, s->index) +
               ")",
           s);
      return;
    case StmtKind::barrier:
      line(out, indent, std::string("barrier ") + name_of(s->fence), s);
      return;
    case StmtKind::graph_loop:
      line(out, indent, "graph do:", s);
      print_block(k, s->body, indent + 1, out);
      line(out, indent, "while " + k.params[s->array].name + "[()] != 0", nullptr);
      return;
    case StmtKind::range_for: {
      std::string head = std::string(s->parallel ? "parallel for " : "for ") + var_name(k, s->var) +
                         ": " + name_of(k.vars[s->var].type) + " in [" + print_expr(k, s->begin) +
                         ", " + print_expr(k, s->end) + ")";
      if (!s->nd_vars.empty()) {
        head += " as (";
        for (size_t d = 0; d < s->nd_vars.size(); ++d) {
          head += (d > 0 ? ", " : "") + var_name(k, s->nd_vars[d]) + " = " +
                  print_expr(k, s->nd_begins[d]) + " + digit(" + print_expr(k, s->nd_extents[d]) +
                  ")";
        }
        head += ")";
      }
      if (s->block_dim > 0) {
        head += " block_dim " + std::to_string(s->block_dim);
      }
      line(out, indent, head + ":", s);
      print_block(k, s->body, indent + 1, out);
      return;
    }
    case StmtKind::break_: line(out, indent, "break", s); return;
    case StmtKind::continue_: line(out, indent, "continue", s); return;
    case StmtKind::ret: line(out, indent, "return " + print_expr(k, s->value), s); return;
  }
}

void print_block(const Kernel& k, const Block& b, int indent, std::string& out) {
  if (b.empty()) {
    line(out, indent, "pass", nullptr);
  }
  for (const Stmt* s : b) {
    print_stmt(k, s, indent, out);
  }
}

}  // namespace

std::string print_expr(const Kernel& k, const Expr* e) {
  switch (e->kind) {
    case ExprKind::constant: return constant_text(e) + ":" + name_of(e->type);
    case ExprKind::var: return var_name(k, e->index);
    case ExprKind::arg: return "arg " + k.params[e->index].name;
    case ExprKind::shape:
      return "shape(" + k.params[e->index].name + ", " + std::to_string(e->axis) + ")";
    case ExprKind::load: return "load " + k.params[e->index].name + "[" + print_expr(k, e->a) + "]";
    case ExprKind::unary:
      return std::string(name_of(e->un)) + "." + name_of(e->type) + "(" + print_expr(k, e->a) + ")";
    case ExprKind::binary:
      return std::string(name_of(e->bin)) + "." + name_of(e->type) + "(" + print_expr(k, e->a) +
             ", " + print_expr(k, e->b) + ")";
    case ExprKind::cast:
      return std::string("cast<") + name_of(e->type) + ">(" + print_expr(k, e->a) + ")";
    case ExprKind::bit_cast:
      return std::string("bit_cast<") + name_of(e->type) + ">(" + print_expr(k, e->a) + ")";
    case ExprKind::select:
      return "select(" + print_expr(k, e->a) + ", " + print_expr(k, e->b) + ", " +
             print_expr(k, e->c) + ")";
    case ExprKind::thread_idx: return "thread_idx";
  }
  return "?";
}

std::string print_kernel(const Kernel& k) {
  std::string out = "kernel " + k.id + "(";
  for (size_t i = 0; i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    out += (i > 0 ? ", " : "") + p.name + ": " + p.text;
  }
  out += ") -> " + std::string(k.ret ? name_of(*k.ret) : "none") + "\n";
  if (k.tasks.empty()) {
    print_block(k, k.body, 1, out);
    return out;
  }
  if (!k.whole_reason.empty()) {
    out += "  # whole-kernel: " + k.whole_reason + "\n";
  }
  for (size_t t = 0; t < k.tasks.size(); ++t) {
    const Task& task = k.tasks[t];
    out += "  task " + std::to_string(t) + " (" + (task.range ? "range" : "serial") +
           "): " + task.label + "\n";
    if (task.range) {
      print_stmt(k, task.loop, 2, out);
    } else {
      print_block(k, task.body, 2, out);
    }
    for (const LoopEnd& e : task.loop_ends) {
      out += "  then while " + k.params[e.condition].name + "[()] != 0: again from task " +
             std::to_string(e.first_task) + "\n";
    }
  }
  bool any = false;
  for (size_t v = 0; v < k.temp_offset.size(); ++v) {
    if (k.temp_offset[v] >= 0) {
      out +=
          std::string(any ? "" : "  temporaries (" + std::to_string(k.temps_size) + " bytes):\n") +
          "    " + var_name(k, static_cast<int32_t>(v)) + " @" + std::to_string(k.temp_offset[v]) +
          "\n";
      any = true;
    }
  }
  return out;
}

}  // namespace qd::ir
