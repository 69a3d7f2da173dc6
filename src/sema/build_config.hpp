// Build configuration and kernel instances from `[tool.qdbuild]` in pyproject.toml, or from a
// qdbuild.toml (same keys at top level), found in the source root or the nearest directory above.
//
//   [tool.qdbuild]
//   arch = "x64"            # codegen config (defaults shown); part of every kernel key
//   opt_level = 3
//   fast_math = true
//   debug = false
//   default_ip = "i32"
//   default_fp = "f32"
//
//   # Instances (docs/build.md): values for template parameters, partially typed
//   # parameters and compound members, per kernel id. One table is one instance; an array of
//   # tables gives several.
//   [tool.qdbuild.instances."physics:step"]
//   n_substeps = 4                            # a template primitive
//   x = { dtype = "f32", ndim = 2 }           # a partial ndarray / torch / numpy parameter
//   self = { n_envs = 8 }                     # data_oriented primitive members
//   params = { num_layers = 3 }               # dataclass fields marked for the key
//   op = "physics:add_op"                     # a template holding a func (its id)
//
//   instances-from = ["scene.qdrecord.json"]  # recorded runs (python -m qdrt.record), relative
//                                             # to this file; --instances FILE adds more
//
//   # The project (`qdbuild build` / `qdbuild --watch` with no PATH; docs/build.md "Project
//   # configuration"). Paths are relative to this file; the command line overrides each.
//   paths = ["src"]                           # default: the directory holding this file
//   store = "build/qdstore"                   # the default shown
//   targets = ["cpu", "cuda:sm_90"]           # default ["cpu"]; a string is one target
//
//   # The remote cache (docs/remote.md, store/remote_config.hpp): url, read-only,
//   # connect-timeout, timeout, verify-key.
//   [tool.qdbuild.remote]
//   url = "http://cache:8080/qdbuild"
//
//   # Remote execution (docs/remote-exec.md, remote_exec/exec_config.hpp): url, max-in-flight,
//   # queue-timeout, action-timeout, timeout.
//   [tool.qdbuild.remote-execution]
//   url = "grpc://buildgrid:50051"
//
//   # Run-time configuration: values of module globals an app sets at run time (docs/record.md).
//   # A number or bool is the value; a string is a Python expression (`"quadrants.f32"`).
//   [tool.qdbuild.defines]
//   "genesis.EPS" = 1.1920928955078125e-07
//   "genesis.qd_float" = "quadrants.f32"
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sema/value.hpp"

namespace qd::sema {

// One configured value: a scalar or a table of them.
struct ConfigValue {
  Value scalar;
  std::map<std::string, ConfigValue> table;
  bool is_table = false;
  std::string text() const;  // canonical: 3, 'f32', {dtype='f32', ndim=2}
};

using Instance = std::map<std::string, ConfigValue>;

// A run-time value of a module global: `python` is a Python expression for it (evaluated in a
// module that imports quadrants and the tree's modules); `conflict` when recorded runs disagree.
struct Define {
  std::string python;
  std::string source;  // "pyproject.toml" or the record file it came from
  bool conflict = false;
};

struct BuildConfig {
  std::string source;  // the file it came from ("" for defaults)
  std::string arch = "x64";
  int64_t opt_level = 3;
  bool fast_math = true;
  bool debug = false;
  std::string default_ip = "i32";
  std::string default_fp = "f32";
  std::map<std::string, std::vector<Instance>> instances;  // kernel id -> instances
  // Where each instance came from, parallel to `instances`: the config file, or a record file
  // and its entry ("scene.json: kernels['m:k'][2]").
  std::map<std::string, std::vector<std::string>> instance_sources;
  std::vector<std::string> instances_from;  // record files named by the config (absolute)
  std::map<std::string, Define> defines;    // "module.name" -> its run-time value
  // The project: `paths` and `store` absolute (written relative to the config file); empty when
  // the file does not give them. `targets` as written ("cpu", "cuda:sm_90").
  std::vector<std::string> paths;
  std::string store;
  std::vector<std::string> targets;
  // [tool.qdbuild.remote] (store/remote_config.hpp): never part of a key.
  struct Remote {
    std::vector<std::string> urls;
    std::optional<bool> read_only;
    std::optional<int64_t> connect_timeout_ms;
    std::optional<int64_t> timeout_ms;
    std::string verify_key;  // absolute
  } remote;
  // [tool.qdbuild.remote-execution] (remote_exec/exec_config.hpp): never part of a key.
  struct RemoteExecution {
    std::string url;
    std::optional<int64_t> max_in_flight;
    std::optional<int64_t> queue_timeout_ms;
    std::optional<int64_t> action_timeout_ms;
    std::optional<int64_t> timeout_ms;
  } remote_execution;

  std::string codegen_text() const;  // the "config" key component
};

struct ConfigError {
  std::string path;
  int32_t line = 1;
  int32_t col = 0;
  std::string message;
  std::string key;  // the [tool.qdbuild] key it is about ("" for the file as a whole)
};
// A key the table does not know is an error too ("unknown key 'storee', did you mean 'store'?").

// Looks for qdbuild.toml / pyproject.toml (with a [tool.qdbuild] table) in `start_dir` and its
// parents. Returns the defaults when none is found (source ""); problems go to `errors`.
BuildConfig load_build_config(const std::string& start_dir, std::vector<ConfigError>& errors);

// The config file load_build_config would read from `start_dir` (absolute), or "" when none.
std::string find_build_config(const std::string& start_dir);

// Parses config text (for tests). `pyproject` selects the [tool.qdbuild] table.
BuildConfig parse_build_config(const std::string& text, const std::string& path, bool pyproject,
                               std::vector<ConfigError>& errors);

// "cpu" -> "x64"/device "cpu:x86_64"; "cuda" / "cuda:sm_90" -> "cuda"/"cuda:sm_90".
bool parse_target(const std::string& target, std::string& arch, std::string& device_caps);

// Whether a define can enter the synthetic defines module (runtime_globals.hpp): `name` a dotted
// Python name with a module part ("pkg.mod.NAME"), `python` exactly one expression (never a
// second statement). `why` says what is wrong otherwise.
bool check_define(const std::string& name, const std::string& python, std::string& why);

}  // namespace qd::sema
