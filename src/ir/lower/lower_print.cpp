// print(...), f-strings and "...".format(...) in kernels, as Quadrants traces them
// (impl.qd_print / qd_format, CallTransformer._canonicalize_formatted_string, the frontend
// type check of FrontendPrintStmt and codegen_utils.h merge_printf_specifier): one print
// statement becomes one printf-style call whose format string holds the literal text (with '%'
// doubled) and one conversion per scalar value, so the compiled kernel prints exactly the bytes
// Quadrants' CPU backend prints through its host printf.
#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

// The printf conversion Quadrants uses for a dtype (type_utils.cpp data_type_format).
const char* dtype_format(DType t) {
  switch (t) {
    case DType::u1: return "%d";
    case DType::i8: return "%hd";
    case DType::u8: return "%hu";
    case DType::i16: return "%hd";
    case DType::u16: return "%hu";
    case DType::i32: return "%d";
    case DType::u32: return "%u";
    case DType::i64: return "%lld";
    case DType::u64: return "%llu";
    case DType::f32: return "%f";
    case DType::f64: return "%.12f";
    default: return "%d";
  }
}

struct PrintfSpec {
  std::string flags, width, precision, length, conversion;
};

// parse_printf_specifier: %?([-+ #0]+)?(\d+|\*)?(\.(?:\d+|\*))?([hljztL]|hh|ll)?(conversion)?
bool parse_printf_spec(std::string_view s, PrintfSpec& out) {
  size_t i = 0;
  auto at = [&](size_t k) { return k < s.size() ? s[k] : '\0'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (at(i) == '%') {
    ++i;
  }
  while (i < s.size() && std::string_view("-+ #0").find(s[i]) != std::string_view::npos) {
    out.flags += s[i++];
  }
  if (at(i) == '*') {
    out.width = "*";
    ++i;
  } else {
    while (digit(at(i))) {
      out.width += s[i++];
    }
  }
  if (at(i) == '.') {
    if (at(i + 1) == '*') {
      out.precision = ".*";
      i += 2;
    } else if (digit(at(i + 1))) {
      out.precision = ".";
      ++i;
      while (digit(at(i))) {
        out.precision += s[i++];
      }
    } else {
      return false;
    }
  }
  if ((at(i) == 'h' && at(i + 1) == 'h') || (at(i) == 'l' && at(i + 1) == 'l')) {
    out.length = std::string(s.substr(i, 2));
    i += 2;
  } else if (std::string_view("hljztL").find(at(i)) != std::string_view::npos && at(i) != '\0') {
    out.length = std::string(1, s[i++]);
  }
  if (at(i) != '\0' &&
      std::string_view("csdioxXufFeEaAgGnp").find(at(i)) != std::string_view::npos) {
    out.conversion = std::string(1, s[i++]);
  }
  return i == s.size();
}

bool in_group(char c, std::string_view group) {
  return c != '\0' && group.find(c) != std::string_view::npos;
}

}  // namespace

// The conversion of one value of type `t` printed with the user's format spec (nullptr: none).
std::string Lowerer::print_conversion(DType t, const std::string* spec, const ast::Pos& pos) {
  std::string dt = dtype_format(t);
  if (spec == nullptr) {
    return dt;
  }
  const std::string& user = *spec;
  // FrontendTypeCheck: the last character, when it is a printf conversion, must fit the type.
  char conv = user.empty() ? '\0' : user.back();
  if (in_group(conv, "csdioxXufFeEaAgGnp")) {
    if (in_group(conv, "csnp")) {
      type_error(pos, std::string("print: the conversion '") + conv + "' is not supported");
    }
    bool real = is_float(t);
    bool integral = is_integral(t);
    if ((in_group(conv, "fFeEaAgG") && !real) ||
        (in_group(conv, "di") && !(integral && is_signed(t))) ||
        (in_group(conv, "oxXu") && !(integral && !is_signed(t)))) {
      type_error(pos, "print: the format '" + user + "' does not match the type " + name_of(t) +
                          " (Quadrants: '" + user + "' doesn't match '" + name_of(t) + "')");
    }
  }
  PrintfSpec u;
  if (!parse_printf_spec(user, u)) {
    type_error(pos, "print: '" + user +
                        "' is not a printf format specification (Quadrants passes the spec to "
                        "printf: [flags][width][.precision][conversion], e.g. '.3f', '5d', '+e')");
  }
  if (u.width == "*" || u.precision == ".*" || u.conversion == "n") {
    type_error(pos, "print: the format specification '" + user + "' is not supported");
  }
  PrintfSpec d;
  parse_printf_spec(dt, d);
  std::string precision = u.precision.empty() ? d.precision : u.precision;
  std::string conversion = d.conversion;
  if (!u.conversion.empty() && u.conversion != d.conversion &&
      ((in_group(u.conversion[0], "di") && in_group(d.conversion[0], "di")) ||
       (in_group(u.conversion[0], "oxXu") && in_group(d.conversion[0], "oxXu")) ||
       (in_group(u.conversion[0], "fFeEaAgG") && in_group(d.conversion[0], "fFeEaAgG")))) {
    conversion = u.conversion;
  }
  return "%" + u.flags + u.width + precision + d.length + conversion;
}

