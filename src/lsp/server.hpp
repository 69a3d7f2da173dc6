// `qdbuild lsp`: a Language Server Protocol server (JSON-RPC 2.0 over stdio; docs/editor.md).
//
//   initialize           the workspace folder (rootUri / workspaceFolders), initializationOptions
//                        {paths, root, instances, target} as `qdbuild check` takes them; "utf-8"
//                        positions when the client offers them, else UTF-16
//   didOpen / didChange  the buffer's text replaces the file's (full or incremental changes);
//   / didClose           after each batch of messages the workspace is analysed again and every
//                        file whose diagnostics changed, and every edited one, is published (an
//                        edited func re-checks the kernels that reach it, in every file)
//   didSave, workspace/didChangeWatchedFiles: analyse again (a record or config changed on disk);
//                        a client that can (dynamicRegistration) is asked to watch *.py, the
//                        configs and *.json records after `initialized`
//   hover                a kernel's explanation (verdict, signature, instances, keys, split), or
//                        a func's kernels, on its name or a call of it
//   definition           the func or kernel a call names, across files
//
// Malformed input never ends the server: bad framing is skipped, bad JSON gets a ParseError,
// wrong types an InvalidParams error (requests) or a logged message (notifications), a document
// outside the workspace folder an InvalidParams error.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "lsp/text_position.hpp"
#include "lsp/workspace.hpp"

namespace qd::lsp {

class Server {
public:
  // `write` sends one framed message to the client.
  explicit Server(std::function<void(const std::string&)> write);
  ~Server();

  // One message body as read (any bytes).
  void handle(const std::string& body);
  // The end of a batch of messages: analyses again if documents changed, publishes.
  void flush();
  // A framing error of the reader: logged to the client.
  void framing_error(const std::string& message);

  bool exited() const { return m_exited; }
  int exit_code() const { return m_shutdown ? 0 : 1; }
  const Workspace* workspace() const { return m_workspace.get(); }

private:
  using Json = nlohmann::json;

  void send(const Json& message);
  void respond(const Json& id, Json result);
  void respond_error(const Json& id, int code, const std::string& message);
  void log(int type, const std::string& message);  // window/logMessage (1 error .. 4 log)
  void request(const Json& id, const std::string& method, const Json& params);
  void notification(const std::string& method, const Json& params);

  Json initialize(const Json& params);
  void did_open(const Json& params);
  void did_change(const Json& params);
  void did_close(const Json& params);
  // A document opened or changed: its version, and a publish after the next analysis.
  void edited(const std::string& path, const Json& document);
  Json hover(const Json& params);
  Json definition(const Json& params);

  // The document a request or notification names (absolute path), after the checks every
  // message gets; throws InvalidParams with a message otherwise.
  std::string document_path(const Json& params) const;
  Point to_point(const std::string& path, const Json& position) const;
  Json to_range(const Span& s) const;
  void ensure_analysed();

  std::function<void(const std::string&)> m_write;
  std::unique_ptr<Workspace> m_workspace;
  Encoding m_encoding = Encoding::utf16;
  bool m_initialized = false;
  bool m_shutdown = false;
  bool m_exited = false;
  bool m_dirty = false;
  bool m_watch_files = false;                      // the client registers file watchers for us
  std::map<std::string, std::string> m_published;  // uri -> the diagnostics last sent
  std::map<std::string, int64_t> m_versions;       // open documents' versions, by uri
  std::set<std::string> m_edited;                  // uris opened or changed since the last flush
  std::string m_published_errors;
};

// The stdio loop: reads `in_fd` until EOF or `exit`, writes `out_fd`. The exit status.
int run_stdio(int in_fd, int out_fd);

}  // namespace qd::lsp
