// One kernel explained as `qdbuild explain ID` prints it (internal to src/api and its clients in
// src: the command, the language server's hover).
#pragma once

#include <string>

#include "sema/analysis.hpp"

namespace qd::api {

// `brief`: without each key component's hash and text and without the kernel's diagnostics (an
// editor shows those itself): location, verdict and why, signature, funcs, constants, and per
// instance its text, origin, key and offload split.
std::string explain_text(const sema::Analysis& a, const sema::KernelReport& k, bool brief);

}  // namespace qd::api