// Python's str() of a compile-time value (what qd_format's str.format gives it).
std::string Lowerer::python_str(const Val& v, const ast::Pos& pos) {
  if (v.kind == Val::Kind::py) {
    if (v.py.kind == sema::Value::Kind::string) {
      return v.py.s;
    }
    if (!v.py.known()) {
      fail(pos, "QD206", "the value " + v.describe() + " is not known at compile time");
    }
    return sema::repr(v.py);
  }
  if (v.kind == Val::Kind::tuple) {
    std::string out = v.is_list ? "[" : "(";
    for (size_t i = 0; i < v.items.size(); ++i) {
      const Val& item = v.items[i];
      if (item.kind != Val::Kind::py && item.kind != Val::Kind::tuple) {
        unsupported(pos, "formatting a tuple or list that holds " + item.describe() +
                             " into a string (Quadrants prints it as '<qd.Expr>')");
      }
      std::string s = item.kind == Val::Kind::py ? sema::repr(item.py) : python_str(item, pos);
      out += (i > 0 ? ", " : "") + s;
    }
    if (!v.is_list && v.items.size() == 1) {
      out += ",";
    }
    return out + (v.is_list ? "]" : ")");
  }
  unsupported(pos, "formatting " + v.describe() + " into a string");
}

// A formatted string from its pieces (qd_format): literal text, runtime values (with or without
// a spec) and compile-time values without a spec, which Python's str() turns into text.
Val Lowerer::make_formatted(std::vector<Val> pieces, const ast::Pos& pos) {
  Val out;
  out.kind = Val::Kind::formatted;
  auto text = [&](const std::string& s) {
    if (!out.items.empty() && out.items.back().kind == Val::Kind::py &&
        out.items.back().py.kind == sema::Value::Kind::string) {
      out.items.back().py.s += s;
    } else {
      out.items.push_back(Val::of_py(sema::Value::string(s)));
    }
  };
  for (Val& p : pieces) {
    if (p.kind == Val::Kind::py && p.py.kind == sema::Value::Kind::string) {
      text(p.py.s);
    } else if (p.kind == Val::Kind::formatted) {
      for (Val& q : p.items) {
        if (q.kind == Val::Kind::py && q.py.kind == sema::Value::Kind::string) {
          text(q.py.s);
        } else {
          out.items.push_back(std::move(q));
        }
      }
    } else if (p.kind == Val::Kind::spec_value || p.is_runtime()) {
      out.items.push_back(std::move(p));
    } else {
      text(python_str(p, pos));
    }
  }
  return out;
}

namespace {

// Literal braces in formatted text: Quadrants formats the text again (str.format), where a lone
// brace is an error.
bool has_brace(std::string_view s) { return s.find_first_of("{}") != std::string_view::npos; }

}  // namespace

