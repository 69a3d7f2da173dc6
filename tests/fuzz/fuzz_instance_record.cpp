// libFuzzer target: recorded runs (sema/instance_record.hpp), the JSON a user passes with
// --instances. Whatever the bytes, reading never crashes and never throws; every instance it
// accepts has a canonical text, and every define a Python expression.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sema/instance_record.hpp"
#include "syntax/ast_nodes.hpp"
#include "syntax/parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  qd::sema::BuildConfig config;
  std::vector<qd::sema::ConfigError> errors;
  qd::sema::read_record_text(text, "fuzz.json", config, errors);
  for (const auto& [id, list] : config.instances) {
    if (config.instance_sources[id].size() != list.size()) {
      __builtin_trap();  // provenance runs parallel to the instances
    }
    for (const qd::sema::Instance& inst : list) {
      for (const auto& [name, v] : inst) {
        (void)v.text();
      }
    }
  }
  // A define becomes one line `_qd_define_x = <python>` of a synthetic module: it must parse as
  // exactly one statement (a description never injects code).
  for (const auto& [name, d] : config.defines) {
    if (d.conflict) {
      continue;
    }
    auto parsed = qd::syntax::parse_bytes("define.py", "_x = " + d.python + "\n");
    if (!parsed->ok() || parsed->module == nullptr || parsed->module->body.size != 1) {
      __builtin_trap();
    }
  }
  // The same bytes as one parameter description.
  qd::sema::RecordedParam r = qd::sema::recorded_param(text);
  if (r.ok && !r.omit) {
    (void)r.value.text();
  }
  return 0;
}
