#include "sema/analysis.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <unordered_map>

#include "sema/instance_record.hpp"
#include "sema/parse_cache.hpp"
#include "sema/purity.hpp"
#include "sema/runtime_globals.hpp"
#include "sema/source_tree.hpp"
#include "support/thread_pool.hpp"

namespace qd::sema {

namespace fs = std::filesystem;
using PK = ParamType::Kind;
using EK = Entity::Kind;
using syntax::Severity;

size_t Analysis::count(Severity s) const {
  return static_cast<size_t>(
      std::count_if(diagnostics.begin(), diagnostics.end(),
                    [&](const SemaDiagnostic& d) { return d.d.severity == s; }));
}

namespace {

class KernelAnalyzer {
public:
  KernelAnalyzer(const Program& p, const std::vector<BodyRefs>& refs,
                 const std::vector<std::string>& hashes,
                 const std::vector<std::vector<std::string>>& class_fields,
                 const BuildConfig& config, const std::string& device,
                 const AnalysisOptions& options, KernelReport& out)
      : m_p(p), m_refs(refs), m_hashes(hashes), m_class_fields(class_fields), m_config(config),
        m_device(device), m_options(options), m_out(out) {}

  void run(DefId k) {
    const DefInfo& d = m_p.defs[k];
    m_out.def = k;
    m_out.id = m_p.def_id(k);
    m_out.marked = d.fastcache;
    m_module = d.module;
    decorators(d);
    m_out.signature = signature_of(m_p, k);
    parameters(d);
    std::vector<DefId> roots{k};
    template_roots(roots);
    m_out.reached = reachable(m_p, m_refs, roots);
    for (size_t i = 0; i < m_out.reached.size(); ++i) {
      body(i);
    }
    std::sort(m_out.constants.begin(), m_out.constants.end());
    m_out.constants.erase(std::unique(m_out.constants.begin(), m_out.constants.end()),
                          m_out.constants.end());
    if (m_options.keys) {
      keys();
    } else {
      field_members();
    }
    if (!m_out.marked) {
      m_out.verdict = "not marked fastcache=True: purity is not checked and fastcache is not used";
      if (m_options.print_non_pure) {
        diag(Severity::Note, "QD115", {d.line, d.col, d.line, d.col},
             "kernel '" + m_out.id + "' is not marked fastcache=True");
      }
    } else {
      m_out.eligible = m_out.reasons.empty();
      m_out.verdict = m_out.eligible ? "eligible for fastcache (" + d.marked_by + ")"
                                     : "marked " + d.marked_by + " but not eligible";
    }
  }

private:
  void diag(Severity s, const char* code, const SourceSpan& at, std::string message,
            int32_t module = k_none) {
    SemaDiagnostic sd;
    sd.d.severity = s;
    sd.d.code = code;
    sd.d.line = at.line;
    sd.d.col = at.col;
    sd.d.end_line = at.end_line;
    sd.d.end_col = at.end_col;
    sd.d.message = std::move(message);
    sd.module = module == k_none ? m_module : module;
    sd.kernel = m_out.id;
    m_out.diagnostics.push_back(std::move(sd));
  }

  void reason(std::string r) {
    if (std::find(m_out.reasons.begin(), m_out.reasons.end(), r) == m_out.reasons.end()) {
      m_out.reasons.push_back(std::move(r));
    }
  }

  void decorators(const DefInfo& d) {
    for (const syntax::ast::Expr* e : *d.decorators) {
      if (d.pure_decorator != nullptr) {
        e = d.pure_decorator;
      }
      SourceSpan at{e->pos.lineno, e->pos.col_offset, e->pos.end_lineno, e->pos.end_col_offset};
      if (d.marked_by == "pure=True" || d.marked_by == "@qd.pure") {
        diag(Severity::Warning, "QD113", at,
             d.marked_by + " is deprecated: use @qd.kernel(fastcache=True) (kernel '" +
                 m_p.def_id(m_out.def) + "')");
        return;
      }
    }
  }