Val Lowerer::eval_joined_str(const ast::JoinedStr* j) {
  std::vector<Val> pieces;
  for (const ast::Expr* part : j->values) {
    if (const auto* c = part->as<ast::Constant>()) {
      std::string s(c->value.text);
      if (has_brace(s)) {
        fail(c->pos, "QD201",
             "a literal brace ('{{' or '}}') in an f-string is not supported in kernels: "
             "Quadrants formats the text a second time (str.format), where a brace is an error");
      }
      pieces.push_back(Val::of_py(sema::Value::string(s)));
      continue;
    }
    const auto* fv = part->as<ast::FormattedValue>();
    if (fv == nullptr) {
      unsupported(part->pos, "this part of an f-string");
    }
    Val v = eval(fv->value);
    const auto* spec = fv->format_spec != nullptr ? fv->format_spec->as<ast::JoinedStr>() : nullptr;
    if (spec == nullptr || spec->values.size == 0) {
      pieces.push_back(std::move(v));
      continue;
    }
    const ast::Constant* text =
        spec->values.size == 1 ? spec->values[0]->as<ast::Constant>() : nullptr;
    if (text == nullptr) {
      unsupported(fv->format_spec->pos, "a format spec with a replacement field in an f-string");
    }
    Val sv;
    sv.kind = Val::Kind::spec_value;
    sv.items.push_back(std::move(v));
    sv.path = std::string(text->value.text);
    pieces.push_back(std::move(sv));
  }
  return make_formatted(std::move(pieces), j->pos);
}

// "text".format(args, name=value): _canonicalize_formatted_string, then qd_format.
Val Lowerer::format_string(const std::string& raw, const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  std::vector<std::pair<std::string, Val>> kwargs;
  for (const ast::Keyword* k : c->keywords) {
    if (ast::is_absent(k->arg)) {
      unsupported(k->pos, "**kwargs in str.format()");
    }
    kwargs.emplace_back(std::string(k->arg), eval(k->value));
  }
  std::vector<Val> pieces;
  std::vector<bool> used(kwargs.size(), false);
  int64_t unnamed = 0;
  int64_t max_index = -1;
  size_t at = 0;
  while (true) {
    size_t open = raw.find('{', at);
    std::string text = raw.substr(at, open == std::string::npos ? std::string::npos : open - at);
    if (has_brace(text)) {
      type_error(pos, "str.format() in a kernel: a lone '}' in the format string");
    }
    pieces.push_back(Val::of_py(sema::Value::string(text)));
    if (open == std::string::npos) {
      break;
    }
    size_t close = raw.find('}', open + 1);
    if (close == std::string::npos) {
      type_error(pos, "str.format() in a kernel: a '{' without its '}'");
    }
    std::string field = raw.substr(open + 1, close - open - 1);
    at = close + 1;
    if (field.find('{') != std::string::npos) {
      fail(pos, "QD201",
           "escaped braces ('{{') in str.format() are not supported in kernels (Quadrants "
           "formats the text a second time, where a brace is an error)");
    }
    std::string item = field;
    std::optional<std::string> spec;
    if (size_t colon = field.find(':'); colon != std::string::npos) {
      if (field.find(':', colon + 1) != std::string::npos) {
        type_error(pos, "str.format() in a kernel: the field '{" + field + "}' has two ':'");
      }
      item = field.substr(0, colon);
      if (colon + 1 < field.size()) {
        spec = field.substr(colon + 1);
      }
    }
    Val v;
    if (item.empty() || item.find_first_not_of("0123456789") == std::string::npos) {
      int64_t index = item.empty() ? unnamed++ : std::stoll(item);
      max_index = std::max(max_index, index);
      if (index >= static_cast<int64_t>(args.size())) {
        type_error(pos, "str.format() in a kernel: expected " + std::to_string(max_index + 1) +
                            " positional argument(s), but received " + std::to_string(args.size()) +
                            " instead");
      }
      v = args[index];
    } else {
      bool found = false;
      for (size_t k = 0; k < kwargs.size(); ++k) {
        if (kwargs[k].first == item) {
          v = kwargs[k].second;
          used[k] = true;
          found = true;
        }
      }
      if (!found) {
        type_error(pos, "str.format() in a kernel: keyword '" + item + "' not found");
      }
    }
    if (spec) {
      Val sv;
      sv.kind = Val::Kind::spec_value;
      sv.items.push_back(std::move(v));
      sv.path = *spec;
      v = std::move(sv);
    }
    pieces.push_back(std::move(v));
  }
  if (max_index + 1 != static_cast<int64_t>(args.size())) {
    type_error(pos, "str.format() in a kernel: expected " + std::to_string(max_index + 1) +
                        " positional argument(s), but received " + std::to_string(args.size()) +
                        " instead");
  }
  for (size_t k = 0; k < kwargs.size(); ++k) {
    if (!used[k]) {
      type_error(pos, "str.format() in a kernel: keyword '" + kwargs[k].first + "' not used");
    }
  }
  return make_formatted(std::move(pieces), pos);
}

