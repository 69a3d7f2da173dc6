#include "cuda_bundle.hpp"

#include <algorithm>
#include <cstring>

#include "qdrt/task_abi.h"

namespace qdrt::cuda {

namespace {

constexpr uint32_t k_max_items = 1024;
constexpr uint32_t k_min_arch = 10;
constexpr uint32_t k_max_arch = 1000;

}  // namespace

Status parse_bundle(std::string_view b, const std::string& name, std::vector<BundleImage>& out) {
  out.clear();
  std::string what = "CUDA bundle " + name;
  auto corrupt = [&](const std::string& why) {
    return Status::error(QDRT_ERROR_CORRUPT, what + " is damaged: " + why);
  };
  if (b.size() < sizeof(qdrt_cuda_bundle_header)) {
    return corrupt("truncated header (" + std::to_string(b.size()) + " bytes, expected at least " +
                   std::to_string(sizeof(qdrt_cuda_bundle_header)) + ")");
  }
  qdrt_cuda_bundle_header h;
  std::memcpy(&h, b.data(), sizeof h);
  if (std::memcmp(h.magic, QDRT_CUDA_BUNDLE_MAGIC, 8) != 0) {
    return corrupt("bad magic (not a qdbuild CUDA bundle)");
  }
  if (h.version != QDRT_CUDA_BUNDLE_VERSION) {
    return Status::error(QDRT_ERROR_VERSION, what + " has bundle version " +
                                                 std::to_string(h.version) +
                                                 "; this libqdrt reads version " +
                                                 std::to_string(QDRT_CUDA_BUNDLE_VERSION));
  }
  if (h.count == 0 || h.count > k_max_items) {
    return corrupt("unusable item count " + std::to_string(h.count));
  }
  uint64_t table_end = sizeof h + uint64_t{h.count} * sizeof(qdrt_cuda_bundle_item);
  if (table_end > b.size()) {
    return corrupt("truncated item table (" + std::to_string(h.count) + " items need " +
                   std::to_string(table_end) + " bytes, the bundle has " +
                   std::to_string(b.size()) + ")");
  }
  for (uint32_t i = 0; i < h.count; ++i) {
    qdrt_cuda_bundle_item it;
    std::memcpy(&it, b.data() + sizeof h + i * sizeof it, sizeof it);
    std::string item = "item " + std::to_string(i);
    if (it.kind != QDRT_CUDA_ITEM_CUBIN && it.kind != QDRT_CUDA_ITEM_PTX) {
      return corrupt(item + " has unknown kind " + std::to_string(it.kind));
    }
    if (it.arch < k_min_arch || it.arch > k_max_arch) {
      return corrupt(item + " has unusable arch " + std::to_string(it.arch));
    }
    if (it.offset < table_end || it.offset > b.size() || it.size == 0 ||
        it.size > b.size() - it.offset) {
      return corrupt(item + " [" + std::to_string(it.offset) + ", +" + std::to_string(it.size) +
                     ") lies outside the bundle's " + std::to_string(b.size()) + " bytes");
    }
    std::string_view bytes = b.substr(it.offset, it.size);
    if (it.kind == QDRT_CUDA_ITEM_CUBIN && !bytes.starts_with("\x7f"
                                                              "ELF")) {
      return corrupt(item + " (cubin sm_" + std::to_string(it.arch) + ") is not an ELF image");
    }
    if (it.kind == QDRT_CUDA_ITEM_PTX && bytes.back() != '\0') {
      return corrupt(item + " (PTX sm_" + std::to_string(it.arch) + ") is not NUL-terminated");
    }
    out.push_back({it.kind, it.arch, bytes});
  }
  return {};
}

std::vector<const BundleImage*> select_images(const std::vector<BundleImage>& images,
                                              uint32_t arch) {
  std::vector<const BundleImage*> cubins;
  const BundleImage* ptx = nullptr;
  for (const BundleImage& im : images) {
    if (im.kind == QDRT_CUDA_ITEM_CUBIN) {
      if (im.arch / 10 == arch / 10 && im.arch <= arch) {
        cubins.push_back(&im);
      }
    } else if (im.arch <= arch && (ptx == nullptr || im.arch > ptx->arch)) {
      ptx = &im;
    }
  }
  std::sort(cubins.begin(), cubins.end(),
            [](const BundleImage* a, const BundleImage* b) { return a->arch > b->arch; });
  if (ptx != nullptr) {
    cubins.push_back(ptx);
  }
  return cubins;
}

std::string describe_images(const std::vector<BundleImage>& images) {
  std::string s;
  for (const BundleImage& im : images) {
    s += (s.empty() ? "" : ", ") +
         std::string(im.kind == QDRT_CUDA_ITEM_CUBIN ? "cubin sm_" : "PTX sm_") +
         std::to_string(im.arch);
  }
  return s.empty() ? "nothing" : s;
}

}  // namespace qdrt::cuda