  void parameters(const DefInfo& d) {
    for (const Param& prm : m_out.signature.params) {
      if (prm.type.kind == PK::invalid) {
        diag(Severity::Error, "QD107", prm.span,
             "kernel '" + m_out.id + "', parameter '" + prm.name + "': " + prm.type.error);
        reason("parameter '" + prm.name + "' has an annotation qdbuild cannot read");
      } else if (prm.type.kind == PK::field) {
        reason("parameter '" + prm.name + "' is a field (" + prm.type.text + ")");
        if (m_out.marked) {
          diag(Severity::Warning, "QD106", prm.span,
               "parameter '" + prm.name + "' of kernel '" + m_out.id +
                   "' is a field: fastcache is disabled for this kernel (fields bake memory "
                   "offsets into the code; pass a qd.ndarray instead)");
        }
      }
    }
  }

  const std::vector<Instance>* instances() const {
    auto it = m_config.instances.find(m_out.id);
    return it == m_config.instances.end() ? nullptr : &it->second;
  }

  // Funcs given to template parameters by the instances ("op = 'mod:func'").
  void template_roots(std::vector<DefId>& roots) {
    const std::vector<Instance>* insts = instances();
    if (insts == nullptr) {
      return;
    }
    for (const Instance& inst : *insts) {
      for (const auto& [name, v] : inst) {
        if (v.is_table || v.scalar.kind != Value::Kind::string) {
          continue;
        }
        for (DefId d = 0; d < static_cast<DefId>(m_p.defs.size()); ++d) {
          if (m_p.def_id(d) == v.scalar.s) {
            roots.push_back(d);
            m_template_funcs.insert(name);
          }
        }
      }
    }
  }

  std::string where(size_t i) const {
    if (i == 0) {
      return "";
    }
    return " in func '" + m_p.def_id(m_out.reached[i].def) + "' (reached via " +
           call_path(m_p, m_out.reached, i) + ")";
  }

  void body(size_t i) {
    DefId def = m_out.reached[i].def;
    const DefInfo& d = m_p.defs[def];
    const BodyRefs& refs = m_refs[def];
    const bool plain = d.role == DefRole::plain;
    for (const UnresolvedRef& u : refs.unresolved) {
      if (u.undefined && !u.runtime_problem.empty()) {
        diag(Severity::Error, "QD116", u.span,
             "kernel '" + m_out.id + "' reads '" + u.text + "'" + where(i) + ": " +
                 u.runtime_problem,
             d.module);
        reason("'" + u.text + "' is set at run time and has no recorded or defined value");
        continue;
      }
      if (u.undefined) {
        diag(Severity::Error, "QD105", u.span,
             u.reason + " (kernel '" + m_out.id + "'" + where(i) + ")", d.module);
        reason("'" + u.text + "' is not defined");
        continue;
      }
      if (!u.template_param.empty() && m_template_funcs.contains(u.template_param)) {
        continue;
      }
      reason("callee '" + u.text + "' cannot be resolved statically");
      if (m_out.marked) {
        diag(Severity::Warning, "QD104", u.span,
             "kernel '" + m_out.id + "' calls '" + u.text + "'" + where(i) +
                 ", which cannot be resolved statically: " + u.reason +
                 "; the kernel is not eligible for fastcache",
             d.module);
      }
    }
    for (const CaptureRef& c : refs.captures) {
      capture(i, d, c, plain);
    }
  }

