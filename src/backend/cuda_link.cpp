// link_cuda_module: PTX units → one sm_XX cubin → the CUDA bundle (task_abi.h).
//
// The units are merged into one PTX text first (merge_ptx_units): the cubin is made from exactly
// the PTX the bundle ships, and the runtime's JIT fallback loads one PTX image.
// nvJitLink (libnvJitLink.so.13) is dlopened, never linked, and its entry points are resolved by
// their versioned names (`__nvJitLinkCreate_13_0`: the header's inline wrappers call those), so
// building qdbuild needs no CUDA at all. Without it, ptxas is spawned on the merged PTX
//.
#include "backend/backend.hpp"
#include "backend/diagnostic_capture.hpp"

#include <qdrt/task_abi.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

extern char** environ;

namespace qd::backend {

namespace fs = std::filesystem;

namespace {

// nvJitLink's C API, as far as used (nvJitLink.h, CUDA 13.0).
using Handle = void*;
using CreateFn = int (*)(Handle*, uint32_t, const char**);
using DestroyFn = int (*)(Handle*);
using AddDataFn = int (*)(Handle, int, const void*, size_t, const char*);
using CompleteFn = int (*)(Handle);
using SizeFn = int (*)(Handle, size_t*);
using GetFn = int (*)(Handle, char*);
using VersionFn = int (*)(unsigned*, unsigned*);
constexpr int k_input_ptx = 2;  // NVJITLINK_INPUT_PTX

struct NvJitLink {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  AddDataFn add_data = nullptr;
  CompleteFn complete = nullptr;
  SizeFn cubin_size = nullptr;
  GetFn cubin = nullptr;
  SizeFn error_log_size = nullptr;
  GetFn error_log = nullptr;
  std::string version;  // "13.0"
};

const NvJitLink* load_nvjitlink(std::string& error) {
  static std::once_flag once;
  static NvJitLink lib;
  static bool ok = false;
  static std::string load_error;
  std::call_once(once, [] {
    std::string tried;
    void* h = nullptr;
    for (const std::string& path :
         {cuda_toolkit_path() + "/lib64/libnvJitLink.so.13", std::string("libnvJitLink.so.13")}) {
      h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h != nullptr) {
        break;
      }
      const char* e = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(e != nullptr ? e : path);
    }
    if (h == nullptr) {
      load_error = "cannot load nvJitLink: " + tried;
      return;
    }
    unsigned major = 13;
    unsigned minor = 0;
    if (auto v = reinterpret_cast<VersionFn>(dlsym(h, "nvJitLinkVersion")); v != nullptr) {
      v(&major, &minor);
    }
    lib.version = std::to_string(major) + "." + std::to_string(minor);
    auto resolve = [&](const char* name, auto& fn) {
      using Fn = std::remove_reference_t<decltype(fn)>;
      for (const std::string& suffix :
           {"_" + std::to_string(major) + "_" + std::to_string(minor), std::string("_13_0")}) {
        std::string full = std::string("__nvJitLink") + name + suffix;
        if (void* sym = dlsym(h, full.c_str()); sym != nullptr) {
          fn = reinterpret_cast<Fn>(sym);
          return true;
        }
      }
      load_error = "nvJitLink " + lib.version + " has no __nvJitLink" + name;
      return false;
    };
    ok = resolve("Create", lib.create) && resolve("Destroy", lib.destroy) &&
         resolve("AddData", lib.add_data) && resolve("Complete", lib.complete) &&
         resolve("GetLinkedCubinSize", lib.cubin_size) && resolve("GetLinkedCubin", lib.cubin) &&
         resolve("GetErrorLogSize", lib.error_log_size) && resolve("GetErrorLog", lib.error_log);
  });
  error = load_error;
  return ok ? &lib : nullptr;
}

std::optional<std::string> link_nvjitlink(const NvJitLink& lib,
                                          const std::vector<std::string>& ptx_units, unsigned arch,
                                          std::vector<Diagnostic>& diags) {
  std::string arch_opt = "-arch=" + cuda_arch_name(arch);
  const char* options[] = {arch_opt.c_str(), "-O3"};
  Handle h = nullptr;
  if (int rc = lib.create(&h, 2, options); rc != 0) {
    diags.push_back(make_diagnostic(Diagnostic::Severity::error, "",
                                    "nvJitLinkCreate failed (" + std::to_string(rc) + ")"));
    return std::nullopt;
  }
  auto log = [&]() {
    size_t size = 0;
    std::string text;
    if (lib.error_log_size(h, &size) == 0 && size > 1) {
      text.resize(size);
      lib.error_log(h, text.data());
      text.resize(std::strlen(text.c_str()));
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
      text.pop_back();
    }
    return text;
  };
  std::optional<std::string> out;
  int rc = 0;
  std::string step;
  for (size_t i = 0; i < ptx_units.size() && rc == 0; ++i) {
    std::string name = "unit" + std::to_string(i) + ".ptx";
    rc = lib.add_data(h, k_input_ptx, ptx_units[i].data(), ptx_units[i].size(), name.c_str());
    step = "adding " + name;
  }
  if (rc == 0) {
    rc = lib.complete(h);
    step = "linking";
  }
  size_t size = 0;
  if (rc == 0) {
    rc = lib.cubin_size(h, &size);
    step = "reading the cubin";
  }
  if (rc == 0) {
    std::string cubin(size, '\0');
    rc = lib.cubin(h, cubin.data());
    if (rc == 0) {
      out = std::move(cubin);
    }
  }
  if (rc != 0) {
    std::string text = log();
    diags.push_back(make_diagnostic(Diagnostic::Severity::error, "",
                                    "nvJitLink failed " + step + " (" + std::to_string(rc) + ")" +
                                        (text.empty() ? std::string() : ": " + text)));
  }
  lib.destroy(&h);
  return out;
}

// Runs argv[0] with argv; stdout+stderr into `output`. The exit status, or -1 if it did not start.
int spawn(const std::vector<std::string>& args, const fs::path& log, std::string& output) {
  std::vector<char*> argv;
  for (const std::string& a : args) {
    argv.push_back(const_cast<char*>(a.c_str()));
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    output = "cannot run " + args[0] + ": " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(log);
  output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// ptxas spawned on the merged PTX: the fallback without nvJitLink.
std::optional<std::string> assemble_ptxas(const std::string& ptx, unsigned arch,
                                          std::vector<Diagnostic>& diags) {
  auto fail = [&](std::string message) -> std::optional<std::string> {
    diags.push_back(make_diagnostic(Diagnostic::Severity::error, "", std::move(message)));
    return std::nullopt;
  };
  std::error_code ec;
  fs::path base =
      fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
  std::string pattern = (base / ("qdbuild-ptxas-" + std::to_string(getpid()) + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return fail("cannot create a scratch directory: " + std::string(std::strerror(errno)));
  }
  fs::path dir = pattern;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{dir};
  fs::path in_path = dir / "module.ptx";
  fs::path out_path = dir / "module.cubin";
  std::ofstream(in_path, std::ios::binary) << ptx;
  std::string output;
  int rc = spawn({cuda_toolkit_path() + "/bin/ptxas", "-arch=" + cuda_arch_name(arch), "-O3",
                  in_path.string(), "-o", out_path.string()},
                 dir / "log", output);
  if (rc != 0) {
    return fail("ptxas failed (exit " + std::to_string(rc) + "): " + output);
  }
  std::ifstream in(out_path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

CudaModule link_cuda_module(const std::vector<std::string>& ptx_units, unsigned arch) {
  CudaModule result;
  CudaTarget target;
  target.arch = arch;
  if (std::string why = check_cuda_target(target); !why.empty()) {
    result.diagnostics.push_back(make_diagnostic(Diagnostic::Severity::error, "", why));
    return result;
  }
  if (ptx_units.empty()) {
    result.diagnostics.push_back(
        make_diagnostic(Diagnostic::Severity::error, "", "no PTX units to link"));
    return result;
  }
  const char* forced = std::getenv("QDBUILD_CUDA_LINKER");
  bool use_ptxas = forced != nullptr && std::string_view(forced) == "ptxas";
  std::string error;
  const NvJitLink* lib = use_ptxas ? nullptr : load_nvjitlink(error);
  std::string merged = merge_ptx_units(ptx_units, error);
  if (merged.empty()) {
    result.diagnostics.push_back(make_diagnostic(Diagnostic::Severity::error, "", error));
    return result;
  }
  std::optional<std::string> cubin;
  if (lib != nullptr) {
    result.linker = "nvJitLink " + lib->version;
    cubin = link_nvjitlink(*lib, {merged}, arch, result.diagnostics);
  } else {
    result.linker = "ptxas";
    cubin = assemble_ptxas(merged, arch, result.diagnostics);
  }
  if (!cubin) {
    return result;
  }
  std::vector<CudaBundleItem> items;
  items.push_back({QDRT_CUDA_ITEM_CUBIN, arch, std::move(*cubin)});
  items.push_back({QDRT_CUDA_ITEM_PTX, arch, merged + '\0'});
  result.bundle = make_cuda_bundle(items);
  result.ok = true;
  return result;
}

}  // namespace qd::backend
