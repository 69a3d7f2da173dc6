// qdbuild::explain (include/qdbuild/explain.hpp): one kernel's signature, reachable funcs, purity
// verdict and why, module constants, and for each instance every kernel-key component with its
// own hash, then the key and the offload split. JSON: the same content; "key" is the first
// instance's. Without PATHs the root itself is the tree (default ".").
#include "qdbuild/explain.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/diagnostic_output.hpp"
#include "api/explain_text.hpp"
#include "backend/backend.hpp"
#include "codegen/kernel_codegen.hpp"
#include "support/edit_distance.hpp"

namespace qd::api {

namespace {

using Json = nlohmann::ordered_json;

// Where instance `n` of the kernel came from: "pyproject.toml:12", "rec.json: kernels['m:k'][0]"
// ("" without a configured instance).
std::string instance_source(const sema::Analysis& a, const sema::KernelReport& k, size_t n) {
  auto it = a.config.instance_sources.find(k.id);
  return it == a.config.instance_sources.end() || n >= it->second.size() ? "" : it->second[n];
}

std::string location(const sema::Program& p, sema::DefId d) {
  return p.module_of(d).path + ":" + std::to_string(p.defs[d].line);
}

// The offload split of one instance (lowering and codegen; no compile): tasks with their keys.
struct SplitInfo {
  bool lowered = false;
  codegen::KernelCode code;
  std::vector<std::string> task_keys;  // per task: the key of its unit
};

SplitInfo split_of(const sema::Analysis& a, const sema::KernelReport& k, size_t instance) {
  SplitInfo s;
  if (!k.instances[instance].unbound.empty()) {
    return s;
  }
  size_t index = static_cast<size_t>(&k - a.kernels.data());
  s.code = codegen::generate_kernel(a, index, instance, codegen::Options{});
  s.lowered = true;
  for (const codegen::TaskCode& t : s.code.tasks) {
    s.task_keys.push_back(backend::task_key(s.code.units[t.unit].source, backend::CpuTarget{}));
  }
  return s;
}

Json to_json(const sema::Analysis& a, const sema::KernelReport& k) {
  const sema::Program& p = *a.program;
  Json j;
  j["id"] = k.id;
  j["file"] = p.module_of(k.def).path;
  j["line"] = p.defs[k.def].line;
  j["marked"] = k.marked;
  j["marked_by"] = p.defs[k.def].marked_by;
  j["eligible"] = k.eligible;
  j["verdict"] = k.verdict;
  j["reasons"] = k.reasons;
  j["exemptions"] = k.exemptions;
  Json params = Json::array();
  for (const sema::Param& prm : k.signature.params) {
    params.push_back({{"name", prm.name},
                      {"kind", sema::name_of(prm.type.kind)},
                      {"type", prm.type.kind == sema::ParamType::Kind::invalid ? prm.type.error
                                                                               : prm.type.text}});
  }
  j["signature"] = {{"text", k.signature.text()},
                    {"params", std::move(params)},
                    {"returns", k.signature.returns}};
  Json funcs = Json::array();
  for (size_t i = 1; i < k.reached.size(); ++i) {
    sema::DefId d = k.reached[i].def;
    funcs.push_back(
        {{"id", p.def_id(d)},
         {"kind", p.defs[d].role == sema::DefRole::plain ? "python" : p.defs[d].decorator},
         {"file", p.module_of(d).path},
         {"line", p.defs[d].line},
         {"path", sema::call_path(p, k.reached, i)}});
  }
  j["funcs"] = std::move(funcs);
  j["constants"] = k.constants;
  Json instances = Json::array();
  for (const sema::InstanceKey& inst : k.instances) {
    Json comps = Json::array();
    for (const auto& c : inst.components) {
      comps.push_back({{"tag", c.tag}, {"hash", c.hash}, {"text", c.text}});
    }
    size_t n = static_cast<size_t>(&inst - k.instances.data());
    std::string source = instance_source(a, k, n);
    Json entry = {{"instance", inst.instance},
                  {"source", source.empty() ? Json(nullptr) : Json(source)},
                  {"unbound", inst.unbound},
                  {"components", std::move(comps)},
                  {"key", inst.key}};
    SplitInfo split = split_of(a, k, n);
    if (split.lowered && split.code.ok) {
      Json tasks = Json::array();
      for (size_t t = 0; t < split.code.tasks.size(); ++t) {
        const codegen::TaskCode& tc = split.code.tasks[t];
        tasks.push_back({{"kind", tc.range ? "range" : "serial"},
                         {"label", tc.label},
                         {"line", tc.line},
                         {"symbol", tc.symbol},
                         {"task_key", split.task_keys[t]}});
      }
      entry["split"] = split.code.whole_reason.empty() ? "per-task" : "whole-kernel";
      entry["whole_reason"] = split.code.whole_reason;
      entry["temps_size"] = split.code.tasks.empty() ? 0 : split.code.tasks[0].launch.temps_size;
      entry["tasks"] = std::move(tasks);
    }
    for (const sema::SemaDiagnostic& d : split.code.diagnostics) {
      entry["lowering_diagnostics"].push_back(diagnostic_object(a, d));
    }
    instances.push_back(std::move(entry));
  }
  j["instances"] = std::move(instances);
  j["key"] = k.instances.empty() ? Json(nullptr) : Json(k.instances.front().key);
  Json diags = Json::array();
  for (const sema::SemaDiagnostic& d : k.diagnostics) {
    diags.push_back(diagnostic_object(a, d));
  }
  j["diagnostics"] = std::move(diags);
  return j;
}

}  // namespace

std::string explain_text(const sema::Analysis& a, const sema::KernelReport& k, bool brief) {
  const sema::Program& p = *a.program;
  std::string out;
  out += "kernel     " + k.id + "  (" + location(p, k.def) + ")\n";
  out += "verdict    " + k.verdict + "\n";
  for (const std::string& r : k.reasons) {
    out += "  because  " + r + "\n";
  }
  out += "signature  " + k.signature.text() + "\n";
  out += "funcs      " + std::to_string(k.reached.size() - 1) + "\n";
  for (size_t i = 1; i < k.reached.size(); ++i) {
    sema::DefId d = k.reached[i].def;
    out += "  " + p.def_id(d) + "  (" + location(p, d) + ")  via " +
           sema::call_path(p, k.reached, i) + "\n";
  }
  out += "constants  " + std::to_string(k.constants.size()) + "\n";
  for (const std::string& c : k.constants) {
    out += "  " + c + "\n";
  }
  for (const std::string& e : k.exemptions) {
    out += "allowed    " + e + "\n";
  }
  for (size_t n = 0; n < k.instances.size(); ++n) {
    const sema::InstanceKey& inst = k.instances[n];
    out += "instance   " + inst.instance + "\n";
    if (std::string source = instance_source(a, k, n); !source.empty()) {
      out += "  from     " + source + "\n";
    }
    if (!inst.unbound.empty()) {
      std::string list;
      for (const std::string& u : inst.unbound) {
        list += (list.empty() ? "" : ", ") + u;
      }
      out += "  unbound  " + list +
             " (record a run: python -m qdrt.record, then --instances FILE; or give values in "
             "[tool.qdbuild.instances])\n";
    }
    for (const auto& c : inst.components) {
      if (brief) {
        break;  // the key's components: only in the whole explanation
      }
      std::string text = c.text;
      if (text.find('\n') != std::string::npos) {
        size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
        text = std::to_string(lines) + " line" + (lines == 1 ? "" : "s");
      }
      out += "  " + c.hash.substr(0, 16) + "  " + c.tag + ": " + text + "\n";
    }
    out += "key        " + inst.key + "\n";
    SplitInfo split = split_of(a, k, n);
    if (split.lowered && split.code.ok) {
      out += "split      " + std::to_string(split.code.tasks.size()) + " task" +
             (split.code.tasks.size() == 1 ? "" : "s") +
             (split.code.whole_reason.empty()
                  ? ", one unit each (an edit to one construct recompiles one task)"
                  : ", whole-kernel: " + split.code.whole_reason) +
             "\n";
      for (size_t t = 0; t < split.code.tasks.size(); ++t) {
        const codegen::TaskCode& tc = split.code.tasks[t];
        out += "  " + std::to_string(t) + " " + (tc.range ? "range " : "serial") + "  " +
               split.task_keys[t].substr(0, 16) + "  line " + std::to_string(tc.line) + ": " +
               tc.label + "\n";
      }
    }
    if (!split.code.diagnostics.empty()) {
      out += format_diagnostics(a, split.code.diagnostics, DiagnosticFormat::text);
    }
  }
  if (!k.diagnostics.empty() && !brief) {
    out += "\n" + format_diagnostics(a, k.diagnostics, DiagnosticFormat::text);
  }
  return out;
}

}  // namespace qd::api

