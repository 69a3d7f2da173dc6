#include "remote_exec/compile_action.hpp"

#include <algorithm>

#include "backend/prelude_files.hpp"
#include "build/bazel/remote/execution/v2/remote_execution.pb.h"

// Command.platform, output_files and output_directories are deprecated since REAPI 2.2 (in favour
// of Action.platform and output_paths). The platform is set in both, as 2.2 asks of clients for
// servers that predate it; the worker refuses a Command that uses the old output fields.
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

namespace qd::remote_exec {

namespace re = build::bazel::remote::execution::v2;

namespace {

re::Digest digest_proto(const Digest& d) {
  re::Digest out;
  out.set_hash(d.hash);
  out.set_size_bytes(d.size);
  return out;
}

// Deterministic bytes of a message (REAPI hashes the serialized form).
std::string serialized(const google::protobuf::Message& m) {
  std::string out;
  m.SerializeToString(&out);
  return out;
}

Digest put(std::map<Digest, std::string>& blobs, std::string bytes) {
  Digest d = digest_of(bytes);
  blobs.emplace(d, std::move(bytes));
  return d;
}

// A Directory tree of files given by relative path, children sorted by name as REAPI requires.
// Returns the root's digest; every Directory message and file goes to `blobs`.
struct Tree {
  std::map<std::string, std::string> files;  // name -> bytes
  std::map<std::string, Tree> dirs;
};

void add_file(Tree& t, std::string_view path, std::string bytes) {
  size_t slash = path.find('/');
  if (slash == std::string_view::npos) {
    t.files[std::string(path)] = std::move(bytes);
    return;
  }
  add_file(t.dirs[std::string(path.substr(0, slash))], path.substr(slash + 1), std::move(bytes));
}

Digest store_tree(const Tree& t, std::map<Digest, std::string>& blobs) {
  re::Directory dir;
  for (const auto& [name, bytes] : t.files) {
    re::FileNode* f = dir.add_files();
    f->set_name(name);
    *f->mutable_digest() = digest_proto(put(blobs, bytes));
  }
  for (const auto& [name, sub] : t.dirs) {
    re::DirectoryNode* n = dir.add_directories();
    n->set_name(name);
    *n->mutable_digest() = digest_proto(store_tree(sub, blobs));
  }
  return put(blobs, serialized(dir));
}

struct Prelude {
  Digest digest;
  std::map<Digest, std::string> blobs;
};

const Prelude& prelude() {
  static const Prelude p = [] {
    Prelude out;
    Tree t;
    for (const backend::EmbeddedFile& f : backend::embedded_prelude_files()) {
      add_file(t, f.name, std::string(f.bytes));
    }
    out.digest = store_tree(t, out.blobs);
    return out;
  }();
  return p;
}

}  // namespace

const Digest& prelude_directory_digest() { return prelude().digest; }

ActionBlobs make_action(const CompileRequest& r) {
  ActionBlobs out;
  out.blobs = prelude().blobs;
  re::Platform platform;
  re::Platform::Property* p = platform.add_properties();
  p->set_name(k_toolchain_key);
  p->set_value(toolchain_property(r.cuda));

  re::Command command;
  for (const std::string& a : command_arguments()) {
    command.add_arguments(a);
  }
  command.add_output_paths(k_output_file);
  *command.mutable_platform() = platform;
  Digest command_digest = put(out.blobs, serialized(command));

  // The root: files qd_target, qd_task.cpp (sorted), directory include.
  re::Directory root;
  re::FileNode* target = root.add_files();
  target->set_name(k_target_file);
  *target->mutable_digest() = digest_proto(put(out.blobs, target_flags_text(r)));
  re::FileNode* task = root.add_files();
  task->set_name(k_task_file);
  *task->mutable_digest() = digest_proto(put(out.blobs, r.source));
  re::DirectoryNode* include = root.add_directories();
  include->set_name(k_include_dir);
  *include->mutable_digest() = digest_proto(prelude().digest);
  Digest root_digest = put(out.blobs, serialized(root));

  re::Action action;
  *action.mutable_command_digest() = digest_proto(command_digest);
  *action.mutable_input_root_digest() = digest_proto(root_digest);
  *action.mutable_platform() = platform;
  out.action = put(out.blobs, serialized(action));
  return out;
}

std::string command_toolchain(const std::string& command_bytes) {
  re::Command command;
  if (!command.ParseFromString(command_bytes)) {
    return "";
  }
  for (const re::Platform::Property& p : command.platform().properties()) {
    if (p.name() == k_toolchain_key) {
      return p.value();
    }
  }
  return "";
}

bool check_action(const std::string& command_bytes, const std::string& root_bytes,
                  const std::string& own_toolchain_cpu, const std::string& own_toolchain_cuda,
                  CheckedAction& out, std::string& error) {
  re::Command command;
  if (!command.ParseFromString(command_bytes)) {
    error = "the action's Command does not parse";
    return false;
  }
  std::vector<std::string> args(command.arguments().begin(), command.arguments().end());
  if (args != command_arguments()) {
    std::string shown;
    for (const std::string& a : args) {
      shown += (shown.empty() ? "" : " ") + a;
    }
    error = "refused: this worker runs only 'qdbuild remote-compile' actions, not '" +
            shown.substr(0, 200) + "'";
    return false;
  }
  if (command.environment_variables_size() != 0 || !command.working_directory().empty() ||
      command.output_paths_size() != 1 || command.output_paths(0) != k_output_file ||
      command.output_files_size() != 0 || command.output_directories_size() != 0) {
    error = "refused: the action's Command sets environment, a working directory or outputs "
            "that 'qdbuild remote-compile' does not take";
    return false;
  }
  std::string toolchain = command_toolchain(command_bytes);
  if (toolchain != own_toolchain_cpu && toolchain != own_toolchain_cuda) {
    error = "refused: the action wants toolchain '" + toolchain + "', this worker has '" +
            own_toolchain_cpu + "' and '" + own_toolchain_cuda + "'";
    return false;
  }
  re::Directory root;
  if (!root.ParseFromString(root_bytes)) {
    error = "the action's input root does not parse";
    return false;
  }
  if (root.files_size() != 2 || root.directories_size() != 1 || root.symlinks_size() != 0 ||
      root.files(0).name() != k_target_file || root.files(1).name() != k_task_file ||
      root.directories(0).name() != k_include_dir) {
    error = "refused: the action's input root is not {include/, qd_target, qd_task.cpp}";
    return false;
  }
  Digest include{root.directories(0).digest().hash(), root.directories(0).digest().size_bytes()};
  if (include != prelude_directory_digest()) {
    error = "refused: the action's prelude (include/ " + include.text() +
            ") is not this worker's (" + prelude_directory_digest().text() + ")";
    return false;
  }
  out.target = {root.files(0).digest().hash(), root.files(0).digest().size_bytes()};
  out.task = {root.files(1).digest().hash(), root.files(1).digest().size_bytes()};
  return true;
}

}  // namespace qd::remote_exec
