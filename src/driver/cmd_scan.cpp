// qdbuild scan PATH...: the kernels and funcs of every Python file under the paths.
//
// --json prints {"files":[{"path","module","defs":[{"kind","qualname","line","end_line",
// "decorator":{...},"decorator_name"}],"errors":[...]}]}: `path` is relative to the PATH argument
// the file was found under (for a file argument, its name), `decorator` holds the decorator's
// keyword arguments as written (JSON values for literals, source text otherwise; see
// sema/kernel_scan.hpp), `decorator_name` is kernel/func/real_func/pyfunc, and `errors` are
// diagnostics in the JSON form of `check --format json`. A file with errors lists no defs. Without
// --json: a table on stdout, diagnostics with code frames on stderr. Exit status 1 when any file
// had an error.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/paths.hpp"
#include "driver/command_line.hpp"
#include "driver/commands.hpp"
#include "driver/source_flags.hpp"
#include "sema/kernel_scan.hpp"
#include "sema/source_tree.hpp"
#include "support/file_io.hpp"
#include "support/thread_pool.hpp"
#include "syntax/diagnostic_render.hpp"
#include "syntax/parser.hpp"

namespace qd::driver {

namespace {

using Json = nlohmann::ordered_json;

// What one file contributes; filled by a worker thread, printed in order afterwards.
struct FileReport {
  std::vector<sema::KernelDef> defs;
  std::vector<std::string> error_text;  // rendered with code frames
  std::vector<std::string> error_json;  // JSON objects as `check --format json` prints them
};

void scan_file(const sema::SourceEntry& entry, FileReport& report) {
  std::string bytes;
  std::string error;
  if (!support::read_file(entry.path, bytes, error)) {
    syntax::Diagnostic d;
    d.line = 1;
    d.code = syntax::k_code_io;
    d.message = error;
    report.error_text.push_back(syntax::render_diagnostic(d, entry.path, nullptr));
    report.error_json.push_back(syntax::diagnostic_json(d, entry.path, nullptr));
    return;
  }
  std::unique_ptr<syntax::ParseResult> parsed = syntax::parse_bytes(entry.path, std::move(bytes));
  if (!parsed->ok()) {
    for (const syntax::Diagnostic& d : parsed->diagnostics) {
      if (d.severity != syntax::Severity::Error) {
        continue;
      }
      report.error_text.push_back(syntax::render_diagnostic(d, entry.path, &parsed->source));
      report.error_json.push_back(syntax::diagnostic_json(d, entry.path, &parsed->source));
    }
    return;
  }
  report.defs = sema::scan_kernels(*parsed->module, parsed->source);
}

Json def_json(const sema::KernelDef& def) {
  Json decorator = Json::object();
  for (const sema::DecoratorArgument& a : def.arguments) {
    decorator[a.name] = a.is_literal ? Json::parse(a.value) : Json(a.value);
  }
  Json j;
  j["kind"] = sema::name_of(def.kind);
  j["qualname"] = def.qualname;
  j["line"] = def.line;
  j["end_line"] = def.end_line;
  j["decorator"] = std::move(decorator);
  j["decorator_name"] = def.decorator;
  return j;
}

std::string arguments_text(const sema::KernelDef& def) {
  std::string out;
  for (const sema::DecoratorArgument& a : def.arguments) {
    out += out.empty() ? "(" : ", ";
    out += a.name == "**" ? "**" + a.value : a.name + "=" + a.value;
  }
  return out.empty() ? out : out + ")";
}

void print_json(const sema::SourceTree& tree, const std::vector<FileReport>& reports) {
  Json files = Json::array();
  for (size_t i = 0; i < reports.size(); ++i) {
    Json f;
    f["path"] = tree.files[i].relative;
    f["module"] = tree.files[i].module;
    f["defs"] = Json::array();
    for (const sema::KernelDef& def : reports[i].defs) {
      f["defs"].push_back(def_json(def));
    }
    f["errors"] = Json::array();
    for (const std::string& e : reports[i].error_json) {
      f["errors"].push_back(Json::parse(e));
    }
    files.push_back(std::move(f));
  }
  Json root;
  root["files"] = std::move(files);
  std::string text = root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
}

void print_table(const sema::SourceTree& tree, const std::vector<FileReport>& reports) {
  struct Row {
    std::string kind, id, where, args;
  };
  std::vector<Row> rows;
  size_t kernels = 0;
  size_t funcs = 0;
  size_t failed = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    const sema::SourceEntry& e = tree.files[i];
    for (const sema::KernelDef& def : reports[i].defs) {
      (def.kind == sema::DefKind::kernel ? kernels : funcs) += 1;
      std::string kind = def.decorator == "kernel" || def.decorator == "func"
                             ? def.decorator
                             : "func:" + def.decorator;
      rows.push_back({kind, e.module + ":" + def.qualname, e.path + ":" + std::to_string(def.line),
                      arguments_text(def)});
    }
    if (!reports[i].error_text.empty()) {
      ++failed;
      for (const std::string& text : reports[i].error_text) {
        std::fwrite(text.data(), 1, text.size(), stderr);
      }
    }
  }
  size_t w_kind = 4, w_id = 2, w_where = 8;
  for (const Row& r : rows) {
    w_kind = std::max(w_kind, r.kind.size());
    w_id = std::max(w_id, r.id.size());
    w_where = std::max(w_where, r.where.size());
  }
  if (!rows.empty()) {
    std::printf("%-*s  %-*s  %-*s  %s\n", static_cast<int>(w_kind), "KIND", static_cast<int>(w_id),
                "ID", static_cast<int>(w_where), "LOCATION", "DECORATOR");
  }
  for (const Row& r : rows) {
    std::string line = r.kind + std::string(w_kind - r.kind.size() + 2, ' ') + r.id +
                       std::string(w_id - r.id.size() + 2, ' ') + r.where;
    if (!r.args.empty()) {
      line += std::string(w_where - r.where.size() + 2, ' ') + r.args;
    }
    std::printf("%s\n", line.c_str());
  }
  std::printf("%zu kernel%s, %zu func%s in %zu file%s", kernels, kernels == 1 ? "" : "s", funcs,
              funcs == 1 ? "" : "s", reports.size(), reports.size() == 1 ? "" : "s");
  if (failed > 0) {
    std::printf(" (%zu with errors)", failed);
  }
  std::printf("\n");
}

}  // namespace

