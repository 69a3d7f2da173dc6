#include "build/build_log.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/atomic_file.hpp"
#include "support/file_io.hpp"

namespace qd::build {

namespace {

void put_field(std::string& out, std::string_view field) {
  out += '\t';
  for (char c : field) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      default: out += c; break;
    }
  }
}

void put_int(std::string& out, int64_t v) { put_field(out, std::to_string(v)); }

// Splits a line on TAB and unescapes; false on a bad escape.
bool split_fields(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  fields.emplace_back();
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\t') {
      fields.emplace_back();
    } else if (c == '\\') {
      if (++i == line.size()) {
        return false;
      }
      char e = line[i];
      if (e == '\\') {
        fields.back() += '\\';
      } else if (e == 't') {
        fields.back() += '\t';
      } else if (e == 'n') {
        fields.back() += '\n';
      } else {
        return false;
      }
    } else {
      fields.back() += c;
    }
  }
  return true;
}

class Reader {
public:
  explicit Reader(const std::vector<std::string>& f) : m_f(f) {}
  bool str(std::string& out) {
    if (m_i >= m_f.size()) {
      return false;
    }
    out = m_f[m_i++];
    return true;
  }
  bool num(int64_t& out) {
    if (m_i >= m_f.size()) {
      return false;
    }
    const std::string& s = m_f[m_i++];
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  }
  bool count(size_t& out, size_t per_item) {
    int64_t n = 0;
    if (!num(n) || n < 0 || static_cast<size_t>(n) * per_item > m_f.size() - m_i) {
      return false;
    }
    out = static_cast<size_t>(n);
    return true;
  }
  bool done() const { return m_i == m_f.size(); }

private:
  const std::vector<std::string>& m_f;
  size_t m_i = 1;  // after the record type
};

bool parse_instance(const std::vector<std::string>& f, InstanceRecord& r) {
  Reader in(f);
  size_t n = 0;
  if (!(in.str(r.kernel_id) && in.str(r.instance) && in.str(r.target) && in.str(r.kernel_key) &&
        in.str(r.compiler) && in.str(r.module) && in.str(r.module_object) && in.num(r.end_ms) &&
        in.num(r.duration_ms) && in.count(n, 2))) {
    return false;
  }
  r.components.resize(n);
  for (auto& [tag, hash] : r.components) {
    in.str(tag);
    in.str(hash);
  }
  if (!in.count(n, 2)) {
    return false;
  }
  r.tasks.resize(n);
  for (LoggedTask& t : r.tasks) {
    in.str(t.task_key);
    in.str(t.object);
  }
  return in.done();
}

bool parse_inputs(const std::vector<std::string>& f, InputsRecord& r) {
  Reader in(f);
  size_t n = 0;
  if (!(in.str(r.config) && in.num(r.stamp_ns) && in.num(r.index_size) &&
        in.num(r.index_mtime_ns) && in.count(n, 4))) {
    return false;
  }
  r.files.resize(n);
  for (FileStamp& s : r.files) {
    if (!(in.str(s.path) && in.num(s.size) && in.num(s.mtime_ns) && in.str(s.hash))) {
      return false;
    }
  }
  if (!in.count(n, 4)) {
    return false;
  }
  r.configs.resize(n);
  for (ConfigStamp& c : r.configs) {
    int64_t exists = 0;
    if (!(in.str(c.path) && in.num(exists) && in.num(c.size) && in.num(c.mtime_ns))) {
      return false;
    }
    c.exists = exists != 0;
  }
  return in.done();
}

bool parse_owner(const std::vector<std::string>& f, OwnerRecord& r) {
  Reader in(f);
  size_t n = 0;
  if (!(in.str(r.owner) && in.count(n, 4))) {
    return false;
  }
  r.entries.resize(n);
  for (OwnedEntry& e : r.entries) {
    in.str(e.kernel_id);
    in.str(e.instance);
    in.str(e.target);
    in.str(e.module_object);
  }
  return in.done();
}

}  // namespace

