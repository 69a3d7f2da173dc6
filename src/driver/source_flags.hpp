// The options of the commands that analyse sources (build, check, explain; scan takes PATH and
// -j), declared here once so that their names and help texts agree (docs/build.md, docs/record.md).
// Each adds one option to `app` bound to the caller's field.
#pragma once

#include <string>
#include <vector>

#include "driver/command_line.hpp"

namespace qd::driver {

// What a command reads without a PATH: build and check the project's paths, else the files the
// records name (qdbuild::resolve, docs/build.md "Project configuration"); explain the root.
enum class WithoutPath { project, root };

// PATH..., --root DIR[:DIR...] and --instances FILE (repeatable). `verb` is what is done to the
// paths ("build").
void add_source_flags(CommandLine& app, std::vector<std::string>& paths, std::string& root,
                      std::vector<std::string>& instance_files, const std::string& verb,
                      WithoutPath without);
// --target T: one target (check, explain) or, repeated, several (build).
void add_target_flag(CommandLine& app, std::string& target, const std::string& fallback);
void add_targets_flag(CommandLine& app, std::vector<std::string>& targets,
                      const std::string& fallback);
// -j, --jobs N.
void add_jobs_flag(CommandLine& app, unsigned& jobs);

}  // namespace qd::driver
