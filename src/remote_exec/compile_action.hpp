// The one action qdbuild runs remotely: compile one offload task's translation unit for one
// target (docs/remote-exec.md "The action"). Both sides use this file: the build makes actions
// with it, `qdbuild worker` and `qdbuild remote-compile` check and run them with it.
//
//   Command   qdbuild remote-compile --target-flags qd_target --output qd_task.out qd_task.cpp
//             output_paths [qd_task.out], platform {qdbuild-toolchain: <toolchain_property>}
//   input     qd_target     the target's flags (target_flags_text)
//   root      qd_task.cpp   the translation unit, byte for byte
//             include/      the prelude headers the unit includes (the same digest for every
//                           action of a qdbuild: uploaded once per build)
//   Action    {command, input_root, platform as the Command's}
//
// A worker accepts an action only when its Command is exactly this one, its input root holds
// exactly these entries and its include/ is the worker's own prelude; anything else is refused
// before anything runs. The output is the object (cpu) or PTX (cuda) that a local compile of the
// same unit gives, byte for byte: the key of a task is a pure function of these inputs.
#pragma once

#include <map>
#include <string>

#include "remote_exec/compile_request.hpp"
#include "remote_exec/digest.hpp"

namespace qd::remote_exec {

// An action and every blob it names (Command, Directory messages, files), by digest.
struct ActionBlobs {
  Digest action;
  std::map<Digest, std::string> blobs;
};
ActionBlobs make_action(const CompileRequest& r);

// The prelude as the include/ directory of an input root (what a worker compares).
const Digest& prelude_directory_digest();

// What a worker learns from an action's Command and input root, before it reads any file.
struct CheckedAction {
  Digest task;    // qd_task.cpp
  Digest target;  // qd_target
};
// Checks an Action's serialized Command and input root Directory (both already fetched and
// verified against their digests) against the one accepted action; false with `error` naming
// what differs (a foreign command, another toolchain, another prelude, an unexpected entry).
bool check_action(const std::string& command_bytes, const std::string& root_bytes,
                  const std::string& own_toolchain_cpu, const std::string& own_toolchain_cuda,
                  CheckedAction& out, std::string& error);
// The platform's toolchain value of a serialized Command ("" when it has none).
std::string command_toolchain(const std::string& command_bytes);

}  // namespace qd::remote_exec
