// The builder's side of the remote cache (docs/remote.md): on task-cache misses, the records and
// objects are fetched in batches before anything compiles; what the run compiled and linked is
// uploaded after it. A fetched object enters the local store only after RemoteSet verified it.
#include <cstdlib>

#include "backend/backend.hpp"
#include "build/build_run.hpp"
#include "store/remote_config.hpp"

namespace qd::build::detail {

store::RemoteSet* Run::remote_set() {
  if (!m_s.remote_ready) {
    m_s.remote_ready = true;
    store::RemoteSettings settings;
    if (m_a != nullptr) {
      const sema::BuildConfig::Remote& r = m_a->config.remote;
      settings.urls = r.urls;
      settings.read_only = r.read_only;
      settings.connect_timeout_ms = r.connect_timeout_ms;
      settings.timeout_ms = r.timeout_ms;
      settings.verify_key = r.verify_key;
    }
    std::vector<std::string> errors;
    m_s.remote = store::make_remote_set(
        settings, [](const char* name) { return std::getenv(name); },
        [&s = m_s](const std::string& w) {
          std::lock_guard<std::mutex> lock(s.status_mutex);
          s.status.warning(w);
        },
        errors);
    for (const std::string& e : errors) {
      m_status.error(e);
      m_r.input_error = true;
      ++m_r.errors;
    }
  }
  return m_s.remote.get();
}

bool Run::keep_fetched(const std::string& key, store::RemoteSet::Fetched& f, bool remember) {
  if (f.has_content) {
    store::Result<store::ObjectId> id = m_store->put(f.content);
    if (!id || *id != f.record.object) {
      m_status.warning("cannot store an object fetched from the remote cache: " +
                       (id ? std::string("address mismatch") : id.error()));
      return false;
    }
    if (remember) {
      remember_object(*id, std::move(f.content));
    }
  }
  if (store::Result<store::Unit> r = m_cache->insert(key, f.record); !r) {
    m_status.warning(r.error());
    return false;
  }
  return true;
}

void Run::fetch_from_remote(const std::vector<size_t>& todo) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (size_t i : todo) {
    const Work& w = m_work[i];
    if (!w.code.ok) {
      continue;
    }
    for (size_t u = 0; u < w.unit_keys.size(); ++u) {
      if (!w.unit_objects[u] && seen.insert(w.unit_keys[u]).second) {
        keys.push_back(w.unit_keys[u]);
      }
    }
  }
  if (keys.empty()) {
    return;
  }
  store::RemoteSet* remote = remote_set();
  if (remote == nullptr) {
    return;
  }
  Timer t(m_metrics, "remote fetch");
  // The module ABI unit too: a fresh store needs it to link.
  std::string abi_key = m_target.task_key(backend::module_abi_unit().source);
  if (!m_cache->lookup(abi_key)) {
    keys.push_back(abi_key);
  }
  std::map<std::string, store::RemoteSet::Fetched> got =
      remote->fetch(keys, [&](const store::ObjectId& id) { return m_store->get_header(id).ok(); });
  for (auto& [key, f] : got) {
    if (keep_fetched(key, f, true)) {
      m_fetched.insert(key);
    }
  }
  for (size_t i : todo) {
    Work& w = m_work[i];
    if (!w.code.ok) {
      continue;
    }
    const sema::KernelReport& kr = m_a->kernels[w.kernel];
    for (size_t u = 0; u < w.unit_keys.size(); ++u) {
      auto it = got.find(w.unit_keys[u]);
      if (w.unit_objects[u] || it == got.end() || m_fetched.count(it->first) == 0) {
        continue;
      }
      w.unit_objects[u] = it->second.record.object;
      m_saved_ms += it->second.record.compile_ms;
      if (m_o.explain) {
        std::string label;
        for (const codegen::TaskCode& tc : w.code.tasks) {
          if (tc.unit == u) {
            label = " (" + tc.label + ")";
            break;
          }
        }
        m_status.info("qdbuild explain: task " + w.where + "#" + std::to_string(u) + label +
                      " of " + kr.id + ": fetched from remote");
      }
    }
  }
}

void Run::fetch_links_from_remote(const std::vector<std::string>& keys) {
  if (keys.empty()) {
    return;
  }
  store::RemoteSet* remote = remote_set();
  if (remote == nullptr) {
    return;
  }
  Timer t(m_metrics, "remote fetch links");
  std::map<std::string, store::RemoteSet::Fetched> got =
      remote->fetch(keys, [&](const store::ObjectId& id) { return m_store->get_header(id).ok(); });
  for (auto& [key, f] : got) {
    if (!keep_fetched(key, f, false)) {
      continue;
    }
    m_saved_ms += f.record.compile_ms;
    if (m_o.explain) {
      m_status.info("qdbuild explain: module link " + key.substr(0, 12) + ": fetched from remote");
    }
  }
}

void Run::note_upload(const std::string& key, const store::ObjectId& id, uint64_t ms,
                      const std::string& content) {
  if (m_s.remote_ready && m_s.remote == nullptr) {
    return;
  }
  if (remote_set() == nullptr) {
    return;
  }
  m_uploads.push_back({key, {id, ms}, content});
}

void Run::upload_to_remote() {
  store::RemoteSet* remote = m_s.remote.get();
  if (remote == nullptr) {
    return;
  }
  if (!m_uploads.empty() && remote->writable()) {
    Timer t(m_metrics, "remote upload");
    remote->upload(m_uploads);
  }
  m_uploads.clear();
  remote->report_problems();
}

}  // namespace qd::build::detail
