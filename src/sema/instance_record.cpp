#include "sema/instance_record.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "support/file_io.hpp"

namespace qd::sema {

using json = nlohmann::json;

namespace {

ConfigValue scalar(Value v) {
  ConfigValue c;
  c.scalar = std::move(v);
  return c;
}

ConfigValue table() {
  ConfigValue c;
  c.is_table = true;
  return c;
}

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') {
    s.erase(s.begin());
  }
  while (!s.empty() && s.back() == ' ') {
    s.pop_back();
  }
  return s;
}

// Splits "a, (1, 2), b=(3,)" at the commas outside parentheses.
std::vector<std::string> split_top(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char ch : s) {
    if (ch == '(') {
      ++depth;
    } else if (ch == ')') {
      --depth;
    }
    if (ch == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += ch;
  }
  if (!trim(cur).empty()) {
    out.push_back(trim(cur));
  }
  return out;
}

// "(3,)" / "(2, 3)" -> {3} / {2, 3}.
bool int_tuple(const std::string& s, std::vector<int64_t>& out) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') {
    return false;
  }
  for (const std::string& part : split_top(s.substr(1, s.size() - 2))) {
    if (part.empty()) {
      continue;
    }
    size_t used = 0;
    try {
      out.push_back(std::stoll(part, &used));
    } catch (...) {
      return false;
    }
    if (used != part.size()) {
      return false;
    }
  }
  return true;
}

std::string tuple_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t k = 0; k < v.size(); ++k) {
    s += (k > 0 ? ", " : "") + std::to_string(v[k]);
  }
  return s + (v.size() == 1 ? ",)" : ")");
}

bool template_value(const json& v, ConfigValue& out, std::string& why, int depth);

// A recorded qd.field: {"field": dtype, "shape": [...], "element": [n] | [n, m], "grad": true,
// "strides": [...]} -> {__field__ = true, dtype = "f32" | "vector(3, f32)" | ..., ndim,
// shape = (d0, ...), strides = (s0, ...)}.
bool field_value(const json& v, ConfigValue& out, std::string& why) {
  if (!v.at("field").is_string() || !v.contains("shape") || !v.at("shape").is_array()) {
    why = "a field description needs a dtype and a shape";
    return false;
  }
  std::string dtype = v.at("field").get<std::string>();
  std::vector<Value> dims;
  for (const json& d : v.at("shape")) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      why = "a field's shape holds '" + d.dump() + "', not a size";
      return false;
    }
    dims.push_back(Value::integer(d.get<int64_t>()));
  }
  if (v.contains("element")) {
    const json& e = v.at("element");
    if (!e.is_array() || e.empty() || e.size() > 2 || !e[0].is_number_integer() ||
        (e.size() == 2 && !e[1].is_number_integer())) {
      why = "a field's element shape is " + e.dump();
      return false;
    }
    dtype = e.size() == 1 ? "vector(" + std::to_string(e[0].get<int64_t>()) + ", " + dtype + ")"
                          : "matrix(" + std::to_string(e[0].get<int64_t>()) + ", " +
                                std::to_string(e[1].get<int64_t>()) + ", " + dtype + ")";
  }
  out = table();
  out.table["__field__"] = scalar(Value::boolean(true));
  out.table["dtype"] = scalar(Value::string(dtype));
  out.table["ndim"] = scalar(Value::integer(static_cast<Int>(dims.size())));
  out.table["shape"] = scalar(Value::tuple(std::move(dims)));
  if (v.value("grad", false)) {
    out.table["needs_grad"] = scalar(Value::boolean(true));
  }
  if (v.contains("strides")) {
    // Its layout in Quadrants' memory when not C-contiguous: byte strides per axis, then per
    // element dim (docs/record.md).
    std::vector<Value> strides;
    for (const json& d : v.at("strides")) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        why = "a field's strides hold '" + d.dump() + "', not a byte stride";
        return false;
      }
      strides.push_back(Value::integer(d.get<int64_t>()));
    }
    out.table["strides"] = scalar(Value::tuple(std::move(strides)));
  }
  return true;
}

