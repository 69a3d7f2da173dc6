#include "remote_exec/compile_request.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>

#include "backend/plugin.hpp"
#include "backend/prelude_files.hpp"
#include "backend/toolchain_id.hpp"

namespace qd::remote_exec {

namespace {

constexpr std::string_view k_flags_magic = "qd-remote-compile-1";

bool parse_uint(std::string_view text, unsigned& out) {
  if (text.empty()) {
    return false;
  }
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string toolchain_property(bool cuda) {
  return cuda ? "cuda-" + backend::sha256_hex(backend::toolchain_id(backend::CudaTarget{}))
              : "cpu-" + backend::sha256_hex(backend::toolchain_id(backend::CpuTarget{}));
}

std::string target_flags_text(const CompileRequest& r) {
  std::string out = std::string(k_flags_magic) + "\n";
  if (r.cuda) {
    out += "target=cuda\n";
    out += "arch=" + std::to_string(r.gpu.arch) + "\n";
    out += "ptx=" + r.gpu.ptx + "\n";
    out += std::string("fast_math=") + (r.gpu.fast_math ? "1" : "0") + "\n";
    out += "opt=" + std::to_string(r.gpu.opt_level) + "\n";
  } else {
    out += "target=cpu\n";
    out += "cpu=" + r.cpu.cpu + "\n";
    out += "features=" + r.cpu.features + "\n";
    out += "opt=" + std::to_string(r.cpu.opt_level) + "\n";
  }
  return out;
}

bool parse_target_flags(const std::string& text, CompileRequest& out, std::string& error) {
  std::vector<std::pair<std::string, std::string>> lines;
  size_t start = 0;
  bool first = true;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      error = "the target flags do not end in a newline";
      return false;
    }
    std::string line = text.substr(start, nl - start);
    start = nl + 1;
    if (first) {
      if (line != k_flags_magic) {
        error = "the target flags are not qdbuild's (" + std::string(k_flags_magic) + ")";
        return false;
      }
      first = false;
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) {
      error = "target flag line without '=': '" + line + "'";
      return false;
    }
    lines.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  if (first || lines.empty() || lines[0].first != "target") {
    error = "the target flags name no target";
    return false;
  }
  out = CompileRequest{};
  out.cuda = lines[0].second == "cuda";
  if (!out.cuda && lines[0].second != "cpu") {
    error = "unknown target '" + lines[0].second + "' in the target flags";
    return false;
  }
  std::vector<std::string> keys = out.cuda
                                      ? std::vector<std::string>{"arch", "ptx", "fast_math", "opt"}
                                      : std::vector<std::string>{"cpu", "features", "opt"};
  if (lines.size() != keys.size() + 1) {
    error = "the target flags have " + std::to_string(lines.size() - 1) + " settings, not " +
            std::to_string(keys.size());
    return false;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto& [k, v] = lines[i + 1];
    if (k != keys[i]) {
      error = "target flag '" + k + "' where '" + keys[i] + "' belongs";
      return false;
    }
    unsigned n = 0;
    bool number = k == "arch" || k == "opt" || k == "fast_math";
    if (number && !parse_uint(v, n)) {
      error = "target flag '" + k + "' is not a number: '" + v + "'";
      return false;
    }
    if ((k == "opt" && n > 3) || (k == "fast_math" && n > 1)) {
      error = "target flag '" + k + "' out of range: " + v;
      return false;
    }
    if (k == "cpu") {
      out.cpu.cpu = v;
    } else if (k == "features") {
      out.cpu.features = v;
    } else if (k == "opt") {
      (out.cuda ? out.gpu.opt_level : out.cpu.opt_level) = n;
    } else if (k == "arch") {
      out.gpu.arch = n;
    } else if (k == "ptx") {
      out.gpu.ptx = v;
    } else if (k == "fast_math") {
      out.gpu.fast_math = n == 1;
    }
  }
  if (out.cuda) {
    if (std::string why = backend::check_cuda_target(out.gpu); !why.empty()) {
      error = "target flags: " + why;
      return false;
    }
  }
  if (target_flags_text(out) != text) {
    error = "the target flags are not in canonical form";
    return false;
  }
  return true;
}

const std::vector<std::string>& command_arguments() {
  static const std::vector<std::string> args = {
      "qdbuild",  "remote-compile", "--target-flags", k_target_file,
      "--output", k_output_file,    k_task_file,
  };
  return args;
}

bool check_prelude_directory(const std::string& dir, std::string& error) {
  namespace fs = std::filesystem;
  std::set<std::string> expected;
  for (const backend::EmbeddedFile& f : backend::embedded_prelude_files()) {
    expected.insert(std::string(f.name));
    std::ifstream in(fs::path(dir) / f.name, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      error = "the prelude file " + std::string(f.name) + " is missing from " + dir;
      return false;
    }
    if (bytes != f.bytes) {
      error = "the prelude file " + std::string(f.name) + " in " + dir +
              " is not this qdbuild's (another qdbuild made the action)";
      return false;
    }
  }
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file() &&
        expected.count(fs::relative(it->path(), dir).generic_string()) == 0) {
      error = "unexpected file in the prelude directory: " + it->path().string();
      return false;
    }
  }
  if (ec) {
    error = "cannot list " + dir + ": " + ec.message();
    return false;
  }
  return true;
}

CompileOutput compile_request(const CompileRequest& r) {
  CompileOutput out;
  backend::TaskUnit unit{"remote", r.source};
  std::vector<backend::Diagnostic> diagnostics;
  if (r.cuda) {
    backend::TaskPtx p = backend::plugin::compile_cuda_task(unit, r.gpu);
    out.ok = p.ok;
    out.bytes = std::move(p.ptx);
    diagnostics = std::move(p.diagnostics);
  } else {
    backend::TaskObject o = backend::plugin::compile_cpu_task(unit, r.cpu);
    out.ok = o.ok;
    out.bytes = std::move(o.object);
    diagnostics = std::move(o.diagnostics);
  }
  for (const backend::Diagnostic& d : diagnostics) {
    out.diagnostics += backend::format_diagnostic(d) + "\n";
  }
  if (!out.ok && out.diagnostics.empty()) {
    out.diagnostics = "the backend failed without a diagnostic\n";
  }
  return out;
}

}  // namespace qd::remote_exec
