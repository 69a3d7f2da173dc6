#include "sema/instance_record.hpp"

#include <nlohmann/json.hpp>
#include <qdrt/instance_description.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "support/file_io.hpp"

namespace qd::sema {

using json = nlohmann::json;

namespace {

// How sema holds a described value (qdrt/instance_description.hpp's Builder): a ConfigValue.
struct ConfigBuilder {
  using Node = ConfigValue;
  static ConfigValue scalar(Value v) {
    ConfigValue c;
    c.scalar = std::move(v);
    return c;
  }
  ConfigValue none() { return scalar(Value::none()); }
  ConfigValue boolean(bool b) { return scalar(Value::boolean(b)); }
  ConfigValue integer(int64_t i) { return scalar(Value::integer(i)); }
  ConfigValue unsigned_integer(uint64_t u) { return scalar(Value::integer(static_cast<Int>(u))); }
  ConfigValue floating(double f) { return scalar(Value::floating(f)); }
  ConfigValue string(std::string s) { return scalar(Value::string(std::move(s))); }
  ConfigValue enum_member(std::string qualified, const ConfigValue* member) {
    return scalar(Value::enum_member(
        std::move(qualified), member != nullptr
                                  ? member->scalar
                                  : Value::unknown("the enum member's value was not recorded")));
  }
  ConfigValue tuple(std::vector<ConfigValue> items) {
    std::vector<Value> values;
    values.reserve(items.size());
    for (ConfigValue& i : items) {
      values.push_back(std::move(i.scalar));
    }
    return scalar(Value::tuple(std::move(values)));
  }
  ConfigValue table() {
    ConfigValue c;
    c.is_table = true;
    return c;
  }
  bool is_table(const ConfigValue& c) { return c.is_table; }
  void set(ConfigValue& t, const std::string& key, ConfigValue v) { t.table[key] = std::move(v); }
  void add(ConfigValue& t, const std::string& key, ConfigValue v) {
    t.table.emplace(key, std::move(v));
  }
};

RecordedParam param_value(const json& d) {
  ConfigBuilder builder;
  auto p = qdrt::description::Reader<ConfigBuilder>(builder).param(d);
  RecordedParam r;
  r.value = std::move(p.value);
  r.omit = p.omit;
  r.ok = p.ok;
  r.why = std::move(p.why);
  return r;
}

// A recorded define value as a Python expression; "" when it has none.
std::string define_python(const json& v) {
  if (v.is_null()) {
    return "None";
  }
  if (v.is_boolean()) {
    return v.get<bool>() ? "True" : "False";
  }
  if (v.is_number_integer()) {
    return v.is_number_unsigned() ? std::to_string(v.get<uint64_t>())
                                  : std::to_string(v.get<int64_t>());
  }
  if (v.is_number_float()) {
    return repr(Value::floating(v.get<double>()));
  }
  if (v.is_string()) {
    return repr(Value::string(v.get<std::string>()));
  }
  if (!v.is_object()) {
    return "";
  }
  if (v.contains("float")) {
    std::string f = v.at("float").get<std::string>();
    return f == "nan" ? "" : f.starts_with("-") ? "-1e999" : "1e999";
  }
  if (v.contains("dtype")) {
    return "quadrants." + v.at("dtype").get<std::string>();
  }
  for (const char* kind : {"vector", "matrix"}) {
    if (v.contains(kind)) {
      const json& a = v[kind];
      std::string text = std::string("quadrants.types.") + kind + "(";
      for (size_t k = 0; k < a.size(); ++k) {
        text += (k > 0 ? ", " : "") + (a[k].is_string() ? "quadrants." + a[k].get<std::string>()
                                                        : std::to_string(a[k].get<int>()));
      }
      return text + ")";
    }
  }
  if (v.contains("enum")) {
    return v.at("enum").get<std::string>() + "." + v.at("member").get<std::string>();
  }
  if (v.contains("numpy")) {
    return define_python(v.at("value"));
  }
  if (v.contains("tuple")) {
    std::string text = "(";
    for (const json& x : v.at("tuple")) {
      std::string item = define_python(x);
      if (item.empty()) {
        return "";
      }
      text += item + ", ";
    }
    return text + ")";
  }
  return "";
}

}  // namespace

bool parse_array_text(const std::string& text, ConfigValue& out, std::string& why) {
  ConfigBuilder builder;
  return qdrt::description::Reader<ConfigBuilder>(builder).array_text(text, out, why);
}

RecordedParam recorded_param(const std::string& json_text) {
  try {
    return param_value(json::parse(json_text));
  } catch (const json::exception& e) {
    RecordedParam r;
    r.ok = false;
    r.why = e.what();
    return r;
  }
}

// param_value() reading a malformed description (a number where a name belongs) is an error of
// that parameter, not a crash.
static RecordedParam guarded_param_value(const json& d) {
  try {
    return param_value(d);
  } catch (const json::exception& e) {
    RecordedParam r;
    r.ok = false;
    r.why = std::string("malformed description (") + e.what() + ")";
    return r;
  }
}

static void read_record_json(const std::string& text, const std::string& path, RecordContent& out);

bool read_record(const std::string& path, BuildConfig& config, std::vector<ConfigError>& errors) {
  std::string text;
  std::string error;
  if (!support::read_file(path, text, error)) {
    errors.push_back({path, 1, 0, "cannot read the instance record: " + error, ""});
    return false;
  }
  return read_record_text(text, path, config, errors);
}

bool read_record_modules(const std::string& path, std::vector<RecordedModule>& out,
                         std::string& error) {
  std::string text;
  if (!support::read_file(path, text, error)) {
    error = "cannot read '" + path + "': " + error;
    return false;
  }
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("format") ||
      doc.at("format") != "qdrt-record 1") {
    error = "'" + path + "' is not an instance record";
    return false;
  }
  if (!doc.contains("modules")) {
    return true;
  }
  if (!doc.at("modules").is_object()) {
    error = "'" + path + "': \"modules\" is not an object";
    return false;
  }
  for (const auto& [module, entry] : doc.at("modules").items()) {
    auto field = [&](const char* name) -> std::string {
      return entry.is_object() && entry.contains(name) && entry.at(name).is_string()
                 ? entry.at(name).get<std::string>()
                 : std::string();
    };
    RecordedModule m{module, field("file"), field("root")};
    std::string rel = module;
    std::replace(rel.begin(), rel.end(), '.', '/');
    bool placed = !module.empty() && m.root.starts_with('/') && m.file.starts_with('/') &&
                  (m.file == (m.root == "/" ? "" : m.root) + "/" + rel + ".py" ||
                   m.file == (m.root == "/" ? "" : m.root) + "/" + rel + "/__init__.py");
    if (!placed) {
      error = "'" + path + "': modules['" + module +
              "'] is not an absolute file under an absolute root as the module's name places it";
      return false;
    }
    out.push_back(std::move(m));
  }
  return true;
}