std::string BuildLog::format(const InstanceRecord& r) {
  std::string out = "instance";
  put_field(out, r.kernel_id);
  put_field(out, r.instance);
  put_field(out, r.target);
  put_field(out, r.kernel_key);
  put_field(out, r.compiler);
  put_field(out, r.module);
  put_field(out, r.module_object);
  put_int(out, r.end_ms);
  put_int(out, r.duration_ms);
  put_int(out, static_cast<int64_t>(r.components.size()));
  for (const auto& [tag, hash] : r.components) {
    put_field(out, tag);
    put_field(out, hash);
  }
  put_int(out, static_cast<int64_t>(r.tasks.size()));
  for (const LoggedTask& t : r.tasks) {
    put_field(out, t.task_key);
    put_field(out, t.object);
  }
  out += '\n';
  return out;
}

std::string BuildLog::format(const InputsRecord& r) {
  std::string out = "inputs";
  put_field(out, r.config);
  put_int(out, r.stamp_ns);
  put_int(out, r.index_size);
  put_int(out, r.index_mtime_ns);
  put_int(out, static_cast<int64_t>(r.files.size()));
  for (const FileStamp& s : r.files) {
    put_field(out, s.path);
    put_int(out, s.size);
    put_int(out, s.mtime_ns);
    put_field(out, s.hash);
  }
  put_int(out, static_cast<int64_t>(r.configs.size()));
  for (const ConfigStamp& c : r.configs) {
    put_field(out, c.path);
    put_int(out, c.exists ? 1 : 0);
    put_int(out, c.size);
    put_int(out, c.mtime_ns);
  }
  out += '\n';
  return out;
}

std::string BuildLog::format(const OwnerRecord& r) {
  std::string out = "owner";
  put_field(out, r.owner);
  put_int(out, static_cast<int64_t>(r.entries.size()));
  for (const OwnedEntry& e : r.entries) {
    put_field(out, e.kernel_id);
    put_field(out, e.instance);
    put_field(out, e.target);
    put_field(out, e.module_object);
  }
  out += '\n';
  return out;
}

void BuildLog::add(OwnerRecord r) {
  std::string owner = r.owner;
  m_owners[std::move(owner)] = std::move(r);
  ++m_total;
}

void BuildLog::add(InstanceRecord r) {
  InstanceId id{r.kernel_id, r.instance, r.target};
  m_instances[std::move(id)] = std::move(r);
  ++m_total;
}

void BuildLog::add(InputsRecord r) {
  std::string config = r.config;
  m_inputs[std::move(config)] = std::move(r);
  ++m_total;
}

void BuildLog::parse(std::string_view text) {
  m_instances.clear();
  m_inputs.clear();
  m_owners.clear();
  m_total = 0;
  m_skipped = 0;
  m_torn = false;
  size_t eol = text.find('\n');
  m_version_ok = eol != std::string_view::npos && text.substr(0, eol) == k_log_version_line;
  if (!m_version_ok) {
    return;
  }
  text.remove_prefix(eol + 1);
  std::vector<std::string> fields;
  while (!text.empty()) {
    eol = text.find('\n');
    if (eol == std::string_view::npos) {
      ++m_skipped;  // a torn last line: the next append starts a new line
      m_torn = true;
      break;
    }
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    if (!split_fields(line, fields)) {
      ++m_skipped;
      continue;
    }
    if (fields[0] == "instance") {
      InstanceRecord r;
      if (parse_instance(fields, r)) {
        add(std::move(r));
        continue;
      }
    } else if (fields[0] == "inputs") {
      InputsRecord r;
      if (parse_inputs(fields, r)) {
        add(std::move(r));
        continue;
      }
    } else if (fields[0] == "owner") {
      OwnerRecord r;
      if (parse_owner(fields, r)) {
        add(std::move(r));
        continue;
      }
    }
    ++m_skipped;
  }
}

