#include "build/build_run.hpp"

#include <ctime>

#include <sys/stat.h>

#include "store/build_stats.hpp"
#include "support/file_io.hpp"

namespace qd::build::detail {

namespace {

int64_t unix_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

void stat_index(const std::string& path, int64_t& size, int64_t& mtime) {
  if (!stat_file(path, size, mtime)) {
    size = -1;
    mtime = 0;
  }
}

// publish() plus removals, under one index lock: each key of `remove_if` leaves the index if the
// index still holds the module object this builder published for it (another builder's newer
// entry stays). `removed`: the kernel ids removed.
store::Result<store::Unit>
publish_and_remove(store::LocalStore& st, std::vector<store::Entry> entries,
                   const std::map<store::EntryKey, std::string>& remove_if,
                   std::set<std::string>& removed) {
  int64_t now = static_cast<int64_t>(::time(nullptr));
  for (store::Entry& e : entries) {
    if (e.record.last_used == 0) {
      e.record.last_used = now;
    }
  }
  return st.update_index(
      [&](std::vector<store::Entry> current) -> store::Result<std::vector<store::Entry>> {
        removed.clear();
        for (const store::Entry& e : entries) {
          for (const store::ObjectId& id : store::referenced_objects(e)) {
            struct stat sb{};
            if (::stat(st.object_path(id).c_str(), &sb) != 0) {
              return store::fail(store::FailureKind::not_found,
                                 "cannot publish kernel '" + e.key.kernel_id + "': its object '" +
                                     st.object_path(id) + "' is not in the store (removed by gc?)");
            }
          }
        }
        std::vector<store::Entry> merged = store::merge_entries(std::move(current), entries);
        std::erase_if(merged, [&](const store::Entry& e) {
          auto it = remove_if.find(e.key);
          if (it == remove_if.end() || !e.record.module || e.record.module->hex() != it->second) {
            return false;
          }
          removed.insert(e.key.kernel_id);
          return true;
        });
        return merged;
      });
}

}  // namespace

// Entries this build owns (docs/build.md "Entries a build owns"): the instances it built or
// reused now, plus the previously owned entries of kernels that failed or whose file has errors
// (their last good entries stay published). Previously owned entries of kernels that left the
// tree (file deleted or renamed, kernel removed, instance no longer configured) are removed.
void Run::ownership(std::vector<store::EntryKey>& remove, OwnerRecord& owned) {
  const sema::Analysis& a = *m_a;
  owned.owner = m_s.owner;
  std::set<std::string> broken;
  for (int32_t m : m_broken_modules) {
    broken.insert(a.program->modules[m].name);
  }
  std::set<std::string> failed(m_failed_kernels.begin(), m_failed_kernels.end());
  std::map<InstanceId, std::string> now;
  for (const Work& w : m_work) {
    const sema::KernelReport& kr = a.kernels[w.kernel];
    if (w.failed) {
      failed.insert(kr.id);
    } else if (w.module_object) {
      now[{kr.id, kr.instances[w.instance].instance, m_target.name}] = w.module_object->hex();
    }
  }
  for (const auto& [id, hex] : now) {
    owned.entries.push_back({std::get<0>(id), std::get<1>(id), std::get<2>(id), hex});
  }
  if (const OwnerRecord* prev = m_log.find_owner(m_s.owner)) {
    for (const OwnedEntry& e : prev->entries) {
      if (now.count({e.kernel_id, e.instance, e.target}) != 0) {
        continue;
      }
      std::string module = e.kernel_id.substr(0, e.kernel_id.find(':'));
      if (broken.count(module) != 0 || failed.count(e.kernel_id) != 0) {
        owned.entries.push_back(e);
        if (broken.count(module) != 0) {
          m_kept_broken.insert(e.kernel_id);
        }
        continue;
      }
      remove.push_back({e.kernel_id, e.instance, e.target});
    }
  }
  std::sort(owned.entries.begin(), owned.entries.end());
}

void Run::publish_and_log() {
  const sema::Analysis& a = *m_a;
  std::map<std::string, bool> kernel_ok;
  std::set<std::string> compiled;  // task keys counted as compiled
  for (Work& w : m_work) {
    const sema::KernelReport& kr = a.kernels[w.kernel];
    const sema::InstanceKey& inst = kr.instances[w.instance];
    if (w.failed) {
      kernel_ok[kr.id] = false;
      continue;
    }
    kernel_ok.emplace(kr.id, true);
    ++m_r.instances;
    bool module_changed = !w.reused || w.module_object != w.record.module;
    if (w.reused) {
      std::set<store::ObjectId> codes;
      for (const store::Task& task : w.record.tasks) {
        if (task.code) {
          codes.insert(*task.code);
        }
      }
      m_r.tasks.total += codes.size();
      m_r.tasks.reused += codes.size();
      if (!module_changed) {
        continue;
      }
      const InstanceRecord* logged = m_log.find(kr.id, inst.instance, m_target.name);
      store::Entry e{{kr.id, inst.instance, m_target.name}, w.record};
      e.record.module = w.module_object;
      e.record.last_used = 0;
      m_entries.push_back(std::move(e));
      InstanceRecord r = *logged;
      r.module_object = w.module_object->hex();
      m_log_records.push_back(std::move(r));
      continue;
    }
    // Lowered: the tasks whose unit this build compiled count as compiled (each unit once).
    m_r.lowered_tasks += w.unit_keys.size();
    store::Entry e;
    e.key = {kr.id, inst.instance, m_target.name};
    InstanceRecord r;
    r.kernel_id = kr.id;
    r.instance = inst.instance;
    r.target = m_target.name;
    r.kernel_key = inst.key;
    r.compiler = m_compiler;
    r.module = a.program->modules[w.module].name;
    r.module_object = w.module_object->hex();
    r.end_ms = unix_ms();
    r.duration_ms = static_cast<int64_t>(w.duration_ms);
    for (const sema::KeyHasher::Component& c : inst.components) {
      r.components.emplace_back(c.tag, c.hash);
    }
    for (const codegen::TaskCode& tc : w.code.tasks) {
      store::Task task;
      task.name = tc.symbol;
      task.kind = tc.range ? store::TaskKind::range : store::TaskKind::serial;
      task.launch_metadata.assign(reinterpret_cast<const char*>(&tc.launch), sizeof tc.launch);
      task.launch_metadata.append(reinterpret_cast<const char*>(tc.loop_ends.data()),
                                  tc.loop_ends.size() * sizeof(qdrt_task_loop_end));
      task.code = w.unit_objects[tc.unit];
      e.record.tasks.push_back(std::move(task));
      r.tasks.push_back({w.unit_keys[tc.unit], w.unit_objects[tc.unit]->hex()});
    }
    // Counted per unit (one per task when split): compiled when this build compiled it, the
    // first time it appears; else reused.
    for (const std::string& key : w.unit_keys) {
      ++m_r.tasks.total;
      if (m_job_of.count(key) != 0 && compiled.insert(key).second) {
        ++m_r.tasks.compiled;
        const CompileJob& job = m_jobs[m_job_of.at(key)];
        m_r.tasks.remote_executed += job.where == CompileJob::Where::remote;
        m_r.tasks.remote_cached += job.where == CompileJob::Where::action_cache;
      } else {
        ++m_r.tasks.reused;
        m_r.tasks.fetched += m_fetched.count(key);
      }
    }
    e.record.module = w.module_object;
    for (const codegen::ArgumentInfo& arg : w.code.arguments) {
      e.record.arguments.push_back({arg.name, arg.kind, arg.dtype, arg.ndim, arg.element_shape,
                                    arg.field_shape, arg.field_strides});
    }
    m_entries.push_back(std::move(e));
    m_log_records.push_back(std::move(r));
  }
  for (const std::string& id : m_failed_kernels) {
    kernel_ok[id] = false;
  }
  std::set<std::string> lowered;
  for (const Work& w : m_work) {
    if (!w.reused) {
      lowered.insert(a.kernels[w.kernel].id);
    }
  }
  m_r.lowered.assign(lowered.begin(), lowered.end());
  std::vector<store::EntryKey> remove;
  std::map<store::EntryKey, std::string> remove_if;  // key -> module object hex still published
  OwnerRecord owned;
  ownership(remove, owned);
  for (const store::EntryKey& k : remove) {
    const OwnerRecord* prev = m_log.find_owner(m_s.owner);
    for (const OwnedEntry& e : prev->entries) {
      if (e.kernel_id == k.kernel_id && e.instance == k.instance && e.target == k.target) {
        remove_if[k] = e.module_object;
      }
    }
  }
  for (const std::string& id : m_kept_broken) {
    kernel_ok[id] = false;
  }
  for (const auto& [id, ok] : kernel_ok) {
    if (ok) {
      ++m_r.kernels;
    } else {
      m_r.failed.push_back(id);
    }
  }
  // Failed kernels, in kernel order (their source diagnostics first).
  std::set<std::string> reported;
  for (Work& w : m_work) {
    const sema::KernelReport& kr = a.kernels[w.kernel];
    if (w.failed && reported.insert(kr.id).second) {
      std::vector<sema::SemaDiagnostic> diags = w.code.diagnostics;
      m_r.errors += static_cast<size_t>(
          std::count_if(diags.begin(), diags.end(), [](const sema::SemaDiagnostic& d) {
            return d.d.severity == Severity::Error;
          }));
      std::vector<std::string> messages;
      for (Work& other : m_work) {
        if (other.kernel == w.kernel && other.failed) {
          messages.insert(messages.end(), other.messages.begin(), other.messages.end());
        }
      }
      m_status.kernel_failed(a, kr.id, diags, messages);
    }
  }

  {
    Timer t(m_metrics, "publish");
    store::Result<store::Unit> published = store::Unit{};
    std::set<std::string> removed;
    if (!remove_if.empty()) {
      published = publish_and_remove(*m_store, m_entries, remove_if, removed);
    } else if (!m_entries.empty()) {
      published = m_store->publish(m_entries);
    }
    if (!published) {
      m_status.error(published.error());
      m_r.internal_error = true;
      return;  // nothing logged: the next build retries
    }
    m_r.removed.assign(removed.begin(), removed.end());
  }
  Timer t(m_metrics, "build log");
  std::vector<InputsRecord> inputs;
  if (m_r.failed.empty() && !m_r.input_error && !m_r.internal_error) {
    m_stamp.config = m_config;
    stat_index(m_store->index_path(), m_stamp.index_size, m_stamp.index_mtime_ns);
    inputs.push_back(std::move(m_stamp));
  }
  std::vector<OwnerRecord> owners;
  const OwnerRecord* prev_owned = m_log.find_owner(m_s.owner);
  if (prev_owned == nullptr || *prev_owned != owned) {
    owners.push_back(std::move(owned));
  }
  std::string error;
  if (!m_log_records.empty() || !inputs.empty() || !owners.empty()) {
    if (!m_log.write(m_log_path, m_log_records, inputs, error, owners)) {
      m_status.warning(error);
    }
  }
  store::BuildStats s;
  s.time = static_cast<int64_t>(::time(nullptr));
  for (const Work& w : m_work) {
    if (!w.failed) {
      (w.reused ? s.hits : s.misses) += 1;
    }
  }
  s.compile_ms = static_cast<uint64_t>(m_compile_ms);
  s.saved_ms = m_saved_ms;
  if (m_s.remote) {
    store::RemoteStats rs = m_s.remote->take_stats();
    s.remote = true;
    s.remote_hits = rs.hits;
    s.remote_misses = rs.misses;
    s.remote_errors = rs.errors;
    s.remote_corrupt = rs.corrupt;
    s.bytes_down = rs.bytes_down;
    s.bytes_up = rs.bytes_up;
    s.remote_saved_ms = rs.saved_ms;
    s.remote_requests = rs.requests;
    if (m_o.stats) {
      std::string kinds;
      for (const auto& [kind, n] : rs.errors_by_kind) {
        kinds += (kinds.empty() ? " (" : ", ") + kind + " " + std::to_string(n);
      }
      m_status.info("remote: " + std::to_string(rs.hits) + " hits, " + std::to_string(rs.misses) +
                    " misses, " + std::to_string(rs.errors) + " errors" +
                    (kinds.empty() ? "" : kinds + ")") + ", " + std::to_string(rs.bytes_down) +
                    " bytes down, " + std::to_string(rs.bytes_up) + " bytes up, " +
                    std::to_string(rs.requests) + " requests, " + std::to_string(rs.uploaded) +
                    " uploaded, " + std::to_string(rs.saved_ms) + " ms saved");
    }
  }
  if (store::Result<store::Unit> r = store::append_build_stats(m_store->stats_log_path(), s); !r) {
    m_status.warning(r.error());
  }
}

}  // namespace qd::build::detail
