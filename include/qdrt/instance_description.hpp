// The reading of recorded parameter descriptions (what `python -m qdrt.record` writes for each
// parameter of a kernel call; docs/record.md "The format") into configured values: the one
// definition both sides of the store use. qdbuild (src/sema/instance_record.cpp) reads records
// with it into the values it prints in instance strings; libqdrt (runtime/src/instance_text.cpp,
// qdrt_instance_text) reads a live call's description with it and prints the same text, which
// the bridge compares with a store's instance strings. What a description means is written once,
// here; each side supplies only how a value is held (a Builder).
//
//   "ndarray(f32, 2, element=(3,), layout=(1, 0), grad, source=numpy)"
//       -> {dtype = 'vector(3, f32)', layout = '(1, 0)', ndim = 2, needs_grad = True,
//           source = 'numpy'}
//   {"dataclass": C, "members": {...}}   -> {__class__ = 'C', <member> = ..., ...}
//   {"template": v}                      -> the value: a number, bool, str, None, tuple, an enum
//                                           member, a func id ('mod:qualname'), or for a config
//                                           object {__class__ = 'C', <field/property> = ...}
//   {"scalar": T}                        -> nothing (the annotation says it)
//
// Header-only, C++20, nlohmann/json. It never throws (libqdrt is built without exceptions):
// every member is checked before it is read, and what is malformed is an error (`why`).
//
// A Builder provides:
//   using Node = ...;                               a value: a scalar or a table
//   Node none(); Node boolean(bool); Node integer(int64_t); Node unsigned_integer(uint64_t);
//   Node floating(double); Node string(std::string);
//   Node enum_member(std::string qualified, const Node* member);  member: a scalar, or null
//                                                                 when it was not recorded
//   Node tuple(std::vector<Node> scalars);
//   Node table();  bool is_table(const Node&);
//   void set(Node& table, const std::string& key, Node value);    replaces
//   void add(Node& table, const std::string& key, Node value);    keeps a key already there
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace qdrt::description {

using json = nlohmann::json;

// Splits "a, (1, 2), b=(3,)" at the commas outside parentheses, each part stripped of spaces (an
// empty last part dropped).
inline std::vector<std::string> split_top(std::string_view s) {
  auto trim = [](std::string_view p) {
    while (!p.empty() && p.front() == ' ') {
      p.remove_prefix(1);
    }
    while (!p.empty() && p.back() == ' ') {
      p.remove_suffix(1);
    }
    return std::string(p);
  };
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (ch == '(') {
      ++depth;
    } else if (ch == ')') {
      --depth;
    } else if (ch == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string last = trim(s.substr(start));
  if (!last.empty()) {
    out.push_back(std::move(last));
  }
  return out;
}

// A whole decimal integer ("-3"), nothing else.
inline bool parse_int(std::string_view s, int64_t& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end && !s.empty();
}

// "(3,)" / "(2, 3)" -> {3} / {2, 3}.
inline bool int_tuple(std::string_view s, std::vector<int64_t>& out) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') {
    return false;
  }
  for (const std::string& part : split_top(s.substr(1, s.size() - 2))) {
    int64_t v = 0;
    if (part.empty()) {
      continue;
    }
    if (!parse_int(part, v)) {
      return false;
    }
    out.push_back(v);
  }
  return true;
}

inline std::string tuple_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t k = 0; k < v.size(); ++k) {
    s += (k > 0 ? ", " : "") + std::to_string(v[k]);
  }
  return s + (v.size() == 1 ? ",)" : ")");
}

// The JSON text of `v` for a message (invalid UTF-8 replaced: dump() would throw), cut to 80.
inline std::string excerpt(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 80);
}

// The member `key` of object `v`, or null.
inline const json* member(const json& v, const char* key) {
  if (!v.is_object()) {
    return nullptr;
  }
  auto it = v.find(key);
  return it == v.end() ? nullptr : &*it;
}

inline bool string_member(const json& v, const char* key, std::string& out) {
  const json* m = member(v, key);
  if (m == nullptr || !m->is_string()) {
    return false;
  }
  out = m->get_ref<const std::string&>();
  return true;
}

// A JSON integer that fits in int64_t.
inline bool int_value(const json& v, int64_t& out) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return false;
    }
    out = static_cast<int64_t>(u);
    return true;
  }
  if (v.is_number_integer()) {
    out = v.get<int64_t>();
    return true;
  }
  return false;
}

