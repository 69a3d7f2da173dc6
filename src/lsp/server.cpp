#include "lsp/server.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include <poll.h>
#include <unistd.h>

#include "lsp/message_reader.hpp"
#include "qdbuild/diagnostic.hpp"

namespace qd::lsp {

namespace fs = std::filesystem;

namespace {

// JSON-RPC and LSP error codes.
constexpr int k_parse_error = -32700;
constexpr int k_invalid_request = -32600;
constexpr int k_method_not_found = -32601;
constexpr int k_invalid_params = -32602;
constexpr int k_internal_error = -32603;
constexpr int k_server_not_initialized = -32002;

// A message the client sent wrong: the request's error, or a logged line for a notification.
struct InvalidParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const nlohmann::json& member(const nlohmann::json& j, const char* name, const char* what) {
  if (!j.is_object() || !j.contains(name)) {
    throw InvalidParams(std::string(what) + ": no '" + name + "'");
  }
  return j.at(name);
}

std::string string_member(const nlohmann::json& j, const char* name, const char* what) {
  const nlohmann::json& v = member(j, name, what);
  if (!v.is_string()) {
    throw InvalidParams(std::string(what) + ": '" + name + "' is not a string");
  }
  return v.get<std::string>();
}

int64_t int_member(const nlohmann::json& j, const char* name, const char* what) {
  const nlohmann::json& v = member(j, name, what);
  if (!v.is_number_integer() && !v.is_number_unsigned()) {
    throw InvalidParams(std::string(what) + ": '" + name + "' is not an integer");
  }
  int64_t n = v.is_number_unsigned()
                  ? static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), uint64_t{1} << 40))
                  : v.get<int64_t>();
  if (n < 0) {
    throw InvalidParams(std::string(what) + ": '" + name + "' is negative");
  }
  return n;
}

