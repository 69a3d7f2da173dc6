// The canonical instance text of a recorded parameter description (qdrt_instance_text).
#pragma once

#include <cstddef>
#include <string>

namespace qdrt {

// Reads the description (JSON, `length` bytes) and prints it as qdbuild prints it in instance
// strings; `out` is empty for a description that adds nothing (a runtime scalar). False, with
// `why`, when the description is not understood.
bool instance_text(const char* json_text, size_t length, std::string& out, std::string& why);

}  // namespace qdrt
