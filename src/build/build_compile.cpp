#include "build/build_run.hpp"

#include <algorithm>
#include <exception>

#include "backend/backend.hpp"
#include "backend/plugin.hpp"
#include "support/thread_pool.hpp"

namespace qd::build::detail {

void Run::generate() {
  Timer t(m_metrics, "lower+codegen");
  std::vector<size_t> todo;
  for (size_t i = 0; i < m_work.size(); ++i) {
    if (!m_work[i].reused) {
      todo.push_back(i);
    }
  }
  codegen::Options copt;
  copt.dump_ir = m_o.dump_ir;
  copt.cuda = m_target.cuda;
  support::parallel_for(
      todo.size(),
      [&](size_t n) {
        Work& w = m_work[todo[n]];
        auto t0 = Clock::now();
        try {
          w.code = codegen::generate_kernel(*m_a, w.kernel, w.instance, copt);
        } catch (const std::exception& e) {
          w.code = {};
          fail(w,
               {std::string("internal error, please report: code generation threw: ") + e.what()});
        }
        if (w.code.ok) {
          for (const codegen::Unit& u : w.code.units) {
            std::string key = m_target.task_key(u.source);
            std::optional<store::TaskRecord> hit = m_cache->lookup(key);
            w.unit_objects.push_back(hit ? std::optional(hit->object) : std::nullopt);
            if (hit) {
              std::lock_guard<std::mutex> lock(m_status_mutex);
              m_saved_ms += hit->compile_ms;
            }
            w.unit_keys.push_back(std::move(key));
          }
        }
        w.duration_ms = ms_since(t0);
      },
      m_o.jobs);
  // What the local task cache lacks, from the remote cache in one batch (build_remote.cpp).
  fetch_from_remote(todo);
  // In kernel order: IR dumps, failures, and the compile jobs (equal units once).
  for (size_t i : todo) {
    Work& w = m_work[i];
    const sema::KernelReport& kr = m_a->kernels[w.kernel];
    if (m_o.dump_ir && !w.code.ir_dump.empty()) {
      m_status.output(w.code.ir_dump);
    }
    if (!w.code.ok) {
      if (!w.failed && w.code.diagnostics.empty()) {
        fail(w, {"internal error, please report: code generation failed without a diagnostic"});
      }
      w.failed = true;
      continue;
    }
    for (size_t u = 0; u < w.code.units.size(); ++u) {
      if (w.unit_objects[u] || m_job_of.count(w.unit_keys[u]) != 0) {
        continue;
      }
      CompileJob job;
      job.key = w.unit_keys[u];
      job.source = w.code.units[u].source;
      job.event.kernel_id = kr.id;
      job.event.instance = kr.instances[w.instance].instance;
      job.event.where = w.where + "#" + std::to_string(u);
      for (const codegen::TaskCode& tc : w.code.tasks) {
        if (tc.unit == u) {
          job.event.label = tc.label;
          break;
        }
      }
      m_job_of[job.key] = m_jobs.size();
      m_jobs.push_back(std::move(job));
    }
  }
}

void Run::compile() {
  Timer t(m_metrics, "compile");
  // The module ABI unit, once per toolchain, through the task cache too.
  bool need_link = std::any_of(m_work.begin(), m_work.end(),
                               [](const Work& w) { return !w.reused && !w.failed; });
  if (need_link) {
    backend::TaskUnit abi = backend::module_abi_unit();
    std::string key = m_target.task_key(abi.source);
    if (std::optional<store::TaskRecord> hit = m_cache->lookup(key)) {
      m_abi_object = hit->object;
    } else {
      CompileJob job;
      job.key = key;
      job.source = abi.source;
      job.event.where = "module ABI";
      job.silent = true;
      m_job_of[key] = m_jobs.size();
      m_jobs.push_back(std::move(job));
    }
  }
  size_t visible = static_cast<size_t>(
      std::count_if(m_jobs.begin(), m_jobs.end(), [](const CompileJob& j) { return !j.silent; }));
  m_status.planned(visible);
  if (!compile_remotely()) {
    if (m_o.audit > 0 && !m_jobs.empty()) {
      m_status.warning("--audit: no remote execution is configured; every task compiles here");
    }
    support::parallel_for(
        m_jobs.size(),
        [&](size_t i) {
          CompileJob& job = m_jobs[i];
          if (!job.silent) {
            locked([&] { m_status.compile_started(job.event); });
          }
          auto t0 = Clock::now();
          BuildTarget::Output obj = m_target.compile({job.event.where, job.source});
          job.ms = ms_since(t0);
          finish_job(job, std::move(obj));
        },
        m_o.jobs);
  }
  for (CompileJob& job : m_jobs) {
    m_compile_ms += job.ms;
    if (job.ok) {
      note_upload(job.key, job.object, static_cast<uint64_t>(job.ms), job.bytes);
      remember_object(job.object, std::move(job.bytes));
      if (job.silent) {
        m_abi_object = job.object;
      }
    } else if (job.silent) {
      m_r.internal_error = true;
      m_status.error("internal error, please report: the module ABI unit does not compile: " +
                     join(job.errors, "; "));
    }
  }
  for (Work& w : m_work) {
    if (w.reused || w.failed) {
      continue;
    }
    for (size_t u = 0; u < w.unit_objects.size(); ++u) {
      if (w.unit_objects[u]) {
        continue;
      }
      const CompileJob& job = m_jobs[m_job_of.at(w.unit_keys[u])];
      if (job.ok) {
        w.unit_objects[u] = job.object;
        continue;
      }
      std::vector<std::string> lines;
      lines.push_back("internal error, please report: task " + job.event.where + " (" +
                      job.event.label + ") does not compile:");
      for (const std::string& e : job.errors) {
        lines.push_back("  " + e);
      }
      fail(w, lines);
      m_r.internal_error = true;
      break;
    }
  }
}

void Run::finish_job(CompileJob& job, BuildTarget::Output&& obj) {
  if (obj.ok) {
    store::Result<store::ObjectId> id = m_store->put(obj.bytes);
    if (!id) {
      job.errors.push_back("cannot store the object of " + job.event.where + ": " + id.error());
    } else {
      job.object = *id;
      job.ok = true;
      store::Result<store::Unit> rec =
          m_cache->insert(job.key, {*id, static_cast<uint64_t>(job.ms)});
      if (!rec) {
        locked([&] { m_status.warning(rec.error()); });
      }
      job.bytes = std::move(obj.bytes);
    }
  } else {
    for (const backend::Diagnostic& d : obj.diagnostics) {
      if (d.severity == backend::Diagnostic::Severity::error) {
        job.errors.push_back(backend::format_diagnostic(d));
      }
    }
    if (job.errors.empty()) {
      job.errors.push_back("the backend failed without a diagnostic");
    }
  }
  if (!job.silent) {
    locked([&] { m_status.compile_finished(job.event, job.ok); });
  }
}

void Run::remember_object(const store::ObjectId& id, std::string bytes) {
  if (m_s.object_bytes + bytes.size() > k_object_cache_bytes) {
    m_fresh_objects.clear();
    m_s.object_bytes = 0;
  }
  m_s.object_bytes += bytes.size();
  m_fresh_objects[id] = std::move(bytes);
}

std::optional<std::string> Run::object_bytes(const store::ObjectId& id) {
  auto it = m_fresh_objects.find(id);
  if (it != m_fresh_objects.end()) {
    return it->second;
  }
  store::Result<std::string> raw = m_store->get(id);
  if (!raw) {
    m_status.error(raw.error());
    return std::nullopt;
  }
  remember_object(id, *raw);
  return std::move(*raw);
}

// The objects a module links (every distinct unit object of its instances, then the module ABI
// object) and its link key: a link is cached like a task, the same objects in the same order
// give the same module.
std::string Run::link_inputs(const std::vector<Work*>& works, std::vector<store::ObjectId>& ids) {
  std::set<store::ObjectId> seen;
  auto add = [&](const store::ObjectId& id) {
    if (seen.insert(id).second) {
      ids.push_back(id);
    }
  };
  for (Work* w : works) {
    if (w->reused) {
      for (const store::Task& task : w->record.tasks) {
        if (task.code) {
          add(*task.code);
        }
      }
    } else {
      for (const std::optional<store::ObjectId>& id : w->unit_objects) {
        add(*id);
      }
    }
  }
  add(*m_abi_object);
  std::string link_input = "qd-link-1\n" + m_toolchain + "\n";
  for (const store::ObjectId& id : ids) {
    link_input += id.hex() + "\n";
  }
  return sema::sha256_hex(link_input);
}

void Run::link_modules() {
  Timer t(m_metrics, "link");
  std::map<int32_t, std::vector<Work*>> by_module;
  for (Work& w : m_work) {
    if (!w.failed) {
      by_module[w.module].push_back(&w);
    }
  }
  // Relink when an instance of the module was lowered, or its instances disagree on the .so.
  auto needs_relink = [](const std::vector<Work*>& works) {
    bool relink = false;
    for (Work* w : works) {
      relink = relink || !w->reused || w->module_object != works.front()->module_object;
    }
    return relink;
  };
  // Every link key first: those the task cache lacks come from the remote in one batch.
  std::map<int32_t, std::pair<std::vector<store::ObjectId>, std::string>> inputs;
  std::vector<std::string> missing_links;
  for (auto& [module, works] : by_module) {
    if (!needs_relink(works) || !m_abi_object) {
      continue;
    }
    auto& [ids, link_key] = inputs[module];
    link_key = link_inputs(works, ids);
    if (!m_cache->lookup(link_key)) {
      missing_links.push_back(link_key);
    }
  }
  fetch_links_from_remote(missing_links);
  for (auto& [module, works] : by_module) {
    if (!needs_relink(works)) {
      continue;
    }
    if (!m_abi_object) {
      for (Work* w : works) {
        fail(*w, {"internal error, please report: no module ABI object to link"});
      }
      continue;
    }
    const std::vector<store::ObjectId>& ids = inputs[module].first;
    const std::string& link_key = inputs[module].second;
    const std::string& path = m_a->program->modules[module].path;
    std::optional<store::ObjectId> so;
    std::vector<std::string> errors;
    if (std::optional<store::TaskRecord> hit = m_cache->lookup(link_key)) {
      so = hit->object;
    } else {
      std::vector<std::string> objects;
      bool missing = false;
      for (const store::ObjectId& id : ids) {
        std::optional<std::string> bytes = object_bytes(id);
        if (!bytes) {
          missing = true;
          break;
        }
        objects.push_back(std::move(*bytes));
      }
      auto t0 = Clock::now();
      if (missing) {
        errors.push_back("a task object of module '" + path + "' cannot be read from the store");
      } else {
        BuildTarget::Output linked = m_target.link(objects);
        if (!linked.ok) {
          errors.push_back("internal error, please report: module '" + path + "' does not link:");
          for (const backend::Diagnostic& d : linked.diagnostics) {
            errors.push_back("  " + backend::format_diagnostic(d));
          }
        } else if (store::Result<store::ObjectId> id = m_store->put(linked.bytes); !id) {
          errors.push_back("cannot store module '" + path + "': " + id.error());
        } else {
          so = *id;
          ++m_r.modules_linked;
          uint64_t link_ms = static_cast<uint64_t>(ms_since(t0));
          note_upload(link_key, *id, link_ms, linked.bytes);
          store::Result<store::Unit> rec = m_cache->insert(link_key, {*id, link_ms});
          if (!rec) {
            m_status.warning(rec.error());
          }
        }
      }
    }
    if (!so) {
      m_r.internal_error = true;
      for (Work* w : works) {
        fail(*w, errors);
      }
      continue;
    }
    for (Work* w : works) {
      w->module_object = so;
    }
  }
}

}  // namespace qd::build::detail
