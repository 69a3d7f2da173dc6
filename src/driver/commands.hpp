// Entry points of the subcommands (one file each: cmd_<name>.cpp).
#pragma once

#include <string>

#include "driver/exit_status.hpp"

namespace qd::driver {

ExitStatus cmd_dump_ast(int argc, char** argv);
ExitStatus cmd_scan(int argc, char** argv);
ExitStatus cmd_check(int argc, char** argv);
ExitStatus cmd_explain(int argc, char** argv);
ExitStatus cmd_store(int argc, char** argv);
ExitStatus cmd_build(int argc, char** argv);
ExitStatus cmd_record(int argc, char** argv);
ExitStatus cmd_lsp(int argc, char** argv);
ExitStatus cmd_worker(int argc, char** argv);
ExitStatus cmd_remote_compile(int argc, char** argv);

// The store the commands use without --store: $QDBUILD_STORE, else the project's `store`, else
// build/qdstore beside the project's config or in the working directory (cmd_store.cpp).
std::string default_store();

}  // namespace qd::driver