template <class B> class Reader {
public:
  using Node = typename B::Node;

  // One parameter's description read: `value`, or `omit` when it adds nothing (a runtime
  // scalar), or not `ok` with `why`.
  struct Param {
    Node value{};
    bool omit = false;
    bool ok = true;
    std::string why;
  };

  explicit Reader(B& builder) : b_(builder) {}

  Param param(const json& d, int depth = 0) {
    Param r;
    r.ok = param_value(d, depth, r);
    return r;
  }

  // The canonical ndarray table of an ndarray description ("ndarray(f32, 1, element=(3,))").
  bool array_text(std::string_view text, Node& out, std::string& why) {
    if (!text.starts_with("ndarray(") || !text.ends_with(")")) {
      why = "not an ndarray description: '" + std::string(text) + "'";
      return false;
    }
    std::vector<std::string> parts = split_top(text.substr(8, text.size() - 9));
    if (parts.size() < 2) {
      why = "'" + std::string(text) + "' needs a dtype and an ndim";
      return false;
    }
    out = b_.table();
    std::string dtype = parts[0];
    int64_t ndim = 0;
    if (!parse_int(parts[1], ndim)) {
      why = "'" + std::string(text) + "': the ndim is not a number";
      return false;
    }
    for (size_t k = 2; k < parts.size(); ++k) {
      const std::string& p = parts[k];
      std::vector<int64_t> dims;
      if (p.starts_with("element=")) {
        if (!int_tuple(std::string_view(p).substr(8), dims) || dims.empty() || dims.size() > 2) {
          why = "'" + std::string(text) + "': bad element shape";
          return false;
        }
        dtype = dims.size() == 1 ? "vector(" + std::to_string(dims[0]) + ", " + dtype + ")"
                                 : "matrix(" + std::to_string(dims[0]) + ", " +
                                       std::to_string(dims[1]) + ", " + dtype + ")";
      } else if (p.starts_with("layout=")) {
        if (!int_tuple(std::string_view(p).substr(7), dims)) {
          why = "'" + std::string(text) + "': bad layout";
          return false;
        }
        b_.set(out, "layout", b_.string(tuple_text(dims)));
      } else if (p == "grad") {
        b_.set(out, "needs_grad", b_.boolean(true));
      } else if (p.starts_with("source=")) {
        b_.set(out, "source", b_.string(p.substr(7)));
      } else {
        why = "'" + std::string(text) + "': unknown part '" + p + "'";
        return false;
      }
    }
    b_.set(out, "dtype", b_.string(dtype));
    b_.set(out, "ndim", b_.integer(ndim));
    return true;
  }

private:
  B& b_;

  bool param_value(const json& d, int depth, Param& r) {
    if (d.is_string()) {
      return array_text(d.get_ref<const std::string&>(), r.value, r.why);
    }
    if (!d.is_object()) {
      r.why = "not a parameter description";
      return false;
    }
    for (const char* key : {"template", "final"}) {
      if (const json* v = member(d, key)) {
        return value(*v, r.value, r.why, depth);
      }
    }
    if (member(d, "none") != nullptr) {
      r.value = b_.none();
      return true;
    }
    if (member(d, "scalar") != nullptr) {
      r.omit = true;
      return true;
    }
    if (member(d, "field") != nullptr) {
      // A qd.field given where an array is taken (performance mode): its shape and layout.
      return field_value(d, r.value, r.why);
    }
    if (member(d, "dataclass") != nullptr) {
      return dataclass_value(d, depth, r);
    }
    if (const json* v = member(d, "value")) {
      return value(*v, r.value, r.why, depth);
    }
    std::string unsupported;
    r.why = string_member(d, "unsupported", unsupported)
                ? unsupported
                : "not a parameter description: " + excerpt(d);
    return false;
  }

  bool dataclass_value(const json& d, int depth, Param& r) {
    std::string cls;
    const json* members = member(d, "members");
    if (!string_member(d, "dataclass", cls) || members == nullptr || !members->is_object()) {
      r.why = "a dataclass description needs its class and its members";
      return false;
    }
    if (depth > 64) {
      r.why = "a dataclass nested too deeply";
      return false;
    }
    r.value = b_.table();
    b_.set(r.value, "__class__", b_.string(cls));
    for (const auto& [k, m] : members->items()) {
      Param mr;
      if (!param_value(m, depth + 1, mr)) {
        // Kept and marked: a kernel that reads the member says why it cannot (its build).
        b_.add(r.value, k, unsupported(mr.why));
      } else if (!mr.omit) {
        b_.add(r.value, k, std::move(mr.value));
      }
    }
    return true;
  }

  Node unsupported(const std::string& why) {
    Node bad = b_.table();
    b_.set(bad, "__unsupported__", b_.string(why));
    return bad;
  }

  // A recorded value (`template`, `final`, `value`, and what they hold).
  bool value(const json& v, Node& out, std::string& why, int depth) {
    if (depth > 8) {
      why = "nested too deeply";
      return false;
    }
    switch (v.type()) {
      case json::value_t::null: out = b_.none(); return true;
      case json::value_t::boolean: out = b_.boolean(v.get<bool>()); return true;
      case json::value_t::number_integer: out = b_.integer(v.get<int64_t>()); return true;
      case json::value_t::number_unsigned:
        out = b_.unsigned_integer(v.get<uint64_t>());
        return true;
      case json::value_t::number_float: out = b_.floating(v.get<double>()); return true;
      case json::value_t::string: out = b_.string(v.get<std::string>()); return true;
      case json::value_t::object: break;
      default: why = "not a recorded value: " + excerpt(v); return false;
    }
    std::string text;
    if (member(v, "float") != nullptr) {
      if (!string_member(v, "float", text)) {
        why = "a recorded float that is not 'nan', 'inf' or '-inf'";
        return false;
      }
      out = b_.floating(text == "nan"           ? std::nan("")
                        : text.starts_with("-") ? -INFINITY
                                                : INFINITY);
      return true;
    }
    if (member(v, "enum") != nullptr) {
      return enum_value(v, out, why, depth);
    }
    if (const json* inner = member(v, "numpy")) {
      (void)inner;
      const json* value_of = member(v, "value");
      if (value_of == nullptr) {
        why = "a numpy scalar without its value";
        return false;
      }
      return value(*value_of, out, why, depth + 1);
    }
    if (const json* items = member(v, "tuple")) {
      return tuple_value(*items, out, why, depth);
    }
    if (member(v, "method") != nullptr) {
      return method_value(v, out, why, depth);
    }
    if (member(v, "func") != nullptr) {
      if (!string_member(v, "func", text)) {
        why = "a func recorded without its id";
        return false;
      }
      out = b_.string(text);
      return true;
    }
    if (member(v, "matrix_value") != nullptr) {
      return matrix_value(v, out, why, depth);
    }
    for (const char* kind : {"dtype", "vector", "matrix"}) {
      if (const json* t = member(v, kind)) {
        return type_value(kind, *t, out, why);
      }
    }
    if (member(v, "object") != nullptr) {
      return object_value(v, out, why, depth);
    }
    if (member(v, "field") != nullptr) {
      return field_value(v, out, why);
    }
    if (member(v, "struct_field") != nullptr) {
      return struct_field_value(v, out, why, depth);
    }
    for (const char* kind : {"module", "class"}) {
      if (member(v, kind) != nullptr) {
        if (!string_member(v, kind, text)) {
          why = std::string("a ") + kind + " recorded without its name";
          return false;
        }
        out = b_.table();
        b_.set(out, std::string(kind) == "module" ? "__module__" : "__classref__", b_.string(text));
        return true;
      }
    }
    if (member(v, "unsupported") != nullptr) {
      why = string_member(v, "unsupported", text) ? text : "not a recorded value: " + excerpt(v);
      return false;
    }
    why = "not a recorded value: " + excerpt(v);
    return false;
  }

  bool enum_value(const json& v, Node& out, std::string& why, int depth) {
    std::string cls;
    std::string name;
    if (!string_member(v, "enum", cls) || !string_member(v, "member", name)) {
      why = "an enum member recorded without its class and name";
      return false;
    }
    Node inner{};
    std::string w;
    const json* value_of = member(v, "value");
    bool known =
        value_of != nullptr && value(*value_of, inner, w, depth + 1) && !b_.is_table(inner);
    out = b_.enum_member(cls + "." + name, known ? &inner : nullptr);
    return true;
  }

  bool tuple_value(const json& items, Node& out, std::string& why, int depth) {
    if (!items.is_array()) {
      why = "a recorded tuple that is not a list";
      return false;
    }
    std::vector<Node> all;
    bool tables = false;
    for (const json& x : items) {
      Node item{};
      if (!value(x, item, why, depth + 1)) {
        return false;
      }
      tables = tables || b_.is_table(item);
      all.push_back(std::move(item));
    }
    if (tables) {
      // A tuple / list holding objects (a solver's list of bound methods, of force fields):
      // {__tuple__ = n, 0 = ..., 1 = ...}.
      out = b_.table();
      b_.set(out, "__tuple__", b_.integer(static_cast<int64_t>(all.size())));
      for (size_t k = 0; k < all.size(); ++k) {
        b_.set(out, std::to_string(k), std::move(all[k]));
      }
      return true;
    }
    out = b_.tuple(std::move(all));
    return true;
  }

  // A @qd.func bound to an object: {__method__ = "module:qualname", __self__ = {...}}, or
  // {__method__ = ..., __self_owner__ = True} when bound to the object that holds it.
  bool method_value(const json& v, Node& out, std::string& why, int depth) {
    std::string method;
    if (!string_member(v, "method", method)) {
      why = "a bound method recorded without its id";
      return false;
    }
    std::string owner;
    if (string_member(v, "self", owner) && owner == "owner") {
      out = b_.table();
      b_.set(out, "__method__", b_.string(method));
      b_.set(out, "__self_owner__", b_.boolean(true));
      return true;
    }
    Node self{};
    const json* self_json = member(v, "self");
    if (self_json == nullptr || !value(*self_json, self, why, depth + 1) || !b_.is_table(self)) {
      why = "a bound method whose object cannot be described" + (why.empty() ? "" : ": " + why);
      return false;
    }
    out = b_.table();
    b_.set(out, "__method__", b_.string(method));
    b_.set(out, "__self__", std::move(self));
    return true;
  }

  // A Python-scope qd.Vector / qd.Matrix: {__matrix__ = (entries, row-major), shape, dtype}.
  bool matrix_value(const json& v, Node& out, std::string& why, int depth) {
    const json* entries_json = member(v, "matrix_value");
    const json* shape_json = member(v, "shape");
    std::string dtype;
    if (!entries_json->is_array() || shape_json == nullptr || !shape_json->is_array() ||
        !string_member(v, "dtype", dtype)) {
      why = "a qd.Vector / qd.Matrix recorded without its entries, shape and dtype";
      return false;
    }
    std::vector<Node> entries;
    for (const json& x : *entries_json) {
      Node e{};
      if (!value(x, e, why, depth + 1) || b_.is_table(e)) {
        why = "a qd.Vector / qd.Matrix entry is not a number";
        return false;
      }
      entries.push_back(std::move(e));
    }
    std::vector<Node> shape;
    int64_t count = 1;
    for (const json& d : *shape_json) {
      int64_t n = 0;
      if (!int_value(d, n) || n < 0 || n > (int64_t{1} << 20)) {
        why = "a qd.Vector / qd.Matrix whose shape does not match its entries";
        return false;
      }
      shape.push_back(b_.integer(n));
      count *= n;
    }
    if (shape.empty() || shape.size() > 2 || count != static_cast<int64_t>(entries.size())) {
      why = "a qd.Vector / qd.Matrix whose shape does not match its entries";
      return false;
    }
    out = b_.table();
    b_.set(out, "__matrix__", b_.tuple(std::move(entries)));
    b_.set(out, "shape", b_.tuple(std::move(shape)));
    b_.set(out, "dtype", b_.string(dtype));
    return true;
  }

  // A Quadrants type: {"dtype": "f32"} / {"vector": [3, "f32"]} -> {__type__ = 'vector(3, f32)'}.
  bool type_value(const char* kind, const json& t, Node& out, std::string& why) {
    std::string text;
    if (std::string_view(kind) == "dtype") {
      if (!t.is_string()) {
        why = "a recorded dtype that is not a name";
        return false;
      }
      text = t.get<std::string>();
    } else {
      if (!t.is_array()) {
        why = std::string("a recorded ") + kind + " type that is not a list";
        return false;
      }
      text = std::string(kind) + "(";
      for (size_t k = 0; k < t.size(); ++k) {
        int64_t n = 0;
        if (t[k].is_string()) {
          text += (k > 0 ? ", " : "") + t[k].get<std::string>();
        } else if (int_value(t[k], n) && n >= std::numeric_limits<int>::min() &&
                   n <= std::numeric_limits<int>::max()) {
          text += (k > 0 ? ", " : "") + std::to_string(n);
        } else {
          why = std::string("a recorded ") + kind + " type holding " + excerpt(t[k]);
          return false;
        }
      }
      text += ")";
    }
    out = b_.table();
    b_.set(out, "__type__", b_.string(text));
    return true;
  }

  // A recorded config object / data_oriented instance: {__class__, fields..., properties...}.
  bool object_value(const json& v, Node& out, std::string& why, int depth) {
    std::string cls;
    if (!string_member(v, "object", cls)) {
      why = "an object recorded without its class";
      return false;
    }
    out = b_.table();
    b_.set(out, "__class__", b_.string(cls));
    for (const char* part : {"fields", "properties"}) {
      const json* items = member(v, part);
      if (items == nullptr) {
        continue;
      }
      if (!items->is_object()) {
        why = std::string("an object's ") + part + " are not a table";
        return false;
      }
      for (const auto& [k, x] : items->items()) {
        Node item{};
        std::string w;
        if (x.is_string() && x.get_ref<const std::string&>().starts_with("ndarray(")) {
          if (!array_text(x.get_ref<const std::string&>(), item, w)) {
            why = "member '" + k + "': " + w;
            return false;
          }
        } else if (!value(x, item, w, depth + 1)) {
          // A member qdbuild cannot represent stays out; reading it in a kernel is an error there.
          item = unsupported(w);
        }
        b_.add(out, k, std::move(item));
      }
    }
    return true;
  }

  // A recorded qd.field: {"field": dtype, "shape": [...], "element": [n] | [n, m], "grad": true,
  // "strides": [...]} -> {__field__ = True, dtype = 'f32' | 'vector(3, f32)' | ..., ndim,
  // shape = (d0, ...), strides = (s0, ...)}.
  bool field_value(const json& v, Node& out, std::string& why) {
    std::string dtype;
    const json* shape = member(v, "shape");
    if (!string_member(v, "field", dtype) || shape == nullptr || !shape->is_array()) {
      why = "a field description needs a dtype and a shape";
      return false;
    }
    std::vector<Node> dims;
    for (const json& d : *shape) {
      int64_t n = 0;
      if (!int_value(d, n) || n < 0) {
        why = "a field's shape holds '" + excerpt(d) + "', not a size";
        return false;
      }
      dims.push_back(b_.integer(n));
    }
    if (const json* e = member(v, "element")) {
      int64_t rows = 0;
      int64_t cols = 0;
      if (!e->is_array() || e->empty() || e->size() > 2 || !int_value((*e)[0], rows) ||
          (e->size() == 2 && !int_value((*e)[1], cols))) {
        why = "a field's element shape is " + excerpt(*e);
        return false;
      }
      dtype = e->size() == 1 ? "vector(" + std::to_string(rows) + ", " + dtype + ")"
                             : "matrix(" + std::to_string(rows) + ", " + std::to_string(cols) +
                                   ", " + dtype + ")";
    }
    bool grad = false;
    if (const json* g = member(v, "grad")) {
      if (!g->is_boolean()) {
        why = "a field's grad flag is " + excerpt(*g);
        return false;
      }
      grad = g->get<bool>();
    }
    out = b_.table();
    b_.set(out, "__field__", b_.boolean(true));
    b_.set(out, "dtype", b_.string(dtype));
    b_.set(out, "ndim", b_.integer(static_cast<int64_t>(dims.size())));
    b_.set(out, "shape", b_.tuple(std::move(dims)));
    if (grad) {
      b_.set(out, "needs_grad", b_.boolean(true));
    }
    if (const json* s = member(v, "strides")) {
      // Its layout in Quadrants' memory when not C-contiguous: byte strides per axis, then per
      // element dim (docs/record.md).
      if (!s->is_array()) {
        why = "a field's strides are " + excerpt(*s);
        return false;
      }
      std::vector<Node> strides;
      for (const json& d : *s) {
        int64_t n = 0;
        if (!int_value(d, n) || n < 0) {
          why = "a field's strides hold '" + excerpt(d) + "', not a byte stride";
          return false;
        }
        strides.push_back(b_.integer(n));
      }
      b_.set(out, "strides", b_.tuple(std::move(strides)));
    }
    return true;
  }

  // A recorded struct field: {"struct_field": {member: field or struct field}} -> a table of the
  // member fields, marked __struct_field__.
  bool struct_field_value(const json& v, Node& out, std::string& why, int depth) {
    const json* members = member(v, "struct_field");
    if (depth > 8 || !members->is_object()) {
      why = depth > 8 ? "a struct field nested too deeply" : "a struct field without members";
      return false;
    }
    out = b_.table();
    b_.set(out, "__struct_field__", b_.boolean(true));
    for (const auto& [k, m] : members->items()) {
      Node item{};
      bool ok = m.is_object() && (member(m, "field") != nullptr ? field_value(m, item, why)
                                  : member(m, "struct_field") != nullptr
                                      ? struct_field_value(m, item, why, depth + 1)
                                      : false);
      if (!ok) {
        why = "struct field member '" + k + "': " + (why.empty() ? "not a field" : why);
        return false;
      }
      b_.add(out, k, std::move(item));
    }
    return true;
  }
};

}  // namespace qdrt::description