RecordContent read_record_content(const std::string& text, const std::string& path) {
  RecordContent out;
  out.path = path;
  out.ok = true;
  try {
    read_record_json(text, path, out);
  } catch (const json::exception& e) {
    // Every entry guards its own reads; this is the last line (a record whose top level has
    // the wrong shape). What was read before stays, as a merge in place would have kept it.
    out.last_error =
        ConfigError{path, 1, 0, std::string("malformed instance record: ") + e.what(), ""};
    out.ok = false;
  }
  return out;
}

std::string instance_text(const Instance& inst) {
  std::string t;
  for (const auto& [k, v] : inst) {
    t += k + "=" + v.text() + ";";
  }
  return t;
}

bool merge_record(const RecordContent& c, BuildConfig& config, std::vector<ConfigError>& errors,
                  RecordSeen* seen) {
  errors.insert(errors.end(), c.errors.begin(), c.errors.end());
  for (const RecordContent::Kernel& k : c.kernels) {
    std::vector<Instance>& list = config.instances[k.id];
    std::vector<std::string>& sources = config.instance_sources[k.id];
    std::set<std::string> local;
    std::set<std::string>* known = &local;
    if (seen != nullptr) {
      auto [it, fresh] = seen->try_emplace(k.id);
      known = &it->second;
      if (fresh) {
        for (const Instance& inst : list) {
          known->insert(instance_text(inst));
        }
      }
    } else {
      for (const Instance& inst : list) {
        known->insert(instance_text(inst));
      }
    }
    for (size_t n = 0; n < k.instances.size(); ++n) {
      if (!known->insert(k.texts[n]).second) {
        continue;  // the same instance, recorded twice (Quadrants splits on unused members)
      }
      list.push_back(k.instances[n]);
      sources.push_back(k.sources[n]);
    }
  }
  for (const RecordContent::DefineEntry& d : c.defines) {
    if (config.defines.contains(d.name)) {
      continue;  // given in the config: that wins
    }
    if (d.error) {
      errors.push_back(*d.error);
    } else if (d.use) {
      config.defines[d.name] = d.define;
    }
  }
  if (c.last_error) {
    errors.push_back(*c.last_error);
  }
  return c.ok;
}

