#include "sema/build_config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "support/edit_distance.hpp"
#include "support/file_io.hpp"
#include "syntax/ast_nodes.hpp"
#include "syntax/parser.hpp"

namespace qd::sema {

namespace fs = std::filesystem;

std::string ConfigValue::text() const {
  if (!is_table) {
    return repr(scalar);
  }
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : table) {
    out += (first ? "" : ", ") + k + "=" + v.text();
    first = false;
  }
  return out + "}";
}

std::string BuildConfig::codegen_text() const {
  return "arch=" + arch + " opt_level=" + std::to_string(opt_level) +
         " fast_math=" + (fast_math ? "True" : "False") + " debug=" + (debug ? "True" : "False") +
         " default_ip=" + default_ip + " default_fp=" + default_fp;
}

bool parse_target(const std::string& target, std::string& arch, std::string& device_caps) {
  if (target == "cpu" || target == "x64") {
    arch = "x64";
    device_caps = "cpu:x86_64";
    return true;
  }
  if (target == "cuda") {
    arch = "cuda";
    device_caps = "cuda:sm_90";
    return true;
  }
  if (target.starts_with("cuda:sm_") && target.size() > 8) {
    arch = "cuda";
    device_caps = target;
    return true;
  }
  return false;
}

bool check_define(const std::string& name, const std::string& python, std::string& why) {
  // Each part an identifier: ASCII letters, digits and '_' (not first), or any non-ASCII byte
  // (Python's Unicode identifiers; the parser below checks the expression's own names).
  bool part_start = true;
  size_t parts = 1;
  for (unsigned char ch : name) {
    bool ident = ch == '_' || std::isalpha(ch) != 0 || ch >= 0x80;
    if (ch == '.' && !part_start) {
      part_start = true;
      ++parts;
    } else if (ident || (!part_start && std::isdigit(ch) != 0)) {
      part_start = false;
    } else {
      why = repr(Value::string(name)) + " is not a dotted Python name (\"package.module.NAME\")";
      return false;
    }
  }
  if (part_start || parts < 2) {
    why = repr(Value::string(name)) + " must name a module global (\"package.module.NAME\")";
    return false;
  }
  auto parsed = syntax::parse_bytes("<define>", "_qd = " + python + "\n");
  if (!parsed->ok() || parsed->module == nullptr || parsed->module->body.size != 1 ||
      parsed->module->body[0]->as<syntax::ast::Assign>() == nullptr ||
      parsed->module->body[0]->as<syntax::ast::Assign>()->targets.size != 1) {
    why = repr(Value::string(name)) + ": " + repr(Value::string(python)) +
          " is not one Python expression";
    return false;
  }
  return true;
}