std::vector<std::string> string_list(const nlohmann::json& options, const char* name) {
  std::vector<std::string> out;
  if (!options.is_object() || !options.contains(name)) {
    return out;
  }
  const nlohmann::json& v = options.at(name);
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
    return out;
  }
  if (!v.is_array()) {
    throw InvalidParams(std::string("initializationOptions: '") + name +
                        "' is not a list of strings");
  }
  for (const nlohmann::json& e : v) {
    if (!e.is_string()) {
      throw InvalidParams(std::string("initializationOptions: '") + name +
                          "' is not a list of strings");
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

int severity_code(const std::string& s) { return s == "error" ? 1 : s == "warning" ? 2 : 3; }

}  // namespace

Server::Server(std::function<void(const std::string&)> write) : m_write(std::move(write)) {}
Server::~Server() = default;

void Server::send(const Json& message) {
  m_write(frame(message.dump(-1, ' ', false, Json::error_handler_t::replace)));
}

void Server::respond(const Json& id, Json result) {
  send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Server::respond_error(const Json& id, int code, const std::string& message) {
  send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void Server::log(int type, const std::string& message) {
  send(Json{{"jsonrpc", "2.0"},
            {"method", "window/logMessage"},
            {"params", {{"type", type}, {"message", "qdbuild: " + message}}}});
}

void Server::framing_error(const std::string& message) {
  log(1, "bad message framing: " + message);
}

void Server::handle(const std::string& body) {
  Json msg = Json::parse(body, nullptr, false);
  if (msg.is_discarded()) {
    respond_error(nullptr, k_parse_error, "the message is not JSON");
    return;
  }
  if (!msg.is_object()) {
    respond_error(nullptr, k_invalid_request, "the message is not a JSON object");
    return;
  }
  bool has_id = msg.contains("id");
  Json id = has_id ? msg.at("id") : Json(nullptr);
  if (has_id && !id.is_number_integer() && !id.is_number_unsigned() && !id.is_string()) {
    respond_error(nullptr, k_invalid_request, "'id' is neither a number nor a string");
    return;
  }
  if (!msg.contains("method")) {
    return;  // a response to a request of ours (we send none that need one)
  }
  if (!msg.at("method").is_string()) {
    if (has_id) {
      respond_error(id, k_invalid_request, "'method' is not a string");
    } else {
      log(2, "a notification whose 'method' is not a string: ignored");
    }
    return;
  }
  std::string method = msg.at("method").get<std::string>();
  Json params = msg.contains("params") ? msg.at("params") : Json(nullptr);
  if (has_id) {
    request(id, method, params);
  } else {
    notification(method, params);
  }
}

void Server::request(const Json& id, const std::string& method, const Json& params) {
  if (m_shutdown) {
    respond_error(id, k_invalid_request, "the server is shutting down");
    return;
  }
  if (!m_initialized && method != "initialize") {
    respond_error(id, k_server_not_initialized, "initialize first");
    return;
  }
  try {
    if (method == "initialize") {
      if (m_initialized) {
        respond_error(id, k_invalid_request, "initialize was already called");
        return;
      }
      respond(id, initialize(params));
    } else if (method == "shutdown") {
      m_shutdown = true;
      respond(id, nullptr);
    } else if (method == "textDocument/hover") {
      respond(id, hover(params));
    } else if (method == "textDocument/definition") {
      respond(id, definition(params));
    } else {
      respond_error(id, k_method_not_found, "no method '" + method + "'");
    }
  } catch (const InvalidParams& e) {
    respond_error(id, k_invalid_params, e.what());
  } catch (const std::exception& e) {
    respond_error(id, k_internal_error, std::string("internal error: ") + e.what());
  }
}

void Server::notification(const std::string& method, const Json& params) {
  if (method == "exit") {
    m_exited = true;
    return;
  }
  if (!m_initialized || m_shutdown) {
    return;  // dropped, as the protocol says
  }
  try {
    if (method == "initialized") {
      m_dirty = true;
      if (m_watch_files) {
        // What makes an analysis stale besides the buffers: sources, configs and records
        // written on disk (by git, the recorder, another editor). The client watches them.
        Json watchers = Json::array();
        for (const char* glob : {"**/*.py", "**/pyproject.toml", "**/qdbuild.toml", "**/*.json"}) {
          watchers.push_back({{"globPattern", glob}});
        }
        send(Json{{"jsonrpc", "2.0"},
                  {"id", "qdbuild-watch"},
                  {"method", "client/registerCapability"},
                  {"params",
                   {{"registrations",
                     {{{"id", "qdbuild-watch"},
                       {"method", "workspace/didChangeWatchedFiles"},
                       {"registerOptions", {{"watchers", watchers}}}}}}}}});
      }
    } else if (method == "textDocument/didOpen") {
      did_open(params);
    } else if (method == "textDocument/didChange") {
      did_change(params);
    } else if (method == "textDocument/didClose") {
      did_close(params);
    } else if (method == "textDocument/didSave" || method == "workspace/didChangeWatchedFiles" ||
               method == "workspace/didChangeConfiguration") {
      m_dirty = true;
    }
    // $/cancelRequest, $/setTrace and the rest: nothing to do (requests are answered in order).
  } catch (const InvalidParams& e) {
    log(2, method + ": " + e.what());
  } catch (const std::exception& e) {
    log(1, method + ": internal error: " + e.what());
  }
}

Server::Json Server::initialize(const Json& params) {
  if (!params.is_object()) {
    throw InvalidParams("initialize: 'params' is not an object");
  }
  std::string folder;
  std::string error;
  if (params.contains("workspaceFolders") && params.at("workspaceFolders").is_array() &&
      !params.at("workspaceFolders").empty()) {
    folder = uri_to_path(string_member(params.at("workspaceFolders")[0], "uri", "workspaceFolders"),
                         error);
  } else if (params.contains("rootUri") && params.at("rootUri").is_string()) {
    folder = uri_to_path(params.at("rootUri").get<std::string>(), error);
  } else if (params.contains("rootPath") && params.at("rootPath").is_string()) {
    folder = params.at("rootPath").get<std::string>();
  } else {
    std::error_code ec;
    folder = fs::current_path(ec).string();
  }
  if (!error.empty()) {
    throw InvalidParams("initialize: the workspace folder: " + error);
  }
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(folder, ec);
  if (ec || !fs::is_directory(canonical, ec)) {
    throw InvalidParams("initialize: the workspace folder '" + folder + "' is not a directory");
  }
  WorkspaceOptions o;
  o.folder = canonical.string();
  if (params.contains("initializationOptions")) {
    const Json& io = params.at("initializationOptions");
    if (!io.is_null() && !io.is_object()) {
      throw InvalidParams("initialize: 'initializationOptions' is not an object");
    }
    o.paths = string_list(io, "paths");
    o.instance_files = string_list(io, "instances");
    if (io.is_object() && io.contains("root")) {
      o.root = string_member(io, "root", "initializationOptions");
    }
    if (io.is_object() && io.contains("target")) {
      o.target = string_member(io, "target", "initializationOptions");
    }
  }
  // The server works from the folder, as `qdbuild check` run there: the project is found from
  // it, relative paths and records are relative to it.
  fs::current_path(canonical, ec);
  if (ec) {
    throw InvalidParams("initialize: cannot enter '" + o.folder + "': " + ec.message());
  }
  m_workspace = std::make_unique<Workspace>(std::move(o));
  // Positions: UTF-8 when the client offers it (no conversion), else UTF-16.
  m_encoding = Encoding::utf16;
  if (params.contains("capabilities") && params.at("capabilities").is_object()) {
    const Json& caps = params.at("capabilities");
    if (caps.contains("general") && caps.at("general").is_object() &&
        caps.at("general").contains("positionEncodings") &&
        caps.at("general").at("positionEncodings").is_array()) {
      for (const Json& e : caps.at("general").at("positionEncodings")) {
        if (e.is_string() && e.get<std::string>() == "utf-8") {
          m_encoding = Encoding::utf8;
        }
      }
    }
  }
  // Files changed on disk: watched by the client when it can register watchers dynamically.
  if (params.contains("capabilities") && params.at("capabilities").is_object()) {
    const Json& caps = params.at("capabilities");
    const Json* watched = nullptr;
    if (caps.contains("workspace") && caps.at("workspace").is_object() &&
        caps.at("workspace").contains("didChangeWatchedFiles")) {
      watched = &caps.at("workspace").at("didChangeWatchedFiles");
    }
    m_watch_files = watched != nullptr && watched->is_object() &&
                    watched->contains("dynamicRegistration") &&
                    watched->at("dynamicRegistration").is_boolean() &&
                    watched->at("dynamicRegistration").get<bool>();
  }
  m_initialized = true;
  return Json{{"capabilities",
               {{"positionEncoding", m_encoding == Encoding::utf8 ? "utf-8" : "utf-16"},
                {"textDocumentSync",
                 {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
                {"hoverProvider", true},
                {"definitionProvider", true}}},
              {"serverInfo", {{"name", "qdbuild"}, {"version", qdbuild::version()}}}};
}

std::string Server::document_path(const Json& params) const {
  const Json& doc = member(params, "textDocument", "params");
  std::string error;
  std::string path = uri_to_path(string_member(doc, "uri", "textDocument"), error);
  if (path.empty()) {
    throw InvalidParams(error);
  }
  path = fs::path(path).lexically_normal().string();
  if (!m_workspace->contains(path)) {
    throw InvalidParams("'" + path + "' is outside the workspace folder '" +
                        m_workspace->options().folder + "'");
  }
  return path;
}

void Server::edited(const std::string& path, const Json& document) {
  std::string uri = path_to_uri(path);
  if (document.contains("version") && document.at("version").is_number_integer()) {
    m_versions[uri] = document.at("version").get<int64_t>();
  }
  m_edited.insert(uri);  // published after the next analysis, diagnostics or not
  m_dirty = true;
}

void Server::did_open(const Json& params) {
  std::string path = document_path(params);
  std::string text =
      string_member(member(params, "textDocument", "params"), "text", "textDocument");
  m_workspace->open(path, std::move(text));
  edited(path, params.at("textDocument"));
}

void Server::did_change(const Json& params) {
  std::string path = document_path(params);
  const std::string* current = m_workspace->document(path);
  if (current == nullptr) {
    throw InvalidParams("'" + path + "' is not open");
  }
  const Json& changes = member(params, "contentChanges", "params");
  if (!changes.is_array()) {
    throw InvalidParams("'contentChanges' is not a list");
  }
  std::string text = *current;
  for (const Json& c : changes) {
    std::string piece = string_member(c, "text", "a content change");
    if (!c.contains("range")) {
      text = std::move(piece);
      continue;
    }
    const Json& range = member(c, "range", "a content change");
    const Json& start = member(range, "start", "range");
    const Json& end = member(range, "end", "range");
    size_t a = offset_of(text, int_member(start, "line", "start"),
                         int_member(start, "character", "start"), m_encoding);
    size_t b = offset_of(text, int_member(end, "line", "end"), int_member(end, "character", "end"),
                         m_encoding);
    if (b < a) {
      throw InvalidParams("a content change whose range ends before it starts");
    }
    text.replace(a, b - a, piece);
  }
  m_workspace->update(path, std::move(text));
  edited(path, params.at("textDocument"));
}

void Server::did_close(const Json& params) {
  std::string path = document_path(params);
  m_workspace->close(path);
  m_versions.erase(path_to_uri(path));
  m_dirty = true;
}

Point Server::to_point(const std::string& path, const Json& position) const {
  int64_t line = int_member(position, "line", "position");
  int64_t character = int_member(position, "character", "position");
  std::string text = m_workspace->line_text(path, line);
  return {line, byte_column_of(text, character, m_encoding)};
}

Server::Json Server::to_range(const Span& s) const {
  std::string start_line = m_workspace->line_text(s.path, s.start.line);
  std::string end_line =
      s.end.line == s.start.line ? start_line : m_workspace->line_text(s.path, s.end.line);
  return Json{
      {"start",
       {{"line", s.start.line}, {"character", character_of(start_line, s.start.col, m_encoding)}}},
      {"end",
       {{"line", s.end.line}, {"character", character_of(end_line, s.end.col, m_encoding)}}}};
}

void Server::ensure_analysed() {
  if (m_dirty) {
    flush();
  }
}

Server::Json Server::hover(const Json& params) {
  std::string path = document_path(params);
  Point at = to_point(path, member(params, "position", "params"));
  ensure_analysed();
  std::optional<Workspace::Hover> h = m_workspace->hover(path, at);
  if (!h) {
    return nullptr;
  }
  return Json{{"contents", {{"kind", "markdown"}, {"value", h->markdown}}},
              {"range", to_range(h->span)}};
}

Server::Json Server::definition(const Json& params) {
  std::string path = document_path(params);
  Point at = to_point(path, member(params, "position", "params"));
  ensure_analysed();
  std::optional<Span> d = m_workspace->definition(path, at);
  if (!d) {
    return nullptr;
  }
  return Json{{"uri", path_to_uri(d->path)}, {"range", to_range(*d)}};
}

void Server::flush() {
  if (!m_initialized || m_shutdown || !m_dirty || !m_workspace) {
    return;
  }
  m_dirty = false;
  m_workspace->analyze();
  std::string errors;
  for (const std::string& e : m_workspace->tool_errors()) {
    errors += e + "\n";
  }
  if (errors != m_published_errors) {
    m_published_errors = errors;
    if (!errors.empty()) {
      log(1, errors.substr(0, errors.size() - 1));
    }
  }
  std::map<std::string, std::string> now;
  for (const auto& [path, list] : m_workspace->diagnostics()) {
    Json items = Json::array();
    for (const FileDiagnostic& d : list) {
      Json item{{"range", to_range(d.span)},
                {"severity", severity_code(d.severity)},
                {"code", d.code},
                {"source", "qdbuild"},
                {"message", d.message}};
      if (!d.related.empty()) {
        Json related = Json::array();
        for (const Related& r : d.related) {
          related.push_back(
              {{"location", {{"uri", path_to_uri(r.where.path)}, {"range", to_range(r.where)}}},
               {"message", r.message}});
        }
        item["relatedInformation"] = std::move(related);
      }
      items.push_back(std::move(item));
    }
    now[path_to_uri(path)] = items.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  // Files that had diagnostics and have none now are published empty, and so are edited
  // documents without any (the client learns its edit was checked).
  for (const auto& [uri, text] : m_published) {
    if (now.count(uri) == 0) {
      now[uri] = "[]";
    }
  }
  for (const std::string& uri : m_edited) {
    if (now.count(uri) == 0) {
      now[uri] = "[]";
    }
  }
  for (const auto& [uri, text] : now) {
    auto it = m_published.find(uri);
    bool same = it != m_published.end() ? it->second == text : text == "[]";
    if (same && m_edited.count(uri) == 0) {
      continue;
    }
    Json params{{"uri", uri}, {"diagnostics", Json::parse(text)}};
    if (auto v = m_versions.find(uri); v != m_versions.end()) {
      params["version"] = v->second;
    }
    send(Json{{"jsonrpc", "2.0"},
              {"method", "textDocument/publishDiagnostics"},
              {"params", std::move(params)}});
  }
  m_edited.clear();
  m_published.clear();
  for (auto& [uri, text] : now) {
    if (text != "[]") {
      m_published[uri] = std::move(text);
    }
  }
  m_workspace->release_previous();
}

int run_stdio(int in_fd, int out_fd) {
  bool write_failed = false;
  Server server([&](const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size() && !write_failed) {
      ssize_t n = ::write(out_fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        write_failed = true;  // the client is gone
        break;
      }
      done += static_cast<size_t>(n);
    }
  });
  MessageReader reader;
  std::string buffer(size_t{1} << 16, '\0');
  while (!server.exited() && !write_failed) {
    ssize_t n = ::read(in_fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;  // EOF: the client went away without `exit`
    }
    reader.feed(std::string_view(buffer.data(), static_cast<size_t>(n)));
    std::string body;
    std::string error;
    while (!server.exited()) {
      MessageReader::Next next = reader.next(body, error);
      if (next == MessageReader::Next::need_more) {
        break;
      }
      if (next == MessageReader::Next::error) {
        server.framing_error(error);
        continue;
      }
      server.handle(body);
    }
    // Analyse once the client has nothing more queued: a burst of edits is one analysis.
    pollfd p{in_fd, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0 || (p.revents & POLLIN) == 0) {
      server.flush();
    }
  }
  return server.exited() ? server.exit_code() : 1;
}

}  // namespace qd::lsp