// A recorded struct field: {"struct_field": {member: field or struct field}} -> a table of the
// member fields, marked __struct_field__.
bool struct_field_value(const json& v, ConfigValue& out, std::string& why, int depth) {
  if (depth > 8 || !v.at("struct_field").is_object()) {
    why = depth > 8 ? "a struct field nested too deeply" : "a struct field without members";
    return false;
  }
  out = table();
  out.table["__struct_field__"] = scalar(Value::boolean(true));
  for (const auto& [k, m] : v.at("struct_field").items()) {
    ConfigValue item;
    bool ok =
        m.is_object() && (m.contains("field")          ? field_value(m, item, why)
                          : m.contains("struct_field") ? struct_field_value(m, item, why, depth + 1)
                                                       : false);
    if (!ok) {
      why = "struct field member '" + k + "': " + (why.empty() ? "not a field" : why);
      return false;
    }
    out.table.emplace(k, std::move(item));
  }
  return true;
}

// A recorded config object / data_oriented instance: {__class__, fields..., properties...}.
bool object_value(const json& v, ConfigValue& out, std::string& why, int depth) {
  out = table();
  out.table["__class__"] = scalar(Value::string(v.value("object", std::string("?"))));
  for (const char* part : {"fields", "properties"}) {
    if (!v.contains(part)) {
      continue;
    }
    for (const auto& [k, x] : v[part].items()) {
      ConfigValue item;
      std::string w;
      if (x.is_string() && x.get<std::string>().starts_with("ndarray(")) {
        if (!parse_array_text(x.get<std::string>(), item, w)) {
          why = "member '" + k + "': " + w;
          return false;
        }
      } else if (!template_value(x, item, w, depth + 1)) {
        // A member qdbuild cannot represent stays out; reading it in a kernel is an error there.
        item = table();
        item.table["__unsupported__"] = scalar(Value::string(w));
      }
      out.table.emplace(k, std::move(item));
    }
  }
  return true;
}

