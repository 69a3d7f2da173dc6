// The CUDA bundle (qdrt/task_abi.h "CUDA modules"): one cubin per built SM arch plus the PTX,
// parsed and checked without the driver, and the choice of image for a device.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"

namespace qdrt::cuda {

struct BundleImage {
  uint32_t kind = 0;  // QDRT_CUDA_ITEM_CUBIN or QDRT_CUDA_ITEM_PTX
  uint32_t arch = 0;  // 90 for sm_90
  std::string_view bytes;
};

// Checks the header and every item (in bounds, known kind, a cubin is an ELF, a PTX text is
// NUL-terminated) and returns the images, pointing into `bundle`. `name` names the object in
// messages. QDRT_ERROR_CORRUPT / QDRT_ERROR_VERSION on failure.
Status parse_bundle(std::string_view bundle, const std::string& name,
                    std::vector<BundleImage>& out);

// The images to try on a device of compute capability `arch`, best first: the cubin built for
// exactly that arch, cubins of the same major and a lower minor (binary compatible), then the
// PTX of the highest arch <= the device's (JIT-compiled by the driver). Empty: none can run.
std::vector<const BundleImage*> select_images(const std::vector<BundleImage>& images,
                                              uint32_t arch);

// "cubin sm_80, cubin sm_90, PTX sm_90"
std::string describe_images(const std::vector<BundleImage>& images);

}  // namespace qdrt::cuda
