#include "backend/toolchain_id.hpp"

#include "backend/backend.hpp"
#include "backend/prelude_files.hpp"

#include <llvm/Config/llvm-config.h>
#include <openssl/evp.h>
#include <stdexcept>

namespace qd::backend {

namespace {

// Bump when the backend changes how it turns a TU into bytes beyond what the rest of the id
// records (pass pipeline options, TargetOptions, link line).
constexpr std::string_view k_backend_scheme = "qd-backend-cpu-1";
// The same for the CUDA path (libdevice link, NVVM reflection, TargetOptions; nvptx_codegen.cpp).
constexpr std::string_view k_cuda_backend_scheme = "qd-backend-cuda-1";

// Splits "+a,-b" into {"+a", "-b"}, dropping empty parts.
std::vector<std::string> split_features(std::string_view features) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= features.size()) {
    size_t comma = features.find(',', start);
    if (comma == std::string_view::npos) {
      comma = features.size();
    }
    if (comma > start) {
      out.emplace_back(features.substr(start, comma - start));
    }
    start = comma + 1;
  }
  return out;
}

// The driver line as the toolchain id records it: every argument followed by a space.
std::string joined_flags(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& arg : args) {
    out += arg;
    out += ' ';
  }
  return out;
}

// A task's key: its toolchain id and source, length-prefixed so that no (id, source) pair can
// collide with another by moving bytes across the boundary.
std::string key_of(std::string_view source, const std::string& id) {
  std::string input = "qd-task-key-1\n" + std::to_string(id.size()) + "\n" + id + "\n" +
                      std::to_string(source.size()) + "\n";
  input.append(source);
  return sha256_hex(input);
}

}  // namespace

std::string llvm_version() { return LLVM_VERSION_STRING; }

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("qd_backend: SHA-256 failed (OpenSSL)");
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out += k_hex[digest[i] >> 4];
    out += k_hex[digest[i] & 15];
  }
  return out;
}

std::vector<std::string> driver_arguments(const CpuTarget& target, std::string_view include_dir) {
  std::vector<std::string> args = {
      "clang++",
      "--target=" + std::string(k_cpu_triple),
      "-march=" + target.cpu,
      "-std=c++20",
      "-O" + std::to_string(target.opt_level),
      "-fPIC",
      "-nostdinc",
      "-nostdinc++",
      "-fno-math-errno",
      "-fwrapv",  // integer arithmetic wraps (two's complement), as Quadrants' LLVM IR does
      "-ffp-contract=off",  // no fused multiply-adds: Quadrants' CPU JIT rounds every operation
      "-fno-exceptions",
      "-fno-rtti",
      "-fno-unwind-tables",
      "-fno-asynchronous-unwind-tables",
      "-fvisibility=hidden",
      "-I" + std::string(include_dir),
  };
  for (const std::string& feature : split_features(target.features)) {
    args.insert(args.end(), {"-Xclang", "-target-feature", "-Xclang", feature});
  }
  return args;
}

const std::string& prelude_digest() {
  static const std::string digest = [] {
    std::string all;
    for (const EmbeddedFile& file : embedded_prelude_files()) {
      all += std::to_string(file.name.size()) + ":" + std::string(file.name) + ":" +
             std::to_string(file.bytes.size()) + ":";
      all.append(file.bytes);
    }
    return sha256_hex(all);
  }();
  return digest;
}

std::string toolchain_id(const CpuTarget& target) {
  std::string id = std::string(k_backend_scheme);
  id += ";llvm=" + llvm_version();
  id += ";triple=" + std::string(k_cpu_triple);
  id += ";cpu=" + target.cpu;
  id += ";features=" + target.features;
  id += ";opt=O" + std::to_string(target.opt_level);
  id += ";flags=" + joined_flags(driver_arguments(target, k_prelude_dir));
  id += ";prelude=" + prelude_digest();
  return id;
}

std::string task_key(std::string_view source, const CpuTarget& target) {
  return key_of(source, toolchain_id(target));
}

std::vector<std::string> driver_arguments(const CudaTarget& target, std::string_view include_dir) {
  std::vector<std::string> args = {
      "clang++",
      "--target=" + std::string(k_cuda_triple),
      "-march=" + cuda_arch_name(target.arch),
      "-std=c++20",
      "-O" + std::to_string(target.opt_level),
      "-nostdinc",
      "-fno-math-errno",
      "-fwrapv",
      "-fno-exceptions",
      "-fno-rtti",
      "-I" + std::string(include_dir),
      // The PTX ISA, pinned (the driver would pick it from the CUDA it finds).
      // The in-process session also replaces any +ptx the driver adds.
      "-Xclang",
      "-target-feature",
      "-Xclang",
      target.ptx,
  };
  if (target.fast_math) {
    // As nvcc --use_fast_math, without flushing denormals: approximate division, sqrt and
    // functions, contraction across expressions (the NVPTX back end reads "unsafe-fp-math").
    args.insert(args.end(), {"-funsafe-math-optimizations", "-ffp-contract=fast"});
  } else {
    args.insert(args.end(), {"-ffp-contract=on"});
  }
  return args;
}

std::string toolchain_id(const CudaTarget& target) {
  std::string id = std::string(k_cuda_backend_scheme);
  id += ";llvm=" + llvm_version();
  id += ";triple=" + std::string(k_cuda_triple);
  id += ";arch=" + cuda_arch_name(target.arch);
  id += ";ptx=" + target.ptx;
  id += std::string(";fast_math=") + (target.fast_math ? "1" : "0");
  id += ";opt=O" + std::to_string(target.opt_level);
  id += ";flags=" + joined_flags(driver_arguments(target, k_prelude_dir));
  id += ";prelude=" + prelude_digest();
  id += ";libdevice=" + libdevice_digest();
  return id;
}

std::string task_key(std::string_view source, const CudaTarget& target) {
  return key_of(source, toolchain_id(target));
}

}  // namespace qd::backend
