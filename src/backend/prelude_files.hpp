// The prelude headers embedded at build time (embed_files.cmake generates the table from
// src/codegen/prelude/ and include/qdrt/task_abi.h). The in-process compiler serves them
// from a virtual include directory; nothing on disk is read at run time.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace qd::backend {

struct EmbeddedFile {
  std::string_view name;   // path below the include directory: "qd_prelude.hpp", "qdrt/task_abi.h"
  std::string_view bytes;  // the file, byte for byte (NUL-terminated in memory, not counted)
};

// In name order of the CMake list; stable for the life of the binary.
std::span<const EmbeddedFile> embedded_prelude_files();

// SHA-256 (hex) over every file's name and bytes: part of toolchain_id, so editing the prelude
// changes every task key.
const std::string& prelude_digest();

// The virtual directory the in-process compiler finds the prelude in (-I).
inline constexpr std::string_view k_prelude_dir = "/qd/include";
// The virtual path of the TU being compiled, relative to the in-memory working directory /qd
// (fixed, so object bytes never depend on task names; the same name a spawned clang++-19 sees
// when it compiles ./qd_task.cpp, which makes the two objects comparable byte for byte).
inline constexpr std::string_view k_task_path = "qd_task.cpp";

}  // namespace qd::backend
