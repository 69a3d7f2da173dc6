// Explaining one kernel: `qdbuild explain ID` as a function (docs/kernel-keys.md): its resolved
// signature, the funcs it reaches and through which calls, the module constants it reads, the
// purity verdict and why, each kernel-key component with its hash, and each instance's offload
// split.
#pragma once

#include <string>
#include <vector>

#include "qdbuild/diagnostic.hpp"

namespace qdbuild {

struct ExplainOptions {
  std::string id;                  // module:qualname, modules relative to `root`
  std::vector<std::string> paths;  // empty: the root itself is the tree analysed
  std::string root;                // default "."
  std::vector<std::string> instance_files;
  std::string target;  // cpu, cuda, cuda:sm_XX; "" the config's arch
  bool json = false;   // `output` is the JSON object
};

struct ExplainResult {
  Exit exit = Exit::ok;  // input_error: no such kernel (with a did-you-mean) or it has errors
  bool found = false;
  std::string output;               // what `qdbuild explain` prints on stdout
  std::vector<std::string> errors;  // what it prints on stderr after "qdbuild: error: "
};

ExplainResult explain(const ExplainOptions& options);

}  // namespace qdbuild
