// generate_kernel: the visible pass list.
#include "codegen/kernel_codegen.hpp"

#include "codegen/task_codegen.hpp"
#include "ir/lower/lower.hpp"
#include "ir/passes/dead_draws.hpp"
#include "ir/passes/offload.hpp"
#include "ir/passes/temporaries.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"
#include "qdrt/store_format.h"

namespace qd::codegen {

namespace {

bool contains_return(const ir::Task& t) {
  bool found = false;
  if (t.range) {
    return false;  // a return is never inside a loop
  }
  ir::walk_stmts(t.body, [&](const ir::Stmt& s) { found = found || s.kind == ir::StmtKind::ret; });
  return found;
}

// The first statement of `kind` in the task, or nullptr.
const ir::Stmt* find_stmt(const ir::Task& t, ir::StmtKind kind) {
  const ir::Stmt* found = nullptr;
  auto see = [&](const ir::Stmt& s) {
    if (found == nullptr && s.kind == kind) {
      found = &s;
    }
  };
  if (t.range) {
    ir::walk_stmts(t.loop->body, see);
  } else {
    ir::walk_stmts(t.body, see);
  }
  return found;
}

// The shared array a statement of a serial task (or of a second range task) uses, else -1:
// a qd.simt.block.SharedArray belongs to the block task of the loop that declares it.
int32_t misplaced_shared(const ir::Kernel& k, const ir::Stmt** where) {
  std::vector<int32_t> owner(k.params.size(), -1);
  int32_t found = -1;
  for (size_t t = 0; t < k.tasks.size() && found < 0; ++t) {
    const ir::Task& task = k.tasks[t];
    auto see = [&](const ir::Stmt& s) {
      auto use = [&](int32_t p) {
        if (found >= 0 || p < 0 || k.params[p].kind != ir::Param::Kind::shared) {
          return;
        }
        if (!task.range || (owner[p] >= 0 && owner[p] != static_cast<int32_t>(t))) {
          found = p;
          *where = &s;
        }
        owner[p] = static_cast<int32_t>(t);
      };
      if ((s.kind == ir::StmtKind::store || s.kind == ir::StmtKind::atomic) && s.target_var < 0) {
        use(s.array);
      }
      ir::for_each_expr(s, [&](const ir::Expr* e) {
        ir::walk_expr(e, [&](const ir::Expr& x) {
          if (x.kind == ir::ExprKind::load) {
            use(x.index);
          }
        });
      });
    };
    if (task.range) {
      ir::walk_stmts(task.loop->body, see);
    } else {
      ir::walk_stmts(task.body, see);
    }
  }
  return found;
}

}  // namespace

KernelCode generate_kernel(const sema::Analysis& analysis, size_t kernel, size_t instance,
                           const Options& options) {
  KernelCode out;
  const sema::KernelReport& report = analysis.kernels[kernel];
  const sema::Instance* inst = nullptr;
  auto it = analysis.config.instances.find(report.id);
  if (it != analysis.config.instances.end() && instance < it->second.size()) {
    inst = &it->second[instance];
  }
  ir::lower::LowerInput in;
  in.program = analysis.program.get();
  in.config = &analysis.config;
  in.kernel = report.def;
  in.kernel_id = report.id;
  in.signature = &report.signature;
  in.instance = inst;
  ir::lower::LowerResult lowered = ir::lower::lower_kernel(in);
  out.diagnostics = std::move(lowered.diagnostics);
  if (!lowered.kernel) {
    return out;
  }
  ir::Kernel& k = *lowered.kernel;

  auto stage = [&](const char* pass) {
    if (options.dump_ir) {
      out.ir_dump += "# " + report.id + " after " + pass + "\n" + ir::print_kernel(k) + "\n";
    }
    if (!options.verify_ir) {
      return true;
    }
    std::string error = ir::verify(k);
    if (error.empty()) {
      return true;
    }
    sema::SemaDiagnostic d;
    d.d.severity = syntax::Severity::Error;
    d.d.line = analysis.program->defs[report.def].line;
    d.d.col = analysis.program->defs[report.def].col;
    d.d.code = "QD299";
    d.d.message = "internal error, please report: the IR after '" + std::string(pass) +
                  "' is malformed: " + error;
    d.module = analysis.program->defs[report.def].module;
    d.kernel = report.id;
    out.diagnostics.push_back(std::move(d));
    return false;
  };

  // The pipeline.
  if (!stage("lower")) {
    return out;
  }
  // Draws nothing reads are not drawn, as Quadrants' dead-code elimination drops them (the
  // generator then does not advance either).
  if (ir::passes::remove_dead_draws(k) > 0 && !stage("dead draws")) {
    return out;
  }
  ir::passes::offload(k);
  if (analysis.config.debug) {
    k.whole_reason = "debug = true (a diagnostic mode keeps the whole-kernel form)";
  }
  if (!stage("offload")) {
    return out;
  }
  ir::passes::assign_temporaries(k);
  if (!stage("temporaries")) {
    return out;
  }

  for (const ir::Param& p : k.params) {
    if (p.kind == ir::Param::Kind::shared) {
      continue;  // declared in the kernel, not passed (they come after every argument)
    }
    ArgumentInfo a;
    a.name = p.name;
    switch (p.kind) {
      case ir::Param::Kind::scalar:
        a.kind = QDRT_ARG_SCALAR;
        a.dtype = ir::qdrt_dtype(p.dtype);
        break;
      case ir::Param::Kind::ndarray:
        a.kind = QDRT_ARG_NDARRAY;
        a.dtype = ir::qdrt_dtype(p.dtype);
        a.ndim = static_cast<uint32_t>(p.ndim);
        for (int32_t d : p.element_shape) {
          a.element_shape.push_back(static_cast<uint32_t>(d));
        }
        if (p.field) {
          a.kind = QDRT_ARG_FIELD;
          a.field_shape = p.field_shape;
          a.field_shape.insert(a.field_shape.end(), p.element_shape.begin(), p.element_shape.end());
          for (int64_t s : p.field_strides) {
            a.field_strides.push_back(s * ir::byte_size(p.dtype));
          }
        }
        break;
      case ir::Param::Kind::template_: a.kind = QDRT_ARG_TEMPLATE; break;
      case ir::Param::Kind::shared: break;
    }
    out.arguments.push_back(std::move(a));
  }

  // A QD201 refusal of the kernel at (line, col); the kernel is not generated.
  auto refuse = [&](int32_t line, int32_t col, std::string message) {
    sema::SemaDiagnostic d;
    d.d.severity = syntax::Severity::Error;
    d.d.line = line;
    d.d.col = col;
    d.d.code = "QD201";
    d.d.message = std::move(message);
    d.module = analysis.program->defs[report.def].module;
    d.kernel = report.id;
    out.diagnostics.push_back(std::move(d));
    return out;
  };
  const ir::Stmt* misplaced = nullptr;
  if (misplaced_shared(k, &misplaced) >= 0) {
    return refuse(misplaced->line, misplaced->col,
                  "a qd.simt.block.SharedArray used outside the parallel for loop that declares "
                  "it is not supported in compiled kernels (it belongs to that loop's thread "
                  "blocks)");
  }
  Flavor flavor = options.cuda ? Flavor::cuda : Flavor::cpu;
  size_t passed = 0;
  for (const ir::Param& p : k.params) {
    passed += p.slot >= 0 ? 1 : 0;
  }
  if (options.cuda && passed > QDRT_CUDA_MAX_ARGS) {
    return refuse(analysis.program->defs[report.def].line, analysis.program->defs[report.def].col,
                  "a CUDA kernel passing more than " + std::to_string(QDRT_CUDA_MAX_ARGS) +
                      " arguments (" + std::to_string(passed) +
                      ": parameters and dataclass members) is not supported in kernels");
  }
  bool graph_loops = false;
  for (const ir::Task& t : k.tasks) {
    graph_loops = graph_loops || !t.loop_ends.empty();
    if (t.loop_ends.size() > QDRT_MAX_LOOP_ENDS) {
      return refuse(t.loop_ends.back().line, 0,
                    "qd.graph.do_while loops nested more than " +
                        std::to_string(QDRT_MAX_LOOP_ENDS) + " deep are not supported in kernels");
    }
  }
  qdrt_task_launch base{};
  // Launch metadata version 5 only where it is needed (task_abi.h): a kernel without graph loops
  // stays readable by runtimes that read version 4. (A CUDA task that draws qd.random: 6, below.)
  base.abi_version = graph_loops ? 5u : QDRT_TASK_ABI_VERSION;
  base.temps_size = k.temps_size;
  base.result_dtype = k.ret ? ir::qdrt_dtype(*k.ret) : QDRT_DTYPE_NONE;
  base.result_size = k.ret ? static_cast<uint32_t>(ir::byte_size(*k.ret)) : 0;
  auto add_task = [&](size_t t, size_t unit, const std::string& symbol) {
    TaskCode tc;
    tc.symbol = symbol;
    tc.range = k.tasks[t].range;
    tc.unit = unit;
    tc.launch = base;
    bool draws = find_stmt(k.tasks[t], ir::StmtKind::random) != nullptr;
    tc.launch.flags = (contains_return(k.tasks[t]) ? QDRT_LAUNCH_WRITES_RESULT : 0) |
                      (find_stmt(k.tasks[t], ir::StmtKind::print) ? QDRT_LAUNCH_PRINTS : 0) |
                      (draws ? QDRT_LAUNCH_RANDOM : 0);
    if (options.cuda && draws) {
      // Version 6 (task_abi.h): the runtime must point the module's qdrt_cuda_rand_states at its
      // device states and launch the task in Quadrants' grid; a runtime that reads only up to
      // version 5 refuses the entry instead of launching it with a null state array.
      tc.launch.abi_version = QDRT_LAUNCH_METADATA_VERSION;
    }
    if (k.tasks[t].range && k.tasks[t].loop->block_dim > 0) {
      tc.launch.block_dim =
          static_cast<uint32_t>(k.tasks[t].loop->block_dim);  // CUDA threads/block
    }
    for (const ir::LoopEnd& e : k.tasks[t].loop_ends) {
      tc.loop_ends.push_back(
          {static_cast<uint32_t>(e.first_task), static_cast<uint32_t>(k.params[e.condition].slot)});
    }
    tc.label = k.tasks[t].label;
    tc.line = k.tasks[t].line;
    out.tasks.push_back(std::move(tc));
  };
  if (!k.whole_reason.empty() && !k.tasks.empty()) {
    std::vector<size_t> all;
    for (size_t t = 0; t < k.tasks.size(); ++t) {
      all.push_back(t);
    }
    std::vector<std::string> symbols;
    out.units.push_back(Unit{emit_unit(k, all, symbols, flavor)});
    for (size_t t = 0; t < k.tasks.size(); ++t) {
      add_task(t, 0, symbols[t]);
    }
  } else {
    for (size_t t = 0; t < k.tasks.size(); ++t) {
      std::vector<std::string> symbols;
      out.units.push_back(Unit{emit_unit(k, {t}, symbols, flavor)});
      add_task(t, out.units.size() - 1, symbols[0]);
    }
  }
  out.whole_reason = k.whole_reason;
  out.ok = true;
  for (const sema::SemaDiagnostic& d : out.diagnostics) {
    out.ok = out.ok && d.d.severity != syntax::Severity::Error;
  }
  return out;
}

}  // namespace qd::codegen