// One value (or text) of a print statement into `line` (qd_format_list_to_content_entries).
void Lowerer::print_piece(const Val& v, const std::string* spec, PrintLine& line,
                          const ast::Pos& pos) {
  auto text = [&](std::string_view s) {
    for (char ch : s) {
      line.format += ch;
      if (ch == '%') {
        line.format += '%';
      }
    }
  };
  auto scalar = [&](const Expr* e) {
    line.format += print_conversion(e->type, spec, pos);
    line.args.push_back(e);
  };
  switch (v.kind) {
    case Val::Kind::py:
      if (v.py.kind == sema::Value::Kind::string) {
        if (spec != nullptr) {
          type_error(pos, "print: a format spec on the string " + sema::repr(v.py) +
                              " (Quadrants formats only numbers and vectors)");
        }
        text(v.py.s);
        return;
      }
      if (v.py.kind == sema::Value::Kind::tuple) {
        std::vector<Val> items;
        for (const sema::Value& x : v.py.items) {
          items.push_back(Val::of_py(x));
        }
        print_piece(Val::of_tuple(std::move(items), true), spec, line, pos);
        return;
      }
      if (!v.is_py_number()) {
        type_error(pos, "print() cannot print " + v.describe() + " in a kernel");
      }
      scalar(to_scalar(v, pos));  // a constant of default_ip / default_fp / u1, as Expr(x)
      return;
    case Val::Kind::scalar: scalar(v.expr); return;
    case Val::Kind::tuple:
      if (spec != nullptr) {
        type_error(pos, "print: a format spec on a tuple or list");
      }
      text("[");  // Quadrants prints a tuple or list as a list
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) {
          text(", ");
        }
        print_piece(v.items[i], nullptr, line, pos);
      }
      text("]");
      return;
    case Val::Kind::tensor:
      // The scalarized form (transforms/scalarize.cpp): "[a, b]", "[[a, b], [c, d]]", the spec
      // applied to every element.
      text("[");
      for (int32_t r = 0; r < v.rows; ++r) {
        if (r > 0) {
          text(", ");
        }
        if (v.cols == 0) {
          scalar(v.elems[r]);
          continue;
        }
        text("[");
        for (int32_t c = 0; c < v.cols; ++c) {
          if (c > 0) {
            text(", ");
          }
          scalar(v.elems[r * v.cols + c]);
        }
        text("]");
      }
      text("]");
      return;
    case Val::Kind::formatted:
      for (const Val& item : v.items) {
        print_piece(item, nullptr, line, pos);
      }
      return;
    case Val::Kind::spec_value: print_piece(v.items[0], &v.path, line, pos); return;
    default: type_error(pos, "print() cannot print " + v.describe() + " in a kernel");
  }
}

Val Lowerer::call_print(const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  std::string sep = " ";
  std::string end = "\n";
  for (const ast::Keyword* k : c->keywords) {
    std::string name = ast::is_absent(k->arg) ? "**" : std::string(k->arg);
    if (name != "sep" && name != "end") {
      fail(k->pos, "QD201",
           "print(" + name +
               "=...) is not supported in kernels: a kernel prints to stdout, with "
               "sep= and end= only");
    }
    Val v = eval(k->value);
    if (v.kind != Val::Kind::py || v.py.kind != sema::Value::Kind::string) {
      type_error(k->value->pos, "print(" + name + "=...) must be a constant string in a kernel");
    }
    (name == "sep" ? sep : end) = v.py.s;
  }
  PrintLine line;
  Val sep_val = Val::of_py(sema::Value::string(sep));
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) {
      print_piece(sep_val, nullptr, line, pos);
    }
    print_piece(args[i], nullptr, line, pos);
  }
  print_piece(Val::of_py(sema::Value::string(end)), nullptr, line, pos);
  Stmt* st = emit(StmtKind::print, pos);
  st->format = std::move(line.format);
  st->args = std::move(line.args);
  return Val::of_py(sema::Value::none());
}

}  // namespace qd::ir::lower
