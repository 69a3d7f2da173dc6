#include "build/build_run.hpp"

#include "build/explain.hpp"

namespace qd::build::detail {

namespace {

std::string describe_instance(const std::string& id, const std::string& instance) {
  return "kernel '" + id + "'" + (instance.empty() ? "" : " (instance " + instance + ")");
}

}  // namespace

void Run::classify_diagnostics() {
  sema::Analysis& a = *m_a;
  std::set<std::string> kernel_ids;
  for (const sema::KernelReport& k : a.kernels) {
    kernel_ids.insert(k.id);
  }
  std::vector<sema::SemaDiagnostic> shown;
  for (const sema::SemaDiagnostic& d : a.diagnostics) {
    bool error = d.d.severity == Severity::Error;
    if (error) {
      ++m_r.errors;
    }
    if (error && !d.kernel.empty() && kernel_ids.count(d.kernel) != 0) {
      m_kernel_errors[d.kernel].push_back(d);  // shown under FAILED: <kernel>
      continue;
    }
    if (error) {
      if (d.module != sema::k_none) {
        m_broken_modules.insert(d.module);
      }
      m_r.input_error = true;  // a file or config error: exit 1, no inputs record
    }
    shown.push_back(d);
  }
  m_status.diagnostics(a, shown);
}

void Run::fail(Work& w, std::vector<std::string> messages) {
  w.failed = true;
  w.messages.insert(w.messages.end(), messages.begin(), messages.end());
}

void Run::plan() {
  Timer t(m_metrics, "plan");
  sema::Analysis& a = *m_a;
  // In a build driven by recorded runs, a kernel that no record names and that has no other
  // instance is counted, not warned about: an app records the kernels it calls, and a library
  // such as Genesis has hundreds it never calls (one summary line after the plan).
  bool by_records = !m_o.instance_files.empty() || !a.config.instances_from.empty();
  std::vector<std::string> unrecorded;
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const sema::KernelReport& kr = a.kernels[k];
    const sema::DefInfo& def = a.program->defs[kr.def];
    const sema::ModuleInfo& mod = a.program->modules[def.module];
    bool sema_failed = m_kernel_errors.count(kr.id) != 0 || m_broken_modules.count(def.module) != 0;
    if (sema_failed) {
      m_failed_kernels.insert(kr.id);
      m_status.kernel_failed(a, kr.id, m_kernel_errors[kr.id],
                             m_broken_modules.count(def.module) != 0
                                 ? std::vector<std::string>{"(its file has errors)"}
                                 : std::vector<std::string>{});
      continue;
    }
    size_t buildable = 0;
    for (size_t i = 0; i < kr.instances.size(); ++i) {
      const sema::InstanceKey& inst = kr.instances[i];
      if (!inst.unbound.empty()) {
        if (by_records && a.config.instances.count(kr.id) == 0) {
          unrecorded.push_back(kr.id);
          if (m_o.explain) {
            m_status.info("qdbuild explain: kernel '" + kr.id +
                          "': no instance (no record names it; " + join(inst.unbound, ", ") +
                          (inst.unbound.size() == 1 ? " has" : " have") + " no value)");
          }
          continue;
        }
        sema::SemaDiagnostic d;
        d.d.severity = Severity::Warning;
        d.d.code = "QD301";
        d.d.line = def.line;
        d.d.col = def.col;
        d.d.end_line = def.line;
        d.d.end_col = def.col;
        d.d.message = "kernel '" + kr.id +
                      "' has no buildable instance: " + join(inst.unbound, ", ") + " ha" +
                      (inst.unbound.size() == 1 ? "s" : "ve") +
                      " no value (give instances in [tool.qdbuild.instances.\"" + kr.id + "\"])";
        d.module = def.module;
        d.kernel = kr.id;
        m_status.diagnostics(a, {d});
        continue;
      }
      ++buildable;
      Work w;
      w.kernel = k;
      w.instance = i;
      w.module = def.module;
      w.where = mod.path + ":" + def.qualname;
      // Reuse without lowering: same kernel key and compiler as the log's record, and the
      // index still holds what that build published.
      const InstanceRecord* logged = m_log.find(kr.id, inst.instance, m_target.name);
      std::string why;
      if (logged == nullptr) {
        why = "not built before";
      } else if (logged->compiler != m_compiler) {
        why = "the compiler changed (qdbuild or its toolchain)";
      } else if (logged->kernel_key != inst.key) {
        Components now;
        for (const sema::KeyHasher::Component& c : inst.components) {
          now.emplace_back(c.tag, c.hash);
        }
        why = explain_key_change(logged->components, now);
      } else {
        std::optional<size_t> at =
            m_index == nullptr ? std::nullopt : m_index->find(kr.id, inst.instance, m_target.name);
        if (!at) {
          why = "entry missing from the store index";
        } else {
          store::Entry e = m_index->entry(*at);
          bool same = e.record.module && e.record.module->hex() == logged->module_object &&
                      e.record.tasks.size() == logged->tasks.size();
          for (size_t j = 0; same && j < e.record.tasks.size(); ++j) {
            same =
                e.record.tasks[j].code && e.record.tasks[j].code->hex() == logged->tasks[j].object;
          }
          if (same) {
            w.reused = true;
            w.record = std::move(e.record);
            w.module_object = w.record.module;
          } else {
            why = "the store index holds a different entry";
          }
        }
      }
      if (!w.reused && m_o.explain) {
        m_status.info("qdbuild explain: " + describe_instance(kr.id, inst.instance) + ": " + why);
      }
      m_work.push_back(std::move(w));
    }
    if (buildable == 0) {
      m_r.skipped.push_back(kr.id);
    }
  }
  if (!unrecorded.empty()) {
    size_t n = std::set<std::string>(unrecorded.begin(), unrecorded.end()).size();
    m_status.info("qdbuild: " + std::to_string(n) +
                  (n == 1 ? " kernel has no instance: not built (-d explain lists it)"
                          : " kernels have no instance: not built (-d explain lists them)"));
  }
}

}  // namespace qd::build::detail