namespace {

void error_at(std::vector<ConfigError>& errors, const std::string& path,
              const toml::source_region& where, std::string message, std::string key) {
  ConfigError e;
  e.path = path;
  e.key = std::move(key);
  if (where.begin) {
    e.line = static_cast<int32_t>(where.begin.line);
    e.col = static_cast<int32_t>(where.begin.column) - 1;
  }
  e.message = std::move(message);
  errors.push_back(std::move(e));
}

void error_at(std::vector<ConfigError>& errors, const std::string& path, const toml::node* n,
              std::string message, std::string key = "") {
  error_at(errors, path, n != nullptr ? n->source() : toml::source_region{}, std::move(message),
           std::move(key));
}

bool to_value(const toml::node& n, ConfigValue& out, const std::string& path,
              std::vector<ConfigError>& errors) {
  if (const auto* t = n.as_table()) {
    out.is_table = true;
    for (const auto& [k, v] : *t) {
      ConfigValue item;
      if (!to_value(v, item, path, errors)) {
        return false;
      }
      out.table.emplace(std::string(k.str()), std::move(item));
    }
    return true;
  }
  if (auto v = n.value<bool>(); v && n.is_boolean()) {
    out.scalar = Value::boolean(*v);
  } else if (n.is_integer()) {
    out.scalar = Value::integer(*n.value<int64_t>());
  } else if (n.is_floating_point()) {
    out.scalar = Value::floating(*n.value<double>());
  } else if (n.is_string()) {
    out.scalar = Value::string(*n.value<std::string>());
  } else if (const auto* a = n.as_array()) {
    std::vector<Value> items;
    for (const toml::node& e : *a) {
      ConfigValue item;
      if (!to_value(e, item, path, errors) || item.is_table) {
        error_at(errors, path, &e, "instance values in arrays must be scalars");
        return false;
      }
      items.push_back(item.scalar);
    }
    out.scalar = Value::tuple(std::move(items));
  } else {
    error_at(errors, path, &n, "unsupported instance value (dates and times have no meaning here)");
    return false;
  }
  return true;
}

// A config file as instance provenance shows it: relative to the working directory when under
// it (as source paths are given), else absolute.
std::string display_path(const std::string& path) {
  std::error_code ec;
  fs::path rel = fs::path(path).lexically_relative(fs::current_path(ec));
  std::string text = rel.generic_string();
  return ec || text.empty() || text.starts_with("..") ? path : text;
}

// A key that takes one string or a list of them: its items (none for any other value).
std::vector<const toml::node*> string_or_list(const toml::node& node) {
  std::vector<const toml::node*> items;
  if (node.is_string()) {
    items.push_back(&node);
  } else if (const auto* arr = node.as_array()) {
    for (const toml::node& e : *arr) {
      items.push_back(&e);
    }
  }
  return items;
}

// A path written in the config file: relative to the file's directory.
std::string relative_to_config(const std::string& config, const std::string& written) {
  fs::path f = written;
  if (f.is_relative()) {
    std::error_code ec;
    f = fs::absolute(fs::path(config), ec).parent_path() / f;
  }
  std::string out = f.lexically_normal().string();
  if (out.size() > 1 && out.back() == '/') {
    out.pop_back();
  }
  return out;
}

void read_instances(const toml::table& t, BuildConfig& c, const std::string& path,
                    std::vector<ConfigError>& errors) {
  for (const auto& [id, node] : t) {
    std::string kernel(id.str());
    if (kernel.find(':') == std::string::npos) {
      error_at(errors, path, &node,
               "instance key '" + kernel + "' is not a kernel id (module:qualname)");
      continue;
    }
    std::vector<const toml::table*> tables;
    if (const auto* one = node.as_table()) {
      tables.push_back(one);
    } else if (const auto* arr = node.as_array()) {
      for (const toml::node& e : *arr) {
        if (const auto* tt = e.as_table()) {
          tables.push_back(tt);
        } else {
          error_at(errors, path, &e, "instances of '" + kernel + "' must be tables");
        }
      }
    } else {
      error_at(errors, path, &node,
               "instances of '" + kernel + "' must be a table or an array of tables");
      continue;
    }
    for (const toml::table* tt : tables) {
      Instance inst;
      for (const auto& [param, v] : *tt) {
        ConfigValue cv;
        if (to_value(v, cv, path, errors)) {
          inst.emplace(std::string(param.str()), std::move(cv));
        }
      }
      c.instances[kernel].push_back(std::move(inst));
      c.instance_sources[kernel].push_back(
          display_path(path) + ":" +
          std::to_string(tt->source().begin ? tt->source().begin.line : 1));
    }
  }
}

// [tool.qdbuild.remote] (store/remote_config.hpp has the meaning; URLs are checked there).
void read_remote(const toml::node& node, BuildConfig& c, const std::string& path,
                 std::vector<ConfigError>& errors) {
  const auto* t = node.as_table();
  if (t == nullptr) {
    error_at(errors, path, &node, "'remote' must be a table ([tool.qdbuild.remote])", "remote");
    return;
  }
  for (const auto& [key, v] : *t) {
    std::string k(key.str());
    if (k == "url") {
      std::vector<const toml::node*> items = string_or_list(v);
      if (items.empty()) {
        error_at(errors, path, &v, "remote 'url' must be a URL or a list of URLs", "remote");
      }
      for (const toml::node* e : items) {
        if (!e->is_string()) {
          error_at(errors, path, e, "remote 'url' must hold strings", "remote");
          continue;
        }
        c.remote.urls.push_back(*e->value<std::string>());
      }
    } else if (k == "read-only" || k == "read_only") {
      if (!v.is_boolean()) {
        error_at(errors, path, &v, "remote 'read-only' must be true or false", "remote");
        continue;
      }
      c.remote.read_only = *v.value<bool>();
    } else if (k == "connect-timeout" || k == "timeout") {
      if (!v.is_integer() || *v.value<int64_t>() < 0) {
        error_at(errors, path, &v, "remote '" + k + "' must be a number of milliseconds", "remote");
        continue;
      }
      (k == "timeout" ? c.remote.timeout_ms : c.remote.connect_timeout_ms) = *v.value<int64_t>();
    } else if (k == "verify-key" || k == "verify_key") {
      if (!v.is_string() || v.value<std::string>()->empty()) {
        error_at(errors, path, &v, "remote 'verify-key' must be a file (an Ed25519 public key)",
                 "remote");
        continue;
      }
      c.remote.verify_key = relative_to_config(path, *v.value<std::string>());
    } else {
      std::string message = "unknown key '" + k + "' in [tool.qdbuild.remote]";
      std::string_view hint =
          support::closest(k, {"url", "read-only", "connect-timeout", "timeout", "verify-key"});
      if (!hint.empty()) {
        message += ", did you mean '" + std::string(hint) + "'?";
      }
      error_at(errors, path, key.source(), message, "remote");
    }
  }
}

// [tool.qdbuild.remote-execution] (remote_exec/exec_config.hpp has the meaning; the URL is
// checked there).
void read_remote_execution(const toml::node& node, BuildConfig& c, const std::string& path,
                           std::vector<ConfigError>& errors) {
  const char* k_key = "remote-execution";
  const auto* t = node.as_table();
  if (t == nullptr) {
    error_at(errors, path, &node,
             "'remote-execution' must be a table ([tool.qdbuild.remote-execution])", k_key);
    return;
  }
  BuildConfig::RemoteExecution& r = c.remote_execution;
  for (const auto& [key, v] : *t) {
    std::string k(key.str());
    if (k == "url") {
      if (!v.is_string()) {
        error_at(errors, path, &v, "remote-execution 'url' must be a grpc:// or grpcs:// URL",
                 k_key);
        continue;
      }
      r.url = *v.value<std::string>();
    } else if (k == "max-in-flight" || k == "queue-timeout" || k == "action-timeout" ||
               k == "timeout") {
      if (!v.is_integer() || *v.value<int64_t>() <= 0) {
        error_at(errors, path, &v,
                 "remote-execution '" + k + "' must be a positive " +
                     (k == "max-in-flight" ? "number" : "number of milliseconds"),
                 k_key);
        continue;
      }
      int64_t n = *v.value<int64_t>();
      (k == "max-in-flight"    ? r.max_in_flight
       : k == "queue-timeout"  ? r.queue_timeout_ms
       : k == "action-timeout" ? r.action_timeout_ms
                               : r.timeout_ms) = n;
    } else {
      std::string message = "unknown key '" + k + "' in [tool.qdbuild.remote-execution]";
      std::string_view hint = support::closest(
          k, {"url", "max-in-flight", "queue-timeout", "action-timeout", "timeout"});
      if (!hint.empty()) {
        message += ", did you mean '" + std::string(hint) + "'?";
      }
      error_at(errors, path, key.source(), message, k_key);
    }
  }
}

void read_table(const toml::table& t, BuildConfig& c, const std::string& path,
                std::vector<ConfigError>& errors) {
  for (const auto& [key, node] : t) {
    std::string k(key.str());
    if (k == "arch" || k == "default_ip" || k == "default_fp") {
      if (!node.is_string()) {
        error_at(errors, path, &node, "'" + k + "' must be a string");
        continue;
      }
      std::string v = *node.value<std::string>();
      (k == "arch" ? c.arch : k == "default_ip" ? c.default_ip : c.default_fp) = v;
    } else if (k == "opt_level") {
      if (!node.is_integer()) {
        error_at(errors, path, &node, "'opt_level' must be an integer");
        continue;
      }
      c.opt_level = *node.value<int64_t>();
    } else if (k == "fast_math" || k == "debug") {
      if (!node.is_boolean()) {
        error_at(errors, path, &node, "'" + k + "' must be true or false");
        continue;
      }
      (k == "fast_math" ? c.fast_math : c.debug) = *node.value<bool>();
    } else if (k == "instances-from" || k == "instances_from") {
      std::vector<const toml::node*> items = string_or_list(node);
      if (items.empty()) {
        error_at(errors, path, &node, "'instances-from' must be a file name or a list of them");
      }
      for (const toml::node* e : items) {
        if (!e->is_string()) {
          error_at(errors, path, e, "'instances-from' must name files (strings)");
          continue;
        }
        c.instances_from.push_back(relative_to_config(path, *e->value<std::string>()));
      }
    } else if (k == "defines") {
      const auto* dt = node.as_table();
      if (dt == nullptr) {
        error_at(errors, path, &node, "'defines' must be a table of \"module.name\" = value");
        continue;
      }
      for (const auto& [name, v] : *dt) {
        std::string n(name.str());
        Define d;
        d.source = path;
        if (v.is_boolean()) {
          d.python = *v.value<bool>() ? "True" : "False";
        } else if (v.is_integer()) {
          d.python = std::to_string(*v.value<int64_t>());
        } else if (v.is_floating_point()) {
          d.python = repr(Value::floating(*v.value<double>()));
        } else if (v.is_string()) {
          d.python = *v.value<std::string>();
        } else {
          error_at(errors, path, &v,
                   "define '" + n +
                       "' must be a number, a bool, or a Python expression in a string "
                       "(\"quadrants.f32\")");
          continue;
        }
        std::string why;
        if (!check_define(n, d.python, why)) {
          error_at(errors, path, &v, "define " + why);
          continue;
        }
        c.defines[n] = std::move(d);
      }
    } else if (k == "instances") {
      if (const auto* it = node.as_table()) {
        read_instances(*it, c, path, errors);
      } else {
        error_at(errors, path, &node, "'instances' must be a table");
      }
    } else if (k == "paths") {
      std::vector<const toml::node*> items = string_or_list(node);
      if (items.empty()) {
        error_at(errors, path, &node, "'paths' must be a path or a non-empty list of paths", k);
        continue;
      }
      for (const toml::node* e : items) {
        if (!e->is_string() || e->value<std::string>()->empty()) {
          error_at(errors, path, e, "'paths' must name files or directories (non-empty strings)",
                   k);
          continue;
        }
        c.paths.push_back(relative_to_config(path, *e->value<std::string>()));
      }
    } else if (k == "store") {
      if (!node.is_string() || node.value<std::string>()->empty()) {
        error_at(errors, path, &node, "'store' must be a directory (a non-empty string)", k);
        continue;
      }
      c.store = relative_to_config(path, *node.value<std::string>());
    } else if (k == "targets") {
      std::vector<const toml::node*> items = string_or_list(node);
      if (items.empty()) {
        error_at(errors, path, &node, "'targets' must be a target or a non-empty list of them", k);
        continue;
      }
      for (const toml::node* e : items) {
        std::string arch;
        std::string caps;
        if (!e->is_string()) {
          error_at(errors, path, e, "'targets' must hold strings (cpu, cuda or cuda:sm_XX)", k);
          continue;
        }
        std::string t = *e->value<std::string>();
        if (!parse_target(t, arch, caps)) {
          error_at(errors, path, e, "unknown target '" + t + "' (cpu, cuda or cuda:sm_XX)", k);
          continue;
        }
        c.targets.push_back(t);
      }
    } else if (k == "remote") {
      read_remote(node, c, path, errors);
    } else if (k == "remote-execution") {
      read_remote_execution(node, c, path, errors);
    } else {
      std::string message = "unknown key '" + k + "'";
      std::string_view hint =
          support::closest(k, {"arch", "opt_level", "fast_math", "debug", "default_ip",
                               "default_fp", "instances", "instances-from", "defines", "paths",
                               "store", "targets", "remote", "remote-execution"});
      if (!hint.empty()) {
        message += ", did you mean '" + std::string(hint) + "'?";
      }
      error_at(errors, path, key.source(), message, k);
    }
  }
}

}  // namespace