  void capture(size_t i, const DefInfo& d, const CaptureRef& c, bool plain) {
    const Entity& e = c.entity;
    if (e.kind == EK::quadrants) {
      // A Quadrants type or function reached through a binding of the tree: its identity is
      // what the kernel compiles with; reading it is allowed under fastcache (as Quadrants
      // allows reading dtypes and types).
      m_out.constants.push_back(c.text + " = " + e.path);
      return;
    }
    // What enters the key.
    bool unknown_value = false;
    if (e.kind == EK::value) {
      unknown_value = !e.value.known();
      m_out.constants.push_back(e.path + " = " + (unknown_value ? "<unknown>" : repr(e.value)));
    } else if (e.kind == EK::external) {
      m_out.constants.push_back(e.path);
      unknown_value = !(e.path.starts_with("math.") || e.path.starts_with("numpy."));
    } else if (e.kind == EK::instance) {
      m_out.constants.push_back(e.path + " = <instance of " + class_path(m_p, e.cls) + ">");
      unknown_value = true;
    } else {
      m_out.constants.push_back(e.path.empty() ? c.text : e.path + " = <" + name_of(e.kind) + ">");
      unknown_value = e.kind != EK::field && e.kind != EK::ndarray;
    }
    if (plain) {
      if (unknown_value) {
        reason("the compile-time helper '" + m_p.def_id(m_out.reached[i].def) + "' reads '" +
               c.text + "', whose value is not known statically");
      }
      return;  // Python helpers run at compile time: they are keyed, not purity-checked
    }
    CaptureCheck check = check_capture(m_p, c);
    std::string what = "'" + c.text + "' (" + check.what + ")";
    switch (check.verdict) {
      case CaptureVerdict::exempt:
        m_out.exemptions.push_back(c.text + ": " + check.what + " (allowed capture)");
        return;
      case CaptureVerdict::error_ndarray:
        diag(Severity::Error, "QD110", c.span,
             "kernel '" + m_out.id + "' uses the ndarray " + what + " from module scope" +
                 where(i) + "; ndarrays must be passed as kernel parameters",
             d.module);
        reason("uses a module-level ndarray");
        return;
      case CaptureVerdict::error:
        reason("captures " + what + where(i));
        if (m_out.marked) {
          diag(Severity::Error, "QD101", c.span,
               "fastcache kernel '" + m_out.id + "' captures " + what +
                   (c.entity.path == c.text && d.nested ? " from the enclosing function"
                                                        : " from module scope") +
                   where(i) + "; pass it as a parameter",
               d.module);
        }
        return;
      case CaptureVerdict::warn_uppercase:
      case CaptureVerdict::warn_static:
        if (unknown_value) {
          reason("reads " + what + where(i) + ", whose value cannot enter the key");
        }
        if (!m_out.marked) {
          return;
        }
        if (unknown_value) {
          diag(Severity::Warning, "QD108", c.span,
               "fastcache kernel '" + m_out.id + "' reads " + what + where(i) +
                   ", which qdbuild cannot evaluate, so it cannot enter the kernel key; the "
                   "kernel is not eligible for fastcache",
               d.module);
        } else if (check.verdict == CaptureVerdict::warn_uppercase) {
          diag(Severity::Warning, "QD102", c.span,
               "fastcache kernel '" + m_out.id + "' reads the global " + what + where(i) +
                   "; allowed for UPPERCASE names, and its value is part of the kernel key",
               d.module);
        } else {
          diag(Severity::Warning, "QD103", c.span,
               "fastcache kernel '" + m_out.id + "' captures " + what + " inside qd.static(...)" +
                   where(i) +
                   "; qd.static does not exempt captures (pass it as a parameter); "
                   "its value is part of the kernel key",
               d.module);
        }
        return;
    }
  }

  void keys() {
    KeyInputs in;
    in.program = &m_p;
    in.kernel = m_out.def;
    in.signature = &m_out.signature;
    in.config = &m_config;
    in.device_caps = m_device;
    in.constants = m_out.constants;
    for (const ReachedDef& r : m_out.reached) {
      const std::string& h = m_hashes[r.def];
      in.sources.emplace_back(m_p.def_id(r.def),
                              h.empty() ? source_hash(m_p.module_of(r.def), m_p.defs[r.def]) : h);
    }
    std::sort(in.sources.begin(), in.sources.end());
    const std::vector<Instance>* insts = instances();
    size_t n = insts == nullptr ? 1 : insts->size();
    for (size_t k = 0; k < n; ++k) {
      in.instance = insts == nullptr ? nullptr : &(*insts)[k];
      m_out.instances.push_back(compute_key(in));
    }
    if (!m_out.instances.empty()) {  // (an instance list the configuration left empty)
      report_field_members(m_out.instances.front().field_members);
    }
  }