bool read_record_text(const std::string& text, const std::string& path, BuildConfig& config,
                      std::vector<ConfigError>& errors) {
  return merge_record(read_record_content(text, path), config, errors, nullptr);
}

static void read_record_json(const std::string& text, const std::string& path, RecordContent& out) {
  std::vector<ConfigError>& errors = out.errors;
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    errors.push_back(
        {path, 1, 0, std::string("the instance record is not valid JSON: ") + e.what(), ""});
    out.ok = false;
    return;
  }
  if (!doc.is_object() || !doc.contains("format") || !doc.at("format").is_string() ||
      doc.at("format").get<std::string>() != "qdrt-record 1") {
    errors.push_back({path, 1, 0,
                      "not an instance record (expected {\"format\": \"qdrt-record 1\", ...}; "
                      "python -m qdrt.record writes them)",
                      ""});
    out.ok = false;
    return;
  }
  if (doc.contains("kernels") && doc.at("kernels").is_object()) {
    for (const auto& [kid, insts] : doc.at("kernels").items()) {
      if (kid.find(':') == std::string::npos) {
        errors.push_back(
            {path, 1, 0, "kernels['" + kid + "']: not a kernel id (module:qualname)", ""});
        continue;
      }
      if (!insts.is_array()) {
        errors.push_back({path, 1, 0, "kernels['" + kid + "']: not a list of instances", ""});
        continue;
      }
      out.kernels.push_back({kid, {}, {}, {}});
      RecordContent::Kernel& k = out.kernels.back();
      std::set<std::string> seen;
      for (size_t n = 0; n < insts.size(); ++n) {
        // Messages go to the file itself; the entry names the instance within it.
        std::string entry = "kernels['" + kid + "'][" + std::to_string(n) + "]";
        const json& inst = insts[n];
        if (!inst.is_object() || !inst.contains("params") || !inst.at("params").is_object()) {
          errors.push_back({path, 1, 0, entry + ": not an instance (no \"params\")", ""});
          continue;
        }
        if (inst.contains("autodiff")) {
          continue;  // adjoint kernels are not compiled (they stay on Quadrants)
        }
        Instance value;
        bool ok = true;
        for (const auto& [name, d] : inst.at("params").items()) {
          RecordedParam r = guarded_param_value(d);
          if (!r.ok) {
            errors.push_back({path, 1, 0, entry + ": parameter '" + name + "': " + r.why, ""});
            ok = false;
            continue;
          }
          if (!r.omit) {
            value.emplace(name, std::move(r.value));
          }
        }
        if (!ok) {
          continue;
        }
        std::string t = instance_text(value);
        if (!seen.insert(t).second) {
          continue;  // the same instance, recorded twice (Quadrants splits on unused members)
        }
        k.instances.push_back(std::move(value));
        k.texts.push_back(std::move(t));
        k.sources.push_back(path + ": " + entry);
      }
    }
  }
  if (doc.contains("defines") && doc.at("defines").is_object()) {
    for (const auto& [name, v] : doc.at("defines").items()) {
      RecordContent::DefineEntry e;
      e.name = name;
      Define& d = e.define;
      d.source = path;
      if (v.is_object() && v.contains("conflict")) {
        d.conflict = true;
      } else {
        try {
          d.python = define_python(v);
        } catch (const json::exception& ex) {
          e.error = ConfigError{path, 1, 0,
                                "defines['" + name + "']: not a value (" + ex.what() + ")", ""};
          out.defines.push_back(std::move(e));
          continue;
        }
        if (d.python.empty()) {
          out.defines.push_back(std::move(e));  // a value qdbuild has no use for (an object)
          continue;
        }
      }
      std::string why;
      if (!check_define(name, d.conflict ? "None" : d.python, why)) {
        e.error = ConfigError{path, 1, 0, "defines: " + why, ""};
      } else {
        e.use = true;
      }
      out.defines.push_back(std::move(e));
    }
  }
}

}  // namespace qd::sema