namespace qdbuild {

ExplainResult explain(const ExplainOptions& options) {
  using namespace qd;
  using namespace qd::api;
  ExplainResult out;
  const std::string& id = options.id;
  std::vector<std::string> paths = options.paths;
  sema::AnalysisOptions ao;
  ao.target = options.target;
  ao.instance_files = options.instance_files;
  if (paths.empty()) {
    paths.push_back(options.root.empty() ? std::string(".")
                                         : options.root);  // the root is the tree
  } else {
    ao.root = options.root;
  }
  sema::Analysis a = sema::analyze(paths, ao);
  if (!a.tool_errors.empty()) {
    out.errors = a.tool_errors;
    out.exit = Exit::input_error;
    return out;
  }
  const sema::KernelReport* found = nullptr;
  std::string best;
  size_t best_distance = 0;
  for (const sema::KernelReport& k : a.kernels) {
    if (k.id == id) {
      found = &k;
      break;
    }
    size_t limit = std::max<size_t>(2, std::max(id.size(), k.id.size()) / 3);
    size_t d = support::edit_distance(id, k.id, limit);
    if (d <= limit && (best.empty() || d < best_distance)) {
      best = k.id;
      best_distance = d;
    }
  }
  if (found == nullptr) {
    std::string where;
    for (const std::string& p : paths) {
      where += (where.empty() ? "" : ", ") + p;
    }
    std::string message = "no kernel '" + id + "' under '" + where + "'";
    if (!best.empty()) {
      message += ", did you mean '" + best + "'?";
    }
    out.errors.push_back(message);
    out.exit = Exit::input_error;
    return out;
  }
  out.found = true;
  out.output = options.json
                   ? to_json(a, *found).dump(2, ' ', false, Json::error_handler_t::replace) + "\n"
                   : explain_text(a, *found, false);
  for (const sema::SemaDiagnostic& d : found->diagnostics) {
    if (d.d.severity == syntax::Severity::Error) {
      out.exit = Exit::input_error;
    }
  }
  return out;
}

}  // namespace qdbuild
