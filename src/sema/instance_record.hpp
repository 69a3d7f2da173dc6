// Recorded runs (`python -m qdrt.record`, docs/record.md) as instances and defines.
//
// A record is JSON: {"format": "qdrt-record 1", "config": {...}, "kernels": {id: [instance]},
// "defines": {"module.name": value}}. Each instance's parameter descriptions become the same
// ConfigValues `[tool.qdbuild.instances]` gives:
//
//   "ndarray(f32, 2, element=(3,), layout=(1, 0), grad, source=numpy)"
//       -> {dtype = 'vector(3, f32)', ndim = 2, layout = '(1, 0)', needs_grad = True,
//           source = 'numpy'}
//   {"dataclass": C, "members": {...}}   -> {__class__ = 'C', <member> = ..., ...}
//   {"template": v}                      -> the value: a number, bool, str, None, tuple, an enum
//                                           member, a func id ('mod:qualname'), or for a config
//                                           object {__class__ = 'C', <field/property> = ...}
//   {"scalar": T}                        -> nothing (the annotation says it)
//
// Defines become Python expressions (build_config.hpp Define): 2.5, quadrants.f32,
// quadrants.types.vector(3, quadrants.f32), genesis.constants.backend.cpu, ...
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sema/build_config.hpp"

namespace qd::sema {

// Reads the record at `path` and merges it into `config`: its instances are added to the
// kernels' (an instance equal to one already there is not repeated), its defines to those not
// already given (the config's own defines win). Problems go to `errors` with the file and the
// entry. Returns false when the file cannot be read or is not a record.
bool read_record(const std::string& path, BuildConfig& config, std::vector<ConfigError>& errors);

// The same on a record's text (`path` names it in messages and provenance); the fuzz target's
// entry point. Never throws, whatever the bytes.
bool read_record_text(const std::string& text, const std::string& path, BuildConfig& config,
                      std::vector<ConfigError>& errors);

// One record read on its own, before it is merged into a config: what read_record_text merges
// (in this order: `errors`, the kernels' instances, the defines, `last_error`). A RecordCache
// keeps these between analyses (`qdbuild lsp`).
struct RecordContent {
  std::string path;
  bool ok = false;                  // the file is a record (merge_record returns it)
  std::vector<ConfigError> errors;  // the file's and its kernels' problems
  struct Kernel {
    std::string id;
    std::vector<Instance> instances;   // each once, in the record's order
    std::vector<std::string> texts;    // instance_text of each
    std::vector<std::string> sources;  // "rec.json: kernels['m:k'][0]"
  };
  std::vector<Kernel> kernels;
  struct DefineEntry {
    std::string name;
    Define define;
    bool use = false;                  // a valid value qdbuild uses
    std::optional<ConfigError> error;  // reported only when the config does not give the name
  };
  std::vector<DefineEntry> defines;
  std::optional<ConfigError> last_error;  // the record's shape broke the reading off here
};
RecordContent read_record_content(const std::string& text, const std::string& path);

// The text that tells instances of one kernel apart ("a=...;b=...;").
std::string instance_text(const Instance& inst);

// Kernel id -> the instance_texts already in a config: kept across the merges of one analysis
// (nullptr: computed from the config's instances at each merge).
using RecordSeen = std::map<std::string, std::set<std::string>>;

// Merges `content` into `config` as read_record_text does; returns content.ok.
bool merge_record(const RecordContent& content, BuildConfig& config,
                  std::vector<ConfigError>& errors, RecordSeen* seen);

// A record's "modules" table (docs/record.md "Sources"): for each module holding a recorded
// kernel, the file it was loaded from and the directory its import name is relative to, so a
// build needs no PATH: {"app.kernels": {"file": "/w/app/kernels.py", "root": "/w"}}.
struct RecordedModule {
  std::string module;
  std::string file;  // absolute
  std::string root;  // absolute; file is root/<module as a path>.py or .../__init__.py
};

// Appends the "modules" table of the record at `path` to `out` (a record without one adds
// nothing). False, with `error` saying why, when the file cannot be read or is not a record, or
// an entry is not an absolute file that its module's name places under its root.
bool read_record_modules(const std::string& path, std::vector<RecordedModule>& out,
                         std::string& error);

// The ConfigValue of one recorded parameter description (exposed for tests). `ok` is false
// (and `why` says so) when the description is not understood; `omit` when it adds nothing.
struct RecordedParam {
  ConfigValue value;
  bool omit = false;
  bool ok = true;
  std::string why;
};
RecordedParam recorded_param(const std::string& json_text);

// The canonical ndarray table of a recorded ndarray text ("ndarray(f32, 1, element=(3,))").
bool parse_array_text(const std::string& text, ConfigValue& out, std::string& why);

}  // namespace qd::sema
