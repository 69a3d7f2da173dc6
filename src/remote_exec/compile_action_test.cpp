// The remote action's encoding and the worker's check of it (compile_action.hpp).
#ifdef QD_HAVE_REMOTE_EXEC
#include <doctest/doctest.h>

#include <string>

#include "build/bazel/remote/execution/v2/remote_execution.pb.h"
#include "remote_exec/compile_action.hpp"

using namespace qd::remote_exec;
namespace re = build::bazel::remote::execution::v2;

namespace {

CompileRequest sample() {
  CompileRequest r;
  r.source = "extern \"C\" int qd_sample() { return 42; }\n";
  return r;
}

// The Command and the input root of an action, from its blobs.
void parts(const ActionBlobs& a, std::string& command, std::string& root) {
  re::Action action;
  REQUIRE(action.ParseFromString(a.blobs.at(a.action)));
  command = a.blobs.at({action.command_digest().hash(), action.command_digest().size_bytes()});
  root = a.blobs.at({action.input_root_digest().hash(), action.input_root_digest().size_bytes()});
}

}  // namespace

TEST_CASE("make_action: deterministic, every blob named by its digest, accepted by the check") {
  ActionBlobs a = make_action(sample());
  ActionBlobs b = make_action(sample());
  CHECK(a.action == b.action);
  CHECK(a.blobs == b.blobs);
  for (const auto& [d, bytes] : a.blobs) {
    CHECK(digest_of(bytes) == d);
  }
  std::string command, root;
  parts(a, command, root);
  CheckedAction checked;
  std::string error;
  REQUIRE(check_action(command, root, toolchain_property(false), toolchain_property(true), checked,
                       error));
  CHECK(a.blobs.at(checked.task) == sample().source);
  CompileRequest back;
  REQUIRE(parse_target_flags(a.blobs.at(checked.target), back, error));
  CHECK_FALSE(back.cuda);
  CHECK(command_toolchain(command) == toolchain_property(false));

  // Another source: another action, the same prelude directory.
  CompileRequest other = sample();
  other.source += "// changed\n";
  ActionBlobs c = make_action(other);
  CHECK(c.action != a.action);
  CHECK(c.blobs.count(prelude_directory_digest()) == 1);
  CHECK(a.blobs.count(prelude_directory_digest()) == 1);
}

TEST_CASE("check_action: another command, toolchain, prelude or layout is refused") {
  ActionBlobs a = make_action(sample());
  std::string command, root;
  parts(a, command, root);
  CheckedAction checked;
  std::string error;

  re::Command cmd;
  REQUIRE(cmd.ParseFromString(command));
  re::Command foreign = cmd;
  foreign.set_arguments(0, "/bin/sh");
  CHECK_FALSE(check_action(foreign.SerializeAsString(), root, toolchain_property(false),
                           toolchain_property(true), checked, error));
  CHECK(error.find("only 'qdbuild remote-compile'") != std::string::npos);

  re::Command with_env = cmd;
  re::Command::EnvironmentVariable* v = with_env.add_environment_variables();
  v->set_name("LD_PRELOAD");
  v->set_value("/tmp/x.so");
  CHECK_FALSE(check_action(with_env.SerializeAsString(), root, toolchain_property(false),
                           toolchain_property(true), checked, error));
  CHECK(error.find("environment") != std::string::npos);

  CHECK_FALSE(check_action(command, root, "cpu-other", "cuda-other", checked, error));
  CHECK(error.find("toolchain") != std::string::npos);

  re::Directory dir;
  REQUIRE(dir.ParseFromString(root));
  re::Directory other_prelude = dir;
  other_prelude.mutable_directories(0)->mutable_digest()->set_size_bytes(1);
  CHECK_FALSE(check_action(command, other_prelude.SerializeAsString(), toolchain_property(false),
                           toolchain_property(true), checked, error));
  CHECK(error.find("prelude") != std::string::npos);

  re::Directory extra = dir;
  re::FileNode* f = extra.add_files();
  f->set_name("zz_extra");
  CHECK_FALSE(check_action(command, extra.SerializeAsString(), toolchain_property(false),
                           toolchain_property(true), checked, error));
  CHECK(error.find("input root") != std::string::npos);

  CHECK_FALSE(check_action("\xff\xff\xff", root, toolchain_property(false),
                           toolchain_property(true), checked, error));
  CHECK(error.find("does not parse") != std::string::npos);
}
#endif
