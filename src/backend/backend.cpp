#include "backend/backend.hpp"

#include "backend/compiler_session.hpp"
#include "backend/cpu_codegen.hpp"
#include "backend/diagnostic_capture.hpp"
#include "backend/linker.hpp"
#include "support/thread_pool.hpp"

#include <algorithm>
#include <exception>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <memory>

namespace qd::backend {

TaskObject compile_cpu_task(const TaskUnit& task, const CpuTarget& target) {
  TaskObject result;
  result.name = task.name;
  result.key = task_key(task.source, target);

  std::shared_ptr<const CompilerSession> session = CompilerSession::for_target(target);
  llvm::LLVMContext ctx;  // one per TU: contexts are not thread-safe, and this keeps TUs apart
  capture_llvm_diagnostics(ctx, task.name, result.diagnostics);
  std::unique_ptr<llvm::Module> module =
      session->compile(task.name, task.source, ctx, result.diagnostics);
  if (module == nullptr) {
    return result;
  }
  std::optional<std::string> object =
      emit_cpu_object(*module, target, task.name, result.diagnostics);
  module.reset();  // before the context; the diagnostic handler refers to result.diagnostics
  if (!object || has_error(result.diagnostics)) {
    return result;
  }
  result.object = std::move(*object);
  result.ok = true;
  return result;
}

LinkedModule link_cpu_module(const std::vector<std::string>& objects) {
  LinkedModule result;
  std::optional<std::string> so = link_shared_object(objects, result.diagnostics);
  if (so) {
    result.so_bytes = std::move(*so);
    result.ok = true;
  }
  return result;
}

Result compile_cpu_module(const std::vector<TaskUnit>& tasks, const Options& options) {
  Result result;
  result.objects.resize(tasks.size());
  unsigned threads = std::max(1u, std::min<unsigned>(support::resolve_thread_count(options.threads),
                                                     static_cast<unsigned>(tasks.size())));
  support::parallel_for(
      tasks.size(),
      [&](size_t i) {
        try {
          result.objects[i] = compile_cpu_task(tasks[i], options.target);
        } catch (const std::exception& e) {  // e.g. std::bad_alloc: reported, not thrown
          result.objects[i].name = tasks[i].name;
          result.objects[i].diagnostics.push_back(make_diagnostic(
              Diagnostic::Severity::error, tasks[i].name, std::string("internal: ") + e.what()));
        }
      },
      threads);

  bool all_ok = true;
  std::vector<std::string> objects;
  objects.reserve(tasks.size());
  for (const TaskObject& object : result.objects) {
    all_ok = all_ok && object.ok;
    result.diagnostics.insert(result.diagnostics.end(), object.diagnostics.begin(),
                              object.diagnostics.end());
    objects.push_back(object.object);
  }
  if (!all_ok) {
    return result;
  }
  LinkedModule linked = link_cpu_module(objects);
  result.diagnostics.insert(result.diagnostics.end(), linked.diagnostics.begin(),
                            linked.diagnostics.end());
  result.so_bytes = std::move(linked.so_bytes);
  result.ok = linked.ok;
  return result;
}

}  // namespace qd::backend
