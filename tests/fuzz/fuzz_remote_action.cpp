// libFuzzer target: what a qdbuild worker reads from a server it does not trust, before it
// compiles anything (src/remote_exec/compile_action.hpp, compile_request.hpp): the action's
// Command and input root (protobuf bytes) and the target flags text.
//
// The first input byte picks what the rest becomes, against a valid action made once:
//   0: the Command bytes        1: the input root bytes     2: the target flags text
//   3: XOR over the Command     4: XOR over the input root  (structure-aware mutations)
// Properties: nothing crashes or leaks; flags that parse print back to the same text; an
// accepted action names the two file digests of its root.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "build/bazel/remote/execution/v2/remote_execution.pb.h"
#include "remote_exec/compile_action.hpp"

namespace re = build::bazel::remote::execution::v2;
using namespace qd::remote_exec;

namespace {

struct Base {
  std::string command;
  std::string root;
  std::string cpu;
  std::string cuda;
};

const Base& base() {
  static const Base b = [] {
    CompileRequest r;
    r.source = "extern \"C\" int f() { return 1; }\n";
    ActionBlobs a = make_action(r);
    re::Action action;
    action.ParseFromString(a.blobs.at(a.action));
    Base out;
    out.command =
        a.blobs.at({action.command_digest().hash(), action.command_digest().size_bytes()});
    out.root =
        a.blobs.at({action.input_root_digest().hash(), action.input_root_digest().size_bytes()});
    out.cpu = toolchain_property(false);
    out.cuda = toolchain_property(true);
    return out;
  }();
  return b;
}

std::string xored(std::string s, const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size && !s.empty(); ++i) {
    s[i % s.size()] = static_cast<char>(s[i % s.size()] ^ data[i]);
  }
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) {
    return 0;
  }
  const Base& b = base();
  std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string command = b.command;
  std::string root = b.root;
  switch (data[0] % 5) {
    case 0: command = rest; break;
    case 1: root = rest; break;
    case 2: {
      CompileRequest r;
      std::string error;
      if (parse_target_flags(rest, r, error)) {
        if (target_flags_text(r) != rest) {
          std::abort();  // accepted flags must be canonical
        }
      } else if (error.empty()) {
        std::abort();  // a refusal says why
      }
      return 0;
    }
    case 3: command = xored(command, data + 1, size - 1); break;
    case 4: root = xored(root, data + 1, size - 1); break;
  }
  CheckedAction checked;
  std::string error;
  if (check_action(command, root, b.cpu, b.cuda, checked, error)) {
    re::Directory dir;
    if (!dir.ParseFromString(root) || dir.files_size() != 2 ||
        dir.files(1).digest().hash() != checked.task.hash) {
      std::abort();
    }
  } else if (error.empty()) {
    std::abort();
  }
  (void)command_toolchain(command);
  return 0;
}
