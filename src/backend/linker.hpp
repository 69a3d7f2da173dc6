// lld in-process: relocatable objects → one ELF shared object in memory. lld keeps global state
// and cannot write to a memfd, so links are serialised by a
// mutex and go through a private directory (tmpfs /dev/shm when present) that is read back and
// emptied after every link. Internal to qd_backend; the public entry is link_cpu_module().
#pragma once

#include "backend/backend.hpp"

#include <optional>
#include <string>
#include <vector>

namespace qd::backend {

// The libraries every CPU module is linked with: compiler-rt's builtins (statically, for
// __divti3 and friends) and libc/libm (as DT_NEEDED, only when used). The builtins archive is
// the one installed beside the backend plugin (k_bundled_builtins, relative to the plugin's
// directory: the qdbuild wheel carries it there), else LLVM 19's own (k_builtins_archive).
inline constexpr const char* k_builtins_archive =
    "/usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.builtins-x86_64.a";
inline constexpr const char* k_bundled_builtins = "qdbuild-backend/libclang_rt.builtins-x86_64.a";
inline constexpr const char* k_libc = "/lib/x86_64-linux-gnu/libc.so.6";
inline constexpr const char* k_libm = "/lib/x86_64-linux-gnu/libm.so.6";

// The builtins archive this backend links with (see above); computed once.
const std::string& builtins_archive();

// The lld command line for inputs `objects` and output `output` (argv[0] included).
std::vector<std::string> lld_arguments(const std::vector<std::string>& objects,
                                       const std::string& output);

// Links `objects` in order. Appends lld's messages to `diags`; nullopt on failure.
std::optional<std::string> link_shared_object(const std::vector<std::string>& objects,
                                              std::vector<Diagnostic>& diags);

}  // namespace qd::backend
