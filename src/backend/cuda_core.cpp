// The CUDA half of the backend interface that needs no LLVM (linked into qdbuild itself): target
// names and checks, the toolkit and libdevice paths, the libdevice digest (part of every CUDA task
// key) and the bundle format of task_abi.h.
#include "backend/backend.hpp"
#include "backend/toolchain_id.hpp"

#include <qdrt/task_abi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string_view>

namespace qd::backend {

namespace {

// The archs both LLVM 19's NVPTX back end (up to sm_90a) and CUDA 13's ptxas (from sm_75) know.
constexpr unsigned k_cuda_archs[] = {75, 80, 86, 87, 89, 90};

constexpr size_t k_item_align = 16;  // item offsets inside the bundle

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
}
uint64_t get_le(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  }
  return v;
}

}  // namespace

std::string cuda_arch_name(unsigned arch) { return "sm_" + std::to_string(arch); }

std::string cuda_ptx_version(const CudaTarget& target) {
  // "+ptx85" → "8.5", "+ptx78" → "7.8"
  std::string_view p = target.ptx;
  if (p.starts_with("+")) {
    p.remove_prefix(1);
  }
  if (!p.starts_with("ptx") || p.size() < 5) {
    return "";
  }
  p.remove_prefix(3);
  return std::string(p.substr(0, p.size() - 1)) + "." + std::string(p.substr(p.size() - 1));
}

bool parse_cuda_target(std::string_view text, CudaTarget& target) {
  if (text == "cuda") {
    target.arch = 90;
    return true;
  }
  if (text.starts_with("cuda:")) {
    text.remove_prefix(5);
  }
  if (!text.starts_with("sm_") || text.size() < 5 || text.size() > 6) {
    return false;
  }
  unsigned arch = 0;
  for (char c : text.substr(3)) {
    if (c < '0' || c > '9') {
      return false;
    }
    arch = arch * 10 + static_cast<unsigned>(c - '0');
  }
  target.arch = arch;
  return true;
}

std::string check_cuda_target(const CudaTarget& target) {
  bool known = false;
  for (unsigned a : k_cuda_archs) {
    known = known || a == target.arch;
  }
  if (!known) {
    return "CUDA arch " + cuda_arch_name(target.arch) +
           " is not supported (sm_75, sm_80, sm_86, sm_87, sm_89, sm_90: LLVM 19 emits nothing "
           "newer, CUDA 13 accepts nothing older)";
  }
  if (target.ptx != "+ptx78" && target.ptx != "+ptx80" && target.ptx != "+ptx81" &&
      target.ptx != "+ptx82" && target.ptx != "+ptx83" && target.ptx != "+ptx84" &&
      target.ptx != "+ptx85") {
    return "PTX ISA '" + target.ptx + "' is not supported (+ptx78 .. +ptx85)";
  }
  if (target.opt_level > 3) {
    return "optimisation level " + std::to_string(target.opt_level) + " is not 0..3";
  }
  return "";
}

std::string cuda_toolkit_path() {
  const char* env = std::getenv("QDBUILD_CUDA_PATH");
  return env != nullptr && *env != 0 ? std::string(env) : std::string("/usr/local/cuda");
}

std::string libdevice_path() { return cuda_toolkit_path() + "/nvvm/libdevice/libdevice.10.bc"; }

const std::string& libdevice_digest() {
  static const std::string digest = [] {
    std::ifstream in(libdevice_path(), std::ios::binary);
    if (!in) {
      return std::string("none");
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return sha256_hex(bytes);
  }();
  return digest;
}

namespace {

// The name a file-scope PTX variable line declares or defines (`.visible .global .align 8 .u64
// qdrt_cuda_rand_states;`, `... .b8 name[12] = {...};`), "" for any other line.
std::string_view ptx_global_name(std::string_view line, bool& external) {
  external = line.starts_with(".extern .global ");
  if (!external && !line.starts_with(".visible .global ") && !line.starts_with(".global ")) {
    return {};
  }
  std::string_view head = line.substr(0, line.find_first_of("=;"));
  head = head.substr(0, head.find('['));
  head = head.substr(0, head.find_last_not_of(" \t") + 1);
  size_t space = head.find_last_of(" \t");
  return space == std::string_view::npos ? std::string_view{} : head.substr(space + 1);
}

}  // namespace

std::string merge_ptx_units(const std::vector<std::string>& units, std::string& error) {
  // A variable one unit defines and another declares `.extern` (qdrt_cuda_rand_states: the module
  // ABI unit defines it, tasks that draw declare it) becomes one definition placed before every
  // unit, and the declarations go: in one PTX text a symbol is declared before its first use, and
  // ptxas reads an `.extern` it cannot resolve as a second definition.
  std::set<std::string, std::less<>> defined;
  std::set<std::string, std::less<>> declared;
  for (const std::string& unit : units) {
    for (size_t pos = 0; pos < unit.size();) {
      size_t end = std::min(unit.find('\n', pos), unit.size());
      std::string_view line = std::string_view(unit).substr(pos, end - pos);
      bool external = false;
      std::string_view name = ptx_global_name(line, external);
      if (!name.empty() && (external || line.ends_with(";"))) {
        (external ? declared : defined).emplace(name);
      }
      pos = end + 1;
    }
  }
  auto shared = [&](std::string_view name) {
    return !name.empty() && defined.count(name) != 0 && declared.count(name) != 0;
  };
  std::string header;
  std::string hoisted;
  std::string bodies;
  for (size_t u = 0; u < units.size(); ++u) {
    std::string_view text = units[u];
    std::string unit_header;
    std::string body;
    bool in_header = true;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      end = end == std::string_view::npos ? text.size() : end + 1;
      std::string_view line = text.substr(pos, end - pos);
      pos = end;
      std::string_view trimmed = line.substr(0, line.find_last_not_of("\r\n") + 1);
      if (in_header && (trimmed.empty() || trimmed.starts_with("//"))) {
        continue;  // the back end's banner
      }
      if (in_header && (trimmed.starts_with(".version") || trimmed.starts_with(".target") ||
                        trimmed.starts_with(".address_size"))) {
        unit_header += std::string(trimmed) + "\n";
        continue;
      }
      in_header = false;
      bool external = false;
      if (std::string_view name = ptx_global_name(trimmed, external); shared(name)) {
        if (!external) {
          hoisted += std::string(trimmed) + "\n";
        }
        continue;
      }
      body += line;
    }
    if (unit_header.empty()) {
      error = "PTX unit " + std::to_string(u) + " has no .version/.target header";
      return "";
    }
    if (u == 0) {
      header = unit_header;
    } else if (unit_header != header) {
      error = "PTX unit " + std::to_string(u) + " was compiled for another target:\n" +
              unit_header + "unit 0:\n" + header;
      return "";
    }
    if (!body.empty() && body.back() != '\n') {
      body += '\n';
    }
    bodies += "\n// --- unit " + std::to_string(u) + "\n" + body;
  }
  if (!hoisted.empty()) {
    header += "\n// --- module variables\n" + hoisted;
  }
  return "//\n// Generated by qdbuild (LLVM NVPTX back end): " + std::to_string(units.size()) +
         " unit" + (units.size() == 1 ? "" : "s") + "\n//\n\n" + header + bodies;
}

