#include "api/paths.hpp"

#include <filesystem>

namespace qd::api {

namespace fs = std::filesystem;

std::string display_path(const std::string& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec).lexically_normal();
  std::string text = abs.string();
  if (text.size() > 1 && text.back() == '/') {
    text.pop_back();
    abs = text;
  }
  fs::path cwd = fs::current_path(ec);
  if (ec) {
    return text;
  }
  std::string rel = abs.lexically_relative(cwd).generic_string();
  if (rel.empty() || rel == ".." || rel.starts_with("../")) {
    return text;
  }
  return rel;
}

}  // namespace qd::api