bool template_value(const json& v, ConfigValue& out, std::string& why, int depth) {
  if (depth > 8) {
    why = "nested too deeply";
    return false;
  }
  if (v.is_null()) {
    out = scalar(Value::none());
    return true;
  }
  if (v.is_boolean()) {
    out = scalar(Value::boolean(v.get<bool>()));
    return true;
  }
  if (v.is_number_integer()) {
    out = scalar(v.is_number_unsigned() ? Value::integer(static_cast<Int>(v.get<uint64_t>()))
                                        : Value::integer(v.get<int64_t>()));
    return true;
  }
  if (v.is_number_float()) {
    out = scalar(Value::floating(v.get<double>()));
    return true;
  }
  if (v.is_string()) {
    out = scalar(Value::string(v.get<std::string>()));
    return true;
  }
  if (!v.is_object()) {
    why = "not a recorded value: " + v.dump().substr(0, 80);
    return false;
  }
  if (v.contains("float")) {
    std::string f = v.at("float").get<std::string>();
    out = scalar(Value::floating(f == "nan"           ? std::nan("")
                                 : f.starts_with("-") ? -INFINITY
                                                      : INFINITY));
    return true;
  }
  if (v.contains("enum")) {
    Value member;
    std::string w;
    ConfigValue inner;
    if (v.contains("value") && template_value(v.at("value"), inner, w, depth + 1) &&
        !inner.is_table) {
      member = inner.scalar;
    } else {
      member = Value::unknown("the enum member's value was not recorded");
    }
    out = scalar(Value::enum_member(
        v.at("enum").get<std::string>() + "." + v.at("member").get<std::string>(), member));
    return true;
  }
  if (v.contains("numpy")) {
    return template_value(v.at("value"), out, why, depth + 1);
  }
  if (v.contains("tuple")) {
    std::vector<Value> items;
    std::vector<ConfigValue> all;
    bool tables = false;
    for (const json& x : v.at("tuple")) {
      ConfigValue item;
      if (!template_value(x, item, why, depth + 1)) {
        return false;
      }
      tables = tables || item.is_table;
      if (!item.is_table) {
        items.push_back(item.scalar);
      }
      all.push_back(std::move(item));
    }
    if (tables) {
      // A tuple / list holding objects (a solver's list of bound methods, of force fields):
      // {__tuple__ = n, 0 = ..., 1 = ...}.
      out = table();
      out.table["__tuple__"] = scalar(Value::integer(static_cast<Int>(all.size())));
      for (size_t k = 0; k < all.size(); ++k) {
        out.table[std::to_string(k)] = std::move(all[k]);
      }
      return true;
    }
    out = scalar(Value::tuple(std::move(items)));
    return true;
  }
  if (v.contains("method")) {
    // A @qd.func bound to an object: {__method__ = "module:qualname", __self__ = {...}}, or
    // {__method__ = ..., __self_owner__ = True} when bound to the object that holds it.
    if (v.contains("self") && v.at("self").is_string() &&
        v.at("self").get<std::string>() == "owner") {
      out = table();
      out.table["__method__"] = scalar(Value::string(v.at("method").get<std::string>()));
      out.table["__self_owner__"] = scalar(Value::boolean(true));
      return true;
    }
    ConfigValue self;
    if (!v.contains("self") || !template_value(v.at("self"), self, why, depth + 1) ||
        !self.is_table) {
      why = "a bound method whose object cannot be described" + (why.empty() ? "" : ": " + why);
      return false;
    }
    out = table();
    out.table["__method__"] = scalar(Value::string(v.at("method").get<std::string>()));
    out.table["__self__"] = std::move(self);
    return true;
  }
  if (v.contains("func")) {
    out = scalar(Value::string(v.at("func").get<std::string>()));
    return true;
  }
  if (v.contains("matrix_value")) {
    // A Python-scope qd.Vector / qd.Matrix: {__matrix__ = (entries, row-major), shape, dtype}.
    std::vector<Value> entries;
    std::vector<Value> shape;
    for (const json& x : v.at("matrix_value")) {
      ConfigValue e;
      if (!template_value(x, e, why, depth + 1) || e.is_table) {
        why = "a qd.Vector / qd.Matrix entry is not a number";
        return false;
      }
      entries.push_back(e.scalar);
    }
    Int count = 1;
    for (const json& d : v.at("shape")) {
      shape.push_back(Value::integer(d.get<int64_t>()));
      count *= d.get<int64_t>();
    }
    if (shape.empty() || shape.size() > 2 || count != static_cast<Int>(entries.size())) {
      why = "a qd.Vector / qd.Matrix whose shape does not match its entries";
      return false;
    }
    out = table();
    out.table["__matrix__"] = scalar(Value::tuple(std::move(entries)));
    out.table["shape"] = scalar(Value::tuple(std::move(shape)));
    out.table["dtype"] = scalar(Value::string(v.at("dtype").get<std::string>()));
    return true;
  }
  for (const char* kind : {"dtype", "vector", "matrix"}) {
    if (v.contains(kind)) {
      std::string text;
      if (std::string(kind) == "dtype") {
        text = v[kind].get<std::string>();
      } else {
        const json& a = v[kind];
        text = std::string(kind) + "(";
        for (size_t k = 0; k < a.size(); ++k) {
          text += (k > 0 ? ", " : "") +
                  (a[k].is_string() ? a[k].get<std::string>() : std::to_string(a[k].get<int>()));
        }
        text += ")";
      }
      out = table();
      out.table["__type__"] = scalar(Value::string(text));
      return true;
    }
  }
  if (v.contains("object")) {
    return object_value(v, out, why, depth);
  }
  if (v.contains("field")) {
    return field_value(v, out, why);
  }
  if (v.contains("struct_field")) {
    return struct_field_value(v, out, why, depth);
  }
  if (v.contains("module") || v.contains("class")) {
    out = table();
    out.table[v.contains("module") ? "__module__" : "__classref__"] =
        scalar(Value::string(v.contains("module") ? v.at("module").get<std::string>()
                                                  : v.at("class").get<std::string>()));
    return true;
  }
  if (v.contains("unsupported")) {
    why = v.at("unsupported").get<std::string>();
    return false;
  }
  why = "not a recorded value: " + v.dump().substr(0, 80);
  return false;
}