std::optional<InputsRecord> BuildLog::scan_inputs(std::string_view text,
                                                  const std::string& config) {
  size_t eol = text.find('\n');
  if (eol == std::string_view::npos || text.substr(0, eol) != k_log_version_line) {
    return std::nullopt;
  }
  const std::string prefix = "inputs\t" + config + "\t";
  std::string_view last;
  for (size_t at = eol + 1; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) {
      break;  // a torn last line
    }
    std::string_view line = text.substr(at, end - at);
    if (line.starts_with(prefix)) {
      last = line;
    }
    at = end + 1;
  }
  std::vector<std::string> fields;
  InputsRecord r;
  if (last.empty() || !split_fields(last, fields) || !parse_inputs(fields, r)) {
    return std::nullopt;
  }
  return r;
}

void BuildLog::load(const std::string& path) {
  std::string text;
  std::string error;
  if (!support::read_file(path, text, error)) {
    *this = BuildLog();
    return;
  }
  parse(text);
}

const InstanceRecord* BuildLog::find(const std::string& kernel_id, const std::string& instance,
                                     const std::string& target) const {
  auto it = m_instances.find(InstanceId{kernel_id, instance, target});
  return it == m_instances.end() ? nullptr : &it->second;
}

const InputsRecord* BuildLog::find_inputs(const std::string& config) const {
  auto it = m_inputs.find(config);
  return it == m_inputs.end() ? nullptr : &it->second;
}

const OwnerRecord* BuildLog::find_owner(const std::string& owner) const {
  auto it = m_owners.find(owner);
  return it == m_owners.end() ? nullptr : &it->second;
}

bool BuildLog::needs_compaction(size_t more) const {
  size_t total = m_total + more;
  size_t unique = m_instances.size() + m_inputs.size() + m_owners.size();
  return total >= k_compact_min && total > 3 * std::max<size_t>(unique, 1);
}

std::string BuildLog::compacted_text() const {
  std::string text = std::string(k_log_version_line) + "\n";
  for (const auto& [id, r] : m_instances) {
    text += format(r);
  }
  for (const auto& [config, r] : m_inputs) {
    text += format(r);
  }
  for (const auto& [owner, r] : m_owners) {
    text += format(r);
  }
  return text;
}

bool BuildLog::write(const std::string& path, const std::vector<InstanceRecord>& instances,
                     const std::vector<InputsRecord>& inputs, std::string& error,
                     const std::vector<OwnerRecord>& owners) {
  std::string batch = m_torn ? "\n" : "";
  for (const InstanceRecord& r : instances) {
    batch += format(r);
  }
  for (const InputsRecord& r : inputs) {
    batch += format(r);
  }
  for (const OwnerRecord& r : owners) {
    batch += format(r);
  }
  bool rewrite =
      !m_version_ok || needs_compaction(instances.size() + inputs.size() + owners.size());
  for (const InstanceRecord& r : instances) {
    add(r);
  }
  for (const InputsRecord& r : inputs) {
    add(r);
  }
  for (const OwnerRecord& r : owners) {
    add(r);
  }
  if (rewrite) {
    if (!support::write_file_atomic(path, compacted_text(), error)) {
      return false;
    }
    m_total = m_instances.size() + m_inputs.size() + m_owners.size();
    m_version_ok = true;
    m_torn = false;
    return true;
  }
  // Whoever creates the log writes its version line (O_EXCL makes that one process), then every
  // batch is one O_APPEND write, so concurrent builders do not interleave within a record.
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    std::string head = std::string(k_log_version_line) + "\n";
    bool ok = support::write_all(fd, head);
    ::close(fd);
    if (!ok) {
      error = "cannot write '" + path + "': " + std::strerror(errno);
      return false;
    }
  } else if (errno != EEXIST) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool ok = support::write_all(fd, batch);
  int err = errno;
  ::close(fd);
  if (!ok) {
    error = "cannot write '" + path + "': " + std::strerror(err);
    return false;
  }
  m_torn = false;
  return true;
}

}  // namespace qd::build
