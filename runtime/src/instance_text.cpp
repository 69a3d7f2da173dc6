// qdrt_instance_text: the canonical text of one recorded parameter description, as qdbuild
// prints it in instance strings. The description is read by the same code qdbuild reads records
// with (qdrt/instance_description.hpp), and scalars are printed by the same Python repr()
// qdbuild uses (src/syntax/py_repr.cpp, compiled into this library): the bridge compares the
// result with a store's instance strings byte for byte, so there is one printer, not two.
#include <map>
#include <string>
#include <vector>

#include <qdrt/instance_description.hpp>

#include "instance_text.hpp"
#include "syntax/py_repr.hpp"

namespace {

// A described value as text: a scalar's repr(), or a table printed {key=value, ...} in key order
// (sema::ConfigValue::text()).
struct TextNode {
  std::string scalar;
  std::map<std::string, TextNode> table;
  bool is_table = false;

  void print(std::string& out) const {
    if (!is_table) {
      out += scalar;
      return;
    }
    out += '{';
    bool first = true;
    for (const auto& [k, v] : table) {
      if (!first) {
        out += ", ";
      }
      first = false;
      out += k;
      out += '=';
      v.print(out);
    }
    out += '}';
  }
};

struct TextBuilder {
  using Node = TextNode;
  static TextNode scalar(std::string text) {
    TextNode n;
    n.scalar = std::move(text);
    return n;
  }
  TextNode none() { return scalar("None"); }
  TextNode boolean(bool b) { return scalar(b ? "True" : "False"); }
  TextNode integer(int64_t i) { return scalar(std::to_string(i)); }
  TextNode unsigned_integer(uint64_t u) { return scalar(std::to_string(u)); }
  TextNode floating(double f) {
    std::string out;
    qd::syntax::repr_float(out, f);
    return scalar(std::move(out));
  }
  TextNode string(const std::string& s) {
    std::string out;
    qd::syntax::repr_str(out, s);
    return scalar(std::move(out));
  }
  TextNode enum_member(const std::string& qualified, const TextNode* member) {
    return scalar("<" + qualified + ": " + (member != nullptr ? member->scalar : "<unknown>") +
                  ">");
  }
  TextNode tuple(const std::vector<TextNode>& items) {
    std::string out = "(";
    for (size_t k = 0; k < items.size(); ++k) {
      out += (k > 0 ? ", " : "") + items[k].scalar;
    }
    return scalar(out + (items.size() == 1 ? ",)" : ")"));
  }
  TextNode table() {
    TextNode n;
    n.is_table = true;
    return n;
  }
  bool is_table(const TextNode& n) { return n.is_table; }
  void set(TextNode& t, const std::string& key, TextNode v) { t.table[key] = std::move(v); }
  void add(TextNode& t, const std::string& key, TextNode v) { t.table.emplace(key, std::move(v)); }
};

}  // namespace

namespace qdrt {

bool instance_text(const char* json_text, size_t length, std::string& out, std::string& why) {
  using qdrt::description::json;
  json d = json::parse(json_text, json_text + length, nullptr, /*allow_exceptions=*/false);
  if (d.is_discarded()) {
    why = "the description is not JSON";
    return false;
  }
  TextBuilder builder;
  auto p = qdrt::description::Reader<TextBuilder>(builder).param(d);
  if (!p.ok) {
    why = std::move(p.why);
    return false;
  }
  out.clear();
  if (!p.omit) {
    p.value.print(out);
  }
  return true;
}

}  // namespace qdrt
