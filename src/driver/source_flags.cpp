#include "driver/source_flags.hpp"

namespace qd::driver {

void add_source_flags(CommandLine& app, std::vector<std::string>& paths, std::string& root,
                      std::vector<std::string>& instance_files, const std::string& verb,
                      WithoutPath without) {
  bool project = without == WithoutPath::project;
  app.add_option("PATH", paths,
                 "files or directories to " + verb + " (default: " +
                     (project ? "`paths` of the project's [tool.qdbuild], else the directory "
                                "holding its config; without a project, the files the "
                                "--instances records name"
                              : "the whole --root") +
                     ")");
  app.add_option("--root", root,
                 "the source root kernel ids are relative to, or several separated by ':' "
                 "(default: " +
                     std::string(project ? "each directory given; the records' roots for their "
                                           "files"
                                         : ". without PATH, else each directory given") +
                     "; --root SITE SITE/genesis names the modules genesis.*)");
  app.add_option("--instances", instance_files,
                 "a recorded run (qdbuild record): instances and run-time values (repeatable)");
}

void add_target_flag(CommandLine& app, std::string& target, const std::string& fallback) {
  app.add_option("--target", target, "cpu, cuda (sm_90) or cuda:sm_XX (default: " + fallback + ")");
}

void add_targets_flag(CommandLine& app, std::vector<std::string>& targets,
                      const std::string& fallback) {
  app.add_option("--target", targets,
                 "cpu, cuda (sm_90) or cuda:sm_XX; repeat for several (default: " + fallback + ")");
}

void add_jobs_flag(CommandLine& app, unsigned& jobs) {
  app.add_option("-j,--jobs", jobs, "parallel jobs (default: number of CPUs)");
}

}  // namespace qd::driver
