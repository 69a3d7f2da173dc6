// libFuzzer target: `qdbuild lsp`'s reading of what an editor sends (src/lsp): the framing
// (MessageReader), the JSON-RPC dispatch and every handler's checks of the params, documents and
// their edits, positions in both encodings, and the analysis of the buffers. Each input is a
// byte stream from a client of a server already initialized on an empty workspace folder;
// whatever the bytes, nothing crashes, nothing throws out of the server, and every framed
// message the server writes is JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "lsp/message_reader.hpp"
#include "lsp/server.hpp"

namespace {

std::string workspace() {
  static std::string dir = [] {
    std::filesystem::path p = std::filesystem::temp_directory_path() / "qd-fuzz-lsp";
    std::filesystem::create_directories(p);
    return std::filesystem::canonical(p).string();
  }();
  return dir;
}

void check_output(const std::string& framed) {
  qd::lsp::MessageReader r;
  r.feed(framed);
  std::string body;
  std::string error;
  if (r.next(body, error) != qd::lsp::MessageReader::Next::message ||
      nlohmann::json::parse(body, nullptr, false).is_discarded()) {
    __builtin_trap();  // the server wrote something that is not one framed JSON message
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The server works from its workspace folder (initialize enters it); libFuzzer's paths are
  // relative to where it started.
  static const std::filesystem::path start = std::filesystem::current_path();
  struct Back {
    ~Back() { std::filesystem::current_path(start); }
  } back;
  qd::lsp::Server server(check_output);
  nlohmann::json init = {{"jsonrpc", "2.0"},
                         {"id", 0},
                         {"method", "initialize"},
                         {"params",
                          {{"rootUri", "file://" + workspace()},
                           {"capabilities", {{"general", {{"positionEncodings", {"utf-16"}}}}}}}}};
  server.handle(init.dump());
  server.handle(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  qd::lsp::MessageReader reader;
  // Fed in two pieces, as a pipe may deliver it.
  size_t half = size / 2;
  for (int piece = 0; piece < 2 && !server.exited(); ++piece) {
    reader.feed(std::string_view(reinterpret_cast<const char*>(data) + (piece ? half : 0),
                                 piece ? size - half : half));
    std::string body;
    std::string error;
    while (!server.exited()) {
      qd::lsp::MessageReader::Next n = reader.next(body, error);
      if (n == qd::lsp::MessageReader::Next::need_more) {
        break;
      }
      if (n == qd::lsp::MessageReader::Next::error) {
        server.framing_error(error);
        continue;
      }
      server.handle(body);
    }
    server.flush();
  }
  return 0;
}
