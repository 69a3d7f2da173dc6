// The options of the commands that analyse sources (build, check, explain; scan takes PATH and
// -j), declared here once so that their names and help texts agree (docs/build.md, docs/record.md).
// Each adds one option to `app` bound to the caller's field.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace qd::driver {

// PATH...: `verb` is what is done to them ("build"); `fallback` what an empty list means.
void add_paths_flag(CLI::App& app, std::vector<std::string>& paths, const std::string& verb,
                    const std::string& fallback);
// --root DIR[:DIR...]; `fallback`: the root without it.
void add_root_flag(CLI::App& app, std::string& root, const std::string& fallback);
// --instances FILE (repeatable): recorded runs.
void add_instances_flag(CLI::App& app, std::vector<std::string>& files);
// --target T: one target (check, explain) or, repeated, several (build).
void add_target_flag(CLI::App& app, std::string& target, const std::string& fallback);
void add_targets_flag(CLI::App& app, std::vector<std::string>& targets,
                      const std::string& fallback);
// -j, --jobs N.
void add_jobs_flag(CLI::App& app, unsigned& jobs);

}  // namespace qd::driver