RecordedParam param_value(const json& d, int depth) {
  RecordedParam r;
  if (d.is_string()) {
    r.ok = parse_array_text(d.get<std::string>(), r.value, r.why);
    return r;
  }
  if (!d.is_object()) {
    r.ok = false;
    r.why = "not a parameter description";
    return r;
  }
  if (d.contains("template")) {
    r.ok = template_value(d.at("template"), r.value, r.why, depth);
    return r;
  }
  if (d.contains("final")) {
    r.ok = template_value(d.at("final"), r.value, r.why, depth);
    return r;
  }
  if (d.contains("none")) {
    r.value = scalar(Value::none());
    return r;
  }
  if (d.contains("scalar")) {
    r.omit = true;
    return r;
  }
  if (d.contains("field")) {
    // A qd.field given where an array is taken (performance mode): its shape and layout.
    r.ok = field_value(d, r.value, r.why);
    return r;
  }
  if (d.contains("dataclass")) {
    r.value = table();
    r.value.table["__class__"] = scalar(Value::string(d.at("dataclass").get<std::string>()));
    for (const auto& [k, m] : d.at("members").items()) {
      RecordedParam mr = param_value(m, depth + 1);
      if (!mr.ok) {
        // Kept and marked: a kernel that reads the member says why it cannot (its build).
        ConfigValue bad = table();
        bad.table["__unsupported__"] = scalar(Value::string(mr.why));
        r.value.table.emplace(k, std::move(bad));
      } else if (!mr.omit) {
        r.value.table.emplace(k, std::move(mr.value));
      }
    }
    return r;
  }
  if (d.contains("value")) {
    r.ok = template_value(d.at("value"), r.value, r.why, depth);
    return r;
  }
  r.ok = false;
  r.why = d.contains("unsupported") ? d.at("unsupported").get<std::string>()
                                    : "not a parameter description: " + d.dump().substr(0, 80);
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
  if (!text.starts_with("ndarray(") || !text.ends_with(")")) {
    why = "not an ndarray description: '" + text + "'";
    return false;
  }
  std::vector<std::string> parts = split_top(text.substr(8, text.size() - 9));
  if (parts.size() < 2) {
    why = "'" + text + "' needs a dtype and an ndim";
    return false;
  }
  out = table();
  std::string dtype = parts[0];
  int64_t ndim = 0;
  try {
    ndim = std::stoll(parts[1]);
  } catch (...) {
    why = "'" + text + "': the ndim is not a number";
    return false;
  }
  for (size_t k = 2; k < parts.size(); ++k) {
    const std::string& p = parts[k];
    std::vector<int64_t> dims;
    if (p.starts_with("element=")) {
      if (!int_tuple(p.substr(8), dims) || dims.empty() || dims.size() > 2) {
        why = "'" + text + "': bad element shape";
        return false;
      }
      dtype = dims.size() == 1 ? "vector(" + std::to_string(dims[0]) + ", " + dtype + ")"
                               : "matrix(" + std::to_string(dims[0]) + ", " +
                                     std::to_string(dims[1]) + ", " + dtype + ")";
    } else if (p.starts_with("layout=")) {
      if (!int_tuple(p.substr(7), dims)) {
        why = "'" + text + "': bad layout";
        return false;
      }
      out.table["layout"] = scalar(Value::string(tuple_text(dims)));
    } else if (p == "grad") {
      out.table["needs_grad"] = scalar(Value::boolean(true));
    } else if (p.starts_with("source=")) {
      out.table["source"] = scalar(Value::string(p.substr(7)));
    } else {
      why = "'" + text + "': unknown part '" + p + "'";
      return false;
    }
  }
  out.table["dtype"] = scalar(Value::string(dtype));
  out.table["ndim"] = scalar(Value::integer(ndim));
  return true;
}

RecordedParam recorded_param(const std::string& json_text) {
  try {
    return param_value(json::parse(json_text), 0);
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
    return param_value(d, 0);
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