  // Without keys: the compound layouts alone, for their field members.
  void field_members() {
    std::vector<std::string> fields;
    for (const Param& prm : m_out.signature.params) {
      if ((prm.type.kind == PK::data_oriented || prm.type.kind == PK::dataclass) &&
          prm.type.cls != k_none) {
        for (const std::string& f : m_class_fields[prm.type.cls]) {
          fields.push_back(prm.name + f);  // f is ".member.sub"
        }
      }
    }
    report_field_members(fields);
  }

  void report_field_members(const std::vector<std::string>& fields) {
    if (!fields.empty()) {
      std::string list;
      for (const std::string& f : fields) {
        list += (list.empty() ? "" : ", ") + f;
      }
      reason("compound parameter member(s) " + list + " are fields");
      if (m_out.marked) {
        const DefInfo& d = m_p.defs[m_out.def];
        diag(Severity::Warning, "QD109", {d.line, d.col, d.line, d.col},
             "kernel '" + m_out.id + "' takes a compound parameter with field member(s) " + list +
                 ": fastcache is disabled for it (use qd.ndarray members)");
      }
    }
  }

  const Program& m_p;
  const std::vector<BodyRefs>& m_refs;
  const std::vector<std::string>& m_hashes;
  const std::vector<std::vector<std::string>>& m_class_fields;
  const BuildConfig& m_config;
  const std::string& m_device;
  const AnalysisOptions& m_options;
  KernelReport& m_out;
  int32_t m_module = k_none;
  std::set<std::string> m_template_funcs;
};

std::string root_dir_of(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return path;
  }
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Where an instance came from, as a diagnostic's file and line plus a prefix for its message:
// "pyproject.toml:12", or "scene.json: kernels['m:k'][2]" (a record: the entry names it).
void locate_instance(const std::string& source, const std::string& config_path, SemaDiagnostic& sd,
                     std::string& prefix) {
  sd.d.line = 1;
  prefix.clear();
  if (size_t at = source.find(": kernels["); at != std::string::npos) {
    sd.path = source.substr(0, at);
    prefix = source.substr(at + 2) + ": ";
    return;
  }
  size_t colon = source.rfind(':');
  if (colon != std::string::npos && colon + 1 < source.size() &&
      source.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    sd.path = source.substr(0, colon);
    sd.d.line = std::stoi(source.substr(colon + 1));
    return;
  }
  sd.path = source.empty() ? config_path : source;
}

// What is wrong with giving `v` to parameter `prm` ("" when nothing is).
std::string instance_value_problem(const Program& p, const Param& prm, const ConfigValue& v) {
  const ParamType& t = prm.type;
  switch (t.kind) {
    case PK::ndarray:
    case PK::tensor:
    case PK::torch_tensor:
    case PK::numpy_array: {
      if (!v.is_table) {
        return "'" + prm.name + "' is an array parameter (" + t.text +
               "), but the instance gives " + v.text() +
               " (expected a table such as {dtype = 'f32', ndim = 2})";
      }
      auto dt = v.table.find("dtype");
      if (!t.dtype.empty() && dt != v.table.end() &&
          dt->second.scalar.kind == Value::Kind::string && dt->second.scalar.s != t.dtype) {
        return "'" + prm.name + "' is annotated " + t.text + ", but the instance gives dtype " +
               dt->second.text() + " (a record of another version of the source?)";
      }
      auto nd = v.table.find("ndim");
      if (t.ndim >= 0 && nd != v.table.end() && nd->second.scalar.kind == Value::Kind::integer &&
          nd->second.scalar.iv != t.ndim) {
        return "'" + prm.name + "' is annotated " + t.text + ", but the instance gives ndim " +
               nd->second.text() + " (a record of another version of the source?)";
      }
      return "";
    }
    case PK::dataclass:
    case PK::data_oriented: {
      if (!v.is_table) {
        return "'" + prm.name + "' is a " + t.text + " parameter, but the instance gives " +
               v.text() + " (expected a table of its members)";
      }
      auto cls = v.table.find("__class__");
      if (cls != v.table.end() && cls->second.scalar.kind == Value::Kind::string &&
          t.cls != k_none) {
        const std::string ours = class_path(p, t.cls);
        const std::string& given = cls->second.scalar.s;
        // The object's own class may be a subclass (a method kernel of PBDBaseEntity called
        // on a PBDParticleEntity): its bases, in the tree, reach the parameter's class.
        auto derives = [&](auto&& self, ClassId c, int depth) -> bool {
          if (c == t.cls) {
            return true;
          }
          if (depth > 32) {
            return false;
          }
          for (ClassId b : p.classes[c].base_ids) {
            if (self(self, b, depth + 1)) {
              return true;
            }
          }
          return false;
        };
        bool subclass = false;
        for (ClassId c = 0; c < static_cast<ClassId>(p.classes.size()) && !subclass; ++c) {
          subclass = class_path(p, c) == given && derives(derives, c, 0);
        }
        if (given != ours && !given.ends_with("." + ours) && !subclass) {
          return "'" + prm.name + "' is a " + t.text + " parameter, but the instance gives an " +
                 "object of class '" + given + "'";
        }
      }
      return "";
    }
    case PK::primitive:
    case PK::vector:
    case PK::matrix:
    case PK::struct_:
      return "'" + prm.name + "' is a " + t.text + " parameter: its value is passed at run " +
             "time and is not part of an instance";
    default: return "";
  }
}

// Instances given for kernels (by the config or by recorded runs), checked against the tree: a
// kernel that is not there, a parameter that does not exist or a value of the wrong kind is
// reported at the file and entry that gave it.
std::string config_dir(const std::vector<std::string>& paths, const AnalysisOptions& options) {
  return !options.config_dir.empty() ? options.config_dir
         : paths.empty()             ? std::string(".")
                                     : root_dir_of(paths[0]);
}

void check_instances(Analysis& a) {
  const Program& p = *a.program;
  std::unordered_map<std::string, DefId> kernels;
  for (DefId d = 0; d < static_cast<DefId>(p.defs.size()); ++d) {
    if (p.defs[d].role == DefRole::kernel) {
      kernels.emplace(p.def_id(d), d);
    }
  }
  for (const auto& [id, list] : a.config.instances) {
    const std::vector<std::string>* sources = nullptr;
    if (auto s = a.config.instance_sources.find(id); s != a.config.instance_sources.end()) {
      sources = &s->second;
    }
    auto source_of = [&](size_t n) {
      return sources != nullptr && n < sources->size() ? (*sources)[n] : a.config.source;
    };
    SemaDiagnostic sd;
    sd.d.code = "QD112";
    sd.kernel = id;
    std::string prefix;
    auto found = kernels.find(id);
    if (found == kernels.end()) {
      if (list.empty() ||
          (id.starts_with("quadrants.") && p.find_module(id.substr(0, id.find(':'))) == k_none)) {
        continue;  // Quadrants' own kernels (ndarray copies) a recorded run called: not ours
      }
      locate_instance(source_of(0), a.config.source, sd, prefix);
      const std::string module = id.substr(0, id.find(':'));
      const int32_t m = p.find_module(module);
      if (m != k_none) {
        // The module is checked and has no such kernel: a stale record or a typo.
        sd.d.severity = Severity::Error;
        sd.d.message = prefix + "instances are given for '" + id + "', but module '" + module +
                       "' (" + p.modules[m].path + ") has no kernel '" +
                       id.substr(id.find(':') + 1) + "'";
      } else {
        // A warning: checking part of a tree with the project's config is normal.
        sd.d.severity = Severity::Warning;
        sd.d.message = prefix + "instances are given for '" + id +
                       "', which is not a kernel of the files checked";
      }
      a.diagnostics.push_back(sd);
      continue;
    }
    Signature sig = signature_of(p, found->second);
    for (size_t n = 0; n < list.size(); ++n) {
      locate_instance(source_of(n), a.config.source, sd, prefix);
      for (const auto& [name, v] : list[n]) {
        auto prm = std::find_if(sig.params.begin(), sig.params.end(),
                                [&](const Param& q) { return q.name == name; });
        std::string problem = prm == sig.params.end() ? "instance of '" + id + "' sets '" + name +
                                                            "', which is not a parameter"
                                                      : instance_value_problem(p, *prm, v);
        if (!problem.empty()) {
          sd.d.severity = Severity::Error;
          sd.d.message =
              prefix + (prm == sig.params.end() ? problem : "instance of '" + id + "': " + problem);
          a.diagnostics.push_back(sd);
        }
      }
    }
  }
}

}  // namespace

// QD_SEMA_TIMES=1 prints the milliseconds of each phase on stderr.
class PhaseTimer {
public:
  PhaseTimer() : m_on(std::getenv("QD_SEMA_TIMES") != nullptr), m_last(now()) {}
  void mark(const char* phase) {
    if (m_on) {
      auto t = now();
      std::fprintf(stderr, "sema: %-16s %8.2f ms\n", phase,
                   std::chrono::duration<double, std::milli>(t - m_last).count());
      m_last = t;
    }
  }

private:
  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
  bool m_on;
  std::chrono::steady_clock::time_point m_last;
};

std::vector<std::string> record_files(const std::vector<std::string>& paths,
                                      const AnalysisOptions& options) {
  std::vector<ConfigError> ignored;  // the analysis reports them
  std::vector<std::string> out =
      load_build_config(config_dir(paths, options), ignored).instances_from;
  out.insert(out.end(), options.instance_files.begin(), options.instance_files.end());
  return out;
}

// The top-level package of a dotted module name ("genesis.engine.x" -> "genesis").
static std::string_view top_package(std::string_view module) {
  return module.substr(0, module.find('.'));
}

// A build from a record's sources names only the files of the recorded kernels; what they import
// is loaded from the roots, round by round, until nothing new is imported. Followed: modules of
// the same top-level packages as the given files, and anything under the root of a given
// top-level module (a script and its siblings). Never Quadrants itself (`quadrants.*`: qdbuild
// knows the language; its recorded kernel files are given as files), nor what no root holds.
struct FollowScope {
  std::vector<std::string> roots;
  std::set<std::string, std::less<>> tops;  // followed top-level packages, under any root
  std::vector<std::string> script_roots;    // followed whole: a given top-level module's root
};

static FollowScope follow_scope(const SourceTree& tree, const std::string& root) {
  FollowScope s;
  s.roots = split_roots(root);
  for (const SourceEntry& e : tree.files) {
    s.tops.insert(std::string(top_package(e.module)));
    if (e.module.find('.') == std::string::npos) {
      std::string rel = e.relative;
      std::string r = e.path.size() > rel.size() ? e.path.substr(0, e.path.size() - rel.size())
                                                 : std::string(".");
      s.script_roots.push_back(r.empty() ? "/" : r);
    }
  }
  s.tops.erase("quadrants");
  return s;
}

std::vector<std::string> follow_watch_paths(const std::vector<std::string>& paths,
                                            const std::string& root) {
  SourceTree tree = find_sources(paths, root);
  FollowScope s = follow_scope(tree, root);
  std::set<std::string> out(paths.begin(), paths.end());
  for (const std::string& r : s.script_roots) {
    out.insert(r);
  }
  for (const std::string& top : s.tops) {
    for (const std::string& r : s.roots) {
      std::error_code ec;
      for (const std::string& candidate : {r + "/" + top, r + "/" + top + ".py"}) {
        if (fs::exists(candidate, ec)) {
          out.insert(candidate);
        }
      }
    }
  }
  return {out.begin(), out.end()};
}

static std::unique_ptr<Program>
build_following_imports(SourceTree& tree, const AnalysisOptions& options, ParseCache* cache) {
  FollowScope scope = follow_scope(tree, options.root);
  const std::vector<std::string>& roots = scope.roots;
  const std::set<std::string, std::less<>>& tops = scope.tops;
  const std::vector<std::string>& script_roots = scope.script_roots;
  std::set<std::string, std::less<>> have;
  for (const SourceEntry& e : tree.files) {
    have.insert(e.module);
  }
  while (true) {
    std::unique_ptr<Program> program = build_program(tree, options.jobs, true, cache);
    std::set<std::string, std::less<>> wanted;
    auto want = [&](const std::string& name) {
      for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
        wanted.insert(name.substr(0, dot));
      }
      wanted.insert(name);
    };
    for (const ModuleInfo& m : program->modules) {
      for (const auto& [name, bindings] : m.bindings) {
        for (const Binding& b : bindings) {
          if (b.kind == Binding::Kind::module_import) {
            want(b.target);
          } else if (b.kind == Binding::Kind::from_import) {
            want(b.target);
            wanted.insert(b.target + "." + b.attr);  // `from pkg import submodule`
          }
        }
      }
      for (const std::string& star : m.star_imports) {
        want(star);
      }
    }
    size_t before = tree.files.size();
    for (const std::string& name : wanted) {
      if (name.empty() || have.contains(name) || top_package(name) == "quadrants") {
        continue;
      }
      have.insert(name);
      std::optional<SourceEntry> found;
      if (tops.contains(top_package(name))) {
        found = find_module_file(name, roots);
      }
      if (!found) {
        found = find_module_file(name, script_roots);
      }
      if (found) {
        tree.files.push_back(std::move(*found));
      }
    }
    if (tree.files.size() == before) {
      return program;
    }
  }
}

