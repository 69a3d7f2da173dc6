// qd_rt_store_tool: publishes hand-made entries into a directory store with the builder's own
// store library (qd_store), for the runtime tests. Until the compiler (issue 5) exists, the
// modules are C++ files compiled by runtime/tests/make_test_store.py; this tool writes their
// index entries exactly as `qdbuild build` will (task names, kinds, launch metadata per
// qdrt/task_abi.h, arguments, module object).
//
//   qd_rt_store_tool publish SPEC.json
//
// SPEC: {"store": DIR, "entries": [{"kernel": ID, "instance": TEXT, "target": "cpu",
//         "module": PATH_TO_SO,
//         "tasks": [{"name": T, "kind": "range"|"serial", "temps_size": N, "result_dtype": "i64",
//                    "grain": N, "block_dim": N, "flags": N, "abi_version": N (default 1),
//                    "metadata_size": N (default 32: a wrong size tests the reader)}],
//         "arguments": [{"name": A, "kind": "scalar"|"ndarray"|"template"|"field", "dtype": "f32",
//                        "ndim": N, "element_shape": [..], field: "field_shape": [..],
//                        "field_strides": [bytes..]}]}]}
// Exit: 0 ok; 1 a store error or a bad spec (printed).
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "qdrt/task_abi.h"
#include "store/local_store.hpp"

using namespace qd::store;
using nlohmann::json;

namespace {

const std::map<std::string, uint32_t> k_dtypes = {
    {"none", QDRT_DTYPE_NONE}, {"i8", QDRT_DTYPE_I8},   {"i16", QDRT_DTYPE_I16},
    {"i32", QDRT_DTYPE_I32},   {"i64", QDRT_DTYPE_I64}, {"u8", QDRT_DTYPE_U8},
    {"u16", QDRT_DTYPE_U16},   {"u32", QDRT_DTYPE_U32}, {"u64", QDRT_DTYPE_U64},
    {"f16", QDRT_DTYPE_F16},   {"f32", QDRT_DTYPE_F32}, {"f64", QDRT_DTYPE_F64},
    {"u1", QDRT_DTYPE_U1}};

uint32_t dtype_size(uint32_t d) {
  switch (d) {
    case QDRT_DTYPE_I8:
    case QDRT_DTYPE_U8:
    case QDRT_DTYPE_U1: return 1;
    case QDRT_DTYPE_I16:
    case QDRT_DTYPE_U16:
    case QDRT_DTYPE_F16: return 2;
    case QDRT_DTYPE_I32:
    case QDRT_DTYPE_U32:
    case QDRT_DTYPE_F32: return 4;
    case QDRT_DTYPE_NONE: return 0;
    default: return 8;
  }
}

int fail_with(const std::string& message) {
  std::fprintf(stderr, "qd_rt_store_tool: error: %s\n", message.c_str());
  return 1;
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false;
  }
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

int publish(const std::string& spec_path) {
  std::string text;
  if (!read_file(spec_path, text)) {
    return fail_with("cannot read '" + spec_path + "'");
  }
  json spec = json::parse(text, nullptr, false);
  if (spec.is_discarded()) {
    return fail_with("'" + spec_path + "' is not JSON");
  }
  LocalStore store(spec.at("store").get<std::string>());
  if (Result<Unit> r = store.create(); !r) {
    return fail_with(r.error());
  }
  std::vector<Entry> entries;
  for (const json& je : spec.at("entries")) {
    Entry e;
    e.key = {je.at("kernel").get<std::string>(), je.at("instance").get<std::string>(),
             je.value("target", std::string("cpu"))};
    std::string code;
    std::string module = je.at("module").get<std::string>();
    if (!read_file(module, code)) {
      return fail_with("cannot read module '" + module + "'");
    }
    Result<ObjectId> id = store.put(code);
    if (!id) {
      return fail_with(id.error());
    }
    e.record.module = *id;
    for (const json& jt : je.at("tasks")) {
      qdrt_task_launch l{};
      l.abi_version = jt.value("abi_version", QDRT_TASK_ABI_VERSION);
      l.flags = jt.value("flags", 0u);
      l.temps_size = jt.value("temps_size", uint64_t{0});
      l.result_dtype = k_dtypes.at(jt.value("result_dtype", std::string("none")));
      l.result_size = dtype_size(l.result_dtype);
      l.grain = jt.value("grain", 0u);
      l.block_dim = jt.value("block_dim", 0u);
      std::string meta(reinterpret_cast<const char*>(&l), sizeof l);
      // Graph loops the task ends (launch metadata version 5): [[first_task, condition], ...].
      for (const json& end : jt.value("loop_ends", json::array())) {
        qdrt_task_loop_end le{end.at(0).get<uint32_t>(), end.at(1).get<uint32_t>()};
        meta.append(reinterpret_cast<const char*>(&le), sizeof le);
      }
      meta.resize(jt.value("metadata_size", meta.size()), '\0');
      Task t;
      t.name = jt.at("name").get<std::string>();
      t.kind = jt.at("kind").get<std::string>() == "serial" ? TaskKind::serial : TaskKind::range;
      t.launch_metadata = meta;
      e.record.tasks.push_back(std::move(t));
    }
    for (const json& ja : je.value("arguments", json::array())) {
      Argument a;
      a.name = ja.at("name").get<std::string>();
      std::string kind = ja.at("kind").get<std::string>();
      a.kind = kind == "scalar"    ? QDRT_ARG_SCALAR
               : kind == "ndarray" ? QDRT_ARG_NDARRAY
               : kind == "field"   ? QDRT_ARG_FIELD
                                   : QDRT_ARG_TEMPLATE;
      a.dtype = k_dtypes.at(ja.value("dtype", std::string("none")));
      a.ndim = ja.value("ndim", 0u);
      a.element_shape = ja.value("element_shape", std::vector<uint32_t>{});
      a.field_shape = ja.value("field_shape", std::vector<int64_t>{});
      a.field_strides = ja.value("field_strides", std::vector<int64_t>{});
      e.record.arguments.push_back(std::move(a));
    }
    entries.push_back(std::move(e));
  }
  if (Result<Unit> r = store.publish(std::move(entries)); !r) {
    return fail_with(r.error());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "publish") {
    return publish(argv[2]);
  }
  std::fprintf(stderr, "usage: qd_rt_store_tool publish SPEC.json\n");
  return 2;
}
