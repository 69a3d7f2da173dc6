// The build log (ninja's .ninja_log): DIR/build.log in the store
// directory, append-only text, read whole at startup.
//
//   log      = "# qdbuild log v1\n" record*
//   record   = (instance | inputs | owner) "\n"  fields separated by TAB; in every field
//                                                  '\\' '\t' '\n' are written \\ \t \n
//   instance = "instance" kernel_id instance target kernel_key compiler module module_object
//              end_ms duration_ms n_components (tag hash){n_components} n_tasks (task_key
//              object){n_tasks}
//   inputs   = "inputs" config stamp_ns index_size index_mtime_ns
//              n_files (path size mtime_ns content_hash){n_files}
//              n_configs (path exists size mtime_ns){n_configs}
//   owner    = "owner" owner_key n_entries (kernel_id instance target module_object){n_entries}
//
// instance: one kernel instance built for a target: its kernel key and the key's components (tag,
// hash: `-d explain` diffs them), the compiler identity (qdbuild, toolchain), the module it was
// linked into (dotted name, .so object id), end time (unix ms) and lowering+compile time, and its
// tasks in launch order (task key, object id). The last record for a (kernel, instance, target)
// wins.
// inputs: what a successful build read, for no-op builds (input_stamp.hpp): the build's config
// key (working directory, paths, target, compiler), when the files were stat()ed, the index's
// size and mtime right after the build published it, every source file (path, size, mtime_ns,
// content hash or "" — the hash only for files modified within the clock's granularity of the
// stat: racy-git), and every config file candidate looked at (path, 0/1, size, mtime_ns). The last
// record for a config wins.
// owner: the index entries a build of some paths owns (docs/build.md "Entries a build owns"): the
// owner key (working directory, paths, target: not the compiler), and per entry its key and the
// module object the build published. A later build of the same paths removes the owned entries of
// kernels that left its tree, if the index still holds what it published. The last record for an
// owner wins. (Added in qdbuild 0.1.0 with `--watch`; an older reader skips the line.)
//
// A line that does not parse (a torn last line after a crash, a damaged byte) is skipped; a log
// whose first line is not the version line is read as empty and rewritten on the next write. Past
// 3x as many records as unique keys (and at least k_compact_min records) the writer recompacts
// the log: the latest record per key, written through support::AtomicFile.
//
// Version history: v1 (qdbuild 0.1.0) first version.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace qd::build {

struct LoggedTask {
  std::string task_key;
  std::string object;  // hex object id

  bool operator==(const LoggedTask&) const = default;
};

struct InstanceRecord {
  std::string kernel_id;
  std::string instance;
  std::string target;
  std::string kernel_key;
  std::string compiler;
  std::string module;         // dotted module name
  std::string module_object;  // hex .so object id
  int64_t end_ms = 0;
  int64_t duration_ms = 0;
  std::vector<std::pair<std::string, std::string>> components;  // (tag, hash), key order
  std::vector<LoggedTask> tasks;                                // launch order

  bool operator==(const InstanceRecord&) const = default;
};

struct FileStamp {
  std::string path;
  int64_t size = -1;  // -1: missing
  int64_t mtime_ns = 0;
  std::string hash;  // content hash for racy files, else ""

  bool operator==(const FileStamp&) const = default;
};

struct ConfigStamp {
  std::string path;
  bool exists = false;
  int64_t size = 0;
  int64_t mtime_ns = 0;

  bool operator==(const ConfigStamp&) const = default;
};

struct InputsRecord {
  std::string config;  // the build's config key
  int64_t stamp_ns = 0;
  int64_t index_size = 0;
  int64_t index_mtime_ns = 0;
  std::vector<FileStamp> files;
  std::vector<ConfigStamp> configs;

  bool operator==(const InputsRecord&) const = default;
};

struct OwnedEntry {
  std::string kernel_id;
  std::string instance;
  std::string target;
  std::string module_object;  // hex .so object id as published

  auto operator<=>(const OwnedEntry&) const = default;
};

struct OwnerRecord {
  std::string owner;
  std::vector<OwnedEntry> entries;  // sorted

  bool operator==(const OwnerRecord&) const = default;
};

using InstanceId = std::tuple<std::string, std::string, std::string>;  // kernel, instance, target

inline constexpr std::string_view k_log_version_line = "# qdbuild log v1";
inline constexpr size_t k_compact_min = 100;

class BuildLog {
public:
  // Reads `path` whole. A missing file is an empty log; see above for damage.
  void load(const std::string& path);
  // Parses log text (for tests and load()).
  void parse(std::string_view text);
  // Only the last inputs record for `config` in log text, without parsing anything else (the
  // no-op check reads just this).
  static std::optional<InputsRecord> scan_inputs(std::string_view text, const std::string& config);

  const InstanceRecord* find(const std::string& kernel_id, const std::string& instance,
                             const std::string& target) const;
  const InputsRecord* find_inputs(const std::string& config) const;
  const OwnerRecord* find_owner(const std::string& owner) const;

  const std::map<InstanceId, InstanceRecord>& instances() const { return m_instances; }
  const std::map<std::string, InputsRecord>& inputs() const { return m_inputs; }
  size_t total_records() const { return m_total; }
  size_t skipped_lines() const { return m_skipped; }
  bool version_ok() const { return m_version_ok; }

  // Whether writing `more` records should recompact (3x unique, at least k_compact_min).
  bool needs_compaction(size_t more) const;

  // Adds records to the log file (one write): appends, or rewrites the whole log (latest record
  // per key, these included) when the version line is wrong or needs_compaction(). Updates this
  // object to the new state. Returns false with `error` on failure.
  bool write(const std::string& path, const std::vector<InstanceRecord>& instances,
             const std::vector<InputsRecord>& inputs, std::string& error,
             const std::vector<OwnerRecord>& owners = {});

  static std::string format(const InstanceRecord& r);
  static std::string format(const InputsRecord& r);
  static std::string format(const OwnerRecord& r);

private:
  void add(InstanceRecord r);
  void add(InputsRecord r);
  void add(OwnerRecord r);
  std::string compacted_text() const;

  std::map<InstanceId, InstanceRecord> m_instances;
  std::map<std::string, InputsRecord> m_inputs;
  std::map<std::string, OwnerRecord> m_owners;
  size_t m_total = 0;
  size_t m_skipped = 0;
  bool m_version_ok = true;  // false: a file exists whose first line is not ours
  bool m_torn = false;       // the file ends in a partial line
};

}  // namespace qd::build