BuildConfig parse_build_config(const std::string& text, const std::string& path, bool pyproject,
                               std::vector<ConfigError>& errors) {
  BuildConfig c;
  c.source = path;
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    ConfigError err;
    err.path = path;
    err.line = static_cast<int32_t>(e.source().begin.line);
    err.col = static_cast<int32_t>(e.source().begin.column) - 1;
    err.message = "invalid TOML: " + std::string(e.description());
    errors.push_back(std::move(err));
    return c;
  }
  const toml::table* t = &root;
  if (pyproject) {
    t = root["tool"]["qdbuild"].as_table();
    if (t == nullptr) {
      return c;
    }
  }
  size_t first = errors.size();
  read_table(*t, c, path, errors);
  std::sort(errors.begin() + static_cast<std::ptrdiff_t>(first), errors.end(),
            [](const ConfigError& a, const ConfigError& b) {
              return a.line != b.line ? a.line < b.line : a.col < b.col;
            });
  return c;
}

namespace {

// The first config candidate from `start_dir` up, with its text; "" when none.
std::string find_config(const std::string& start_dir, std::string& text,
                        std::vector<ConfigError>* errors) {
  std::error_code ec;
  fs::path dir = fs::absolute(start_dir.empty() ? "." : start_dir, ec);
  if (ec) {
    return "";
  }
  dir = dir.lexically_normal();
  if (!dir.empty() && dir.filename().empty()) {
    dir = dir.parent_path();  // "/a/b/" -> "/a/b"
  }
  while (true) {
    for (const char* name : {"qdbuild.toml", "pyproject.toml"}) {
      fs::path f = dir / name;
      if (!fs::is_regular_file(f, ec)) {
        continue;
      }
      std::string error;
      if (!support::read_file(f.string(), text, error)) {
        if (errors != nullptr) {
          errors->push_back({f.string(), 1, 0, error, ""});
        }
        return "";
      }
      bool pyproject = std::string(name) == "pyproject.toml";
      if (pyproject && text.find("tool.qdbuild") == std::string::npos) {
        continue;  // a pyproject without our table: keep looking upwards
      }
      return f.string();
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      break;
    }
    dir = dir.parent_path();
  }
  return "";
}

}  // namespace

std::string find_build_config(const std::string& start_dir) {
  std::string text;
  return find_config(start_dir, text, nullptr);
}

BuildConfig load_build_config(const std::string& start_dir, std::vector<ConfigError>& errors) {
  std::string text;
  std::string file = find_config(start_dir, text, &errors);
  if (file.empty()) {
    return {};
  }
  bool pyproject = fs::path(file).filename() == "pyproject.toml";
  return parse_build_config(text, file, pyproject, errors);
}

}  // namespace qd::sema