std::string make_cuda_bundle(const std::vector<CudaBundleItem>& items) {
  std::string out(QDRT_CUDA_BUNDLE_MAGIC, 8);
  put_u32(out, QDRT_CUDA_BUNDLE_VERSION);
  put_u32(out, static_cast<uint32_t>(items.size()));
  uint64_t offset = sizeof(qdrt_cuda_bundle_header) + items.size() * sizeof(qdrt_cuda_bundle_item);
  std::vector<uint64_t> offsets;
  for (const CudaBundleItem& item : items) {
    offset = (offset + k_item_align - 1) / k_item_align * k_item_align;
    offsets.push_back(offset);
    put_u32(out, item.kind);
    put_u32(out, item.arch);
    put_u64(out, offset);
    put_u64(out, item.bytes.size());
    offset += item.bytes.size();
  }
  for (size_t i = 0; i < items.size(); ++i) {
    out.resize(offsets[i], '\0');  // zero padding
    out += items[i].bytes;
  }
  return out;
}

bool parse_cuda_bundle(std::string_view bundle, std::vector<CudaBundleItem>& items,
                       std::string& error) {
  items.clear();
  if (bundle.size() < sizeof(qdrt_cuda_bundle_header) ||
      std::memcmp(bundle.data(), QDRT_CUDA_BUNDLE_MAGIC, 8) != 0) {
    error = "not a CUDA bundle (bad magic)";
    return false;
  }
  uint64_t version = get_le(bundle, 8, 4);
  uint64_t count = get_le(bundle, 12, 4);
  if (version != QDRT_CUDA_BUNDLE_VERSION) {
    error = "CUDA bundle version " + std::to_string(version) + " (expected " +
            std::to_string(QDRT_CUDA_BUNDLE_VERSION) + ")";
    return false;
  }
  uint64_t table_end = sizeof(qdrt_cuda_bundle_header) + count * sizeof(qdrt_cuda_bundle_item);
  if (count > bundle.size() || table_end > bundle.size()) {
    error = "CUDA bundle item table is truncated";
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    size_t at = sizeof(qdrt_cuda_bundle_header) + i * sizeof(qdrt_cuda_bundle_item);
    CudaBundleItem item;
    item.kind = static_cast<uint32_t>(get_le(bundle, at, 4));
    item.arch = static_cast<uint32_t>(get_le(bundle, at + 4, 4));
    uint64_t offset = get_le(bundle, at + 8, 8);
    uint64_t size = get_le(bundle, at + 16, 8);
    if (offset < table_end || offset > bundle.size() || size > bundle.size() - offset) {
      error = "CUDA bundle item " + std::to_string(i) + " lies outside the bundle";
      return false;
    }
    if (item.kind != QDRT_CUDA_ITEM_CUBIN && item.kind != QDRT_CUDA_ITEM_PTX) {
      error = "CUDA bundle item " + std::to_string(i) + " has unknown kind " +
              std::to_string(item.kind);
      return false;
    }
    item.bytes.assign(bundle.substr(offset, size));
    if (item.kind == QDRT_CUDA_ITEM_PTX && (item.bytes.empty() || item.bytes.back() != '\0')) {
      error = "CUDA bundle PTX item " + std::to_string(i) + " is not NUL-terminated";
      return false;
    }
    items.push_back(std::move(item));
  }
  return true;
}

}  // namespace qd::backend