ExitStatus cmd_scan(int argc, char** argv) {
  CommandLine app(
      "Find the kernels and funcs (@qd.kernel, @qd.func, @qd.real_func, @qd.pyfunc)\n"
      "in Python files and directories (recursively over *.py, hidden directories skipped).",
      "qdbuild scan");
  std::vector<std::string> paths;
  bool json = false;
  unsigned jobs = 0;
  app.add_option("PATH", paths, "files or directories to scan").required();
  app.add_flag("--json", json, "print machine-readable JSON");
  add_jobs_flag(app, jobs);
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }

  // The same files a build of these paths reads (the build directory and store left out).
  sema::SourceTree tree = sema::find_sources(paths, "", api::project_excludes());
  ExitStatus status = ExitStatus::ok;
  for (const std::string& e : tree.errors) {
    std::fprintf(stderr, "qdbuild: error: %s\n", e.c_str());
    status = ExitStatus::input_error;
  }

  std::vector<FileReport> reports(tree.files.size());
  support::parallel_for(
      tree.files.size(), [&](size_t i) { scan_file(tree.files[i], reports[i]); }, jobs);

  for (const FileReport& r : reports) {
    if (!r.error_json.empty()) {
      status = ExitStatus::input_error;
    }
  }
  if (json) {
    print_json(tree, reports);
  } else {
    print_table(tree, reports);
  }
  std::fflush(stdout);
  return status;
}

}  // namespace qd::driver