Analysis analyze(const std::vector<std::string>& paths, const AnalysisOptions& options) {
  Analysis a;
  PhaseTimer timer;
  SourceTree tree = find_sources(paths, options.root, options.exclude);
  a.tool_errors = tree.errors;
  if (options.follow_imports && !options.parse_only) {
    ParseCache local;
    a.program = build_following_imports(
        tree, options, options.parse_cache != nullptr ? options.parse_cache : &local);
  } else {
    a.program = build_program(tree, options.jobs, !options.parse_only, options.parse_cache);
  }
  timer.mark("parse+collect");
  Program& p = *a.program;
  if (!options.root.empty()) {
    std::error_code ec;
    p.root_name = fs::absolute(options.root, ec).lexically_normal().filename().string();
  } else if (!paths.empty()) {
    std::error_code ec;
    if (fs::is_directory(paths[0], ec)) {
      p.root_name = fs::absolute(paths[0], ec).lexically_normal().filename().string();
      if (p.root_name.empty()) {
        p.root_name =
            fs::absolute(paths[0], ec).lexically_normal().parent_path().filename().string();
      }
    }
  }
  for (int32_t m = 0; m < static_cast<int32_t>(p.modules.size()); ++m) {
    for (const syntax::Diagnostic& d : p.modules[m].parsed->diagnostics) {
      if (d.severity == Severity::Error) {
        a.diagnostics.push_back({d, m, {}, {}});
      }
    }
  }
  if (options.parse_only) {
    return a;
  }
  std::vector<ConfigError> config_errors;
  a.config = load_build_config(config_dir(paths, options), config_errors);
  std::vector<std::string> records = a.config.instances_from;
  records.insert(records.end(), options.instance_files.begin(), options.instance_files.end());
  RecordSeen seen;
  for (const std::string& r : records) {
    bool read = options.record_cache != nullptr
                    ? merge_record(*options.record_cache->get(r), a.config, config_errors, &seen)
                    : read_record(r, a.config, config_errors);
    if (!read) {
      a.tool_errors.push_back("cannot use the instance file '" + r + "'" +
                              (config_errors.empty() ? "" : ": " + config_errors.back().message));
      if (!config_errors.empty()) {
        config_errors.pop_back();
      }
    }
  }
  for (const ConfigError& e : config_errors) {
    SemaDiagnostic sd;
    sd.path = e.path;
    sd.d.code = "QD112";
    sd.d.line = e.line;
    sd.d.col = e.col;
    sd.d.message = e.message;
    a.diagnostics.push_back(std::move(sd));
  }
  // Run-time configuration: which globals the app rebinds, and the values given for them.
  find_runtime_assignments(p);
  std::vector<std::string> define_problems;
  add_defines(p, a.config.defines, define_problems);
  for (const std::string& problem : define_problems) {
    a.tool_errors.push_back(problem);
  }
  evaluate_program(p);
  timer.mark("evaluate");

  std::string arch;
  std::string target =
      options.target.empty() ? (a.config.arch == "cuda" ? "cuda" : "cpu") : options.target;
  if (!parse_target(target, arch, a.device_caps)) {
    a.tool_errors.push_back("unknown target '" + target + "' (expected cpu, cuda or cuda:sm_XX)");
    return a;
  }
  a.config.arch = arch;
  check_instances(a);

  // Bodies of kernels and funcs first; then, round by round, of the plain Python functions they
  // reach (compile-time helpers). Plain functions nothing reaches are never walked.
  std::vector<BodyRefs> refs(p.defs.size());
  std::vector<std::string> hashes(p.defs.size());
  std::vector<uint8_t> done(p.defs.size(), 0);
  std::vector<DefId> round;
  for (DefId d = 0; d < static_cast<DefId>(p.defs.size()); ++d) {
    if (p.defs[d].role != DefRole::plain) {
      round.push_back(d);
    }
  }
  while (!round.empty()) {
    for (DefId d : round) {
      done[d] = 1;
    }
    support::parallel_for(
        round.size(),
        [&](size_t i) {
          DefId d = round[i];
          refs[d] = analyze_body(p, d);
          if (options.keys && p.defs[d].role != DefRole::plain) {
            hashes[d] = source_hash(p.module_of(d), p.defs[d]);
          }
        },
        options.jobs);
    std::vector<DefId> next;
    for (DefId d : round) {
      for (const CalleeRef& c : refs[d].callees) {
        if (c.def != k_none && done[c.def] == 0) {
          done[c.def] = 1;
          next.push_back(c.def);
        }
      }
    }
    round = std::move(next);
  }
  timer.mark("bodies+tokens");

  // The field members of each compound class, once per class (not per kernel).
  std::vector<std::vector<std::string>> class_fields(p.classes.size());
  support::parallel_for(
      p.classes.size(),
      [&](size_t i) {
        ClassId c = static_cast<ClassId>(i);
        if (p.classes[c].dataclass || is_data_oriented(p, c)) {
          Param prm;
          prm.type.kind = p.classes[c].dataclass ? PK::dataclass : PK::data_oriented;
          prm.type.cls = c;
          for (std::string& f : compound_layout(p, prm, nullptr).field_members) {
            class_fields[c].push_back(std::move(f));  // the parameter name is empty: ".member"
          }
        }
      },
      options.jobs);
  timer.mark("compound classes");

  std::vector<DefId> kernels;
  for (const ModuleInfo& m : p.modules) {
    for (DefId d : m.defs) {
      if (p.defs[d].role == DefRole::kernel) {
        kernels.push_back(d);
      }
    }
  }
  a.kernels.resize(kernels.size());
  support::parallel_for(
      kernels.size(),
      [&](size_t i) {
        KernelAnalyzer(p, refs, hashes, class_fields, a.config, a.device_caps, options,
                       a.kernels[i])
            .run(kernels[i]);
      },
      options.jobs);
  timer.mark("kernels");
  for (const KernelReport& k : a.kernels) {
    a.diagnostics.insert(a.diagnostics.end(), k.diagnostics.begin(), k.diagnostics.end());
  }
  std::sort(a.diagnostics.begin(), a.diagnostics.end(),
            [](const SemaDiagnostic& x, const SemaDiagnostic& y) {
              auto mx = x.module == k_none ? INT32_MAX : x.module;
              auto my = y.module == k_none ? INT32_MAX : y.module;
              if (mx != my) {
                return mx < my;
              }
              if (x.d.line != y.d.line) {
                return x.d.line < y.d.line;
              }
              if (x.d.col != y.d.col) {
                return x.d.col < y.d.col;
              }
              if (x.kernel != y.kernel) {
                return x.kernel < y.kernel;
              }
              if (x.path != y.path) {
                return x.path < y.path;
              }
              return x.d.message < y.d.message;
            });
  timer.mark("sort");
  return a;
}

}  // namespace qd::sema
