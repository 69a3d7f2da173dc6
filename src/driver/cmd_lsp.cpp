// qdbuild lsp: the Language Server Protocol server on stdin/stdout (src/lsp/server.hpp,
// docs/editor.md). Exit 0 after `shutdown` and `exit`; 1 when the client went away without them.
#include <optional>

#include "driver/command_line.hpp"
#include "driver/commands.hpp"
#include "lsp/server.hpp"

namespace qd::driver {

ExitStatus cmd_lsp(int argc, char** argv) {
  CommandLine app("The language server for editors: kernel diagnostics as you type, hover (a\n"
                  "kernel's verdict, instances, keys and offload split), go to definition.\n"
                  "Speaks LSP over stdin and stdout; the editor starts it (docs/editor.md).",
                  "qdbuild lsp");
  bool stdio = false;
  app.add_flag("--stdio", stdio, "talk over stdin/stdout (the default and only transport)");
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }
  return qd::lsp::run_stdio(0, 1) == 0 ? ExitStatus::ok : ExitStatus::input_error;
}

}  // namespace qd::driver
