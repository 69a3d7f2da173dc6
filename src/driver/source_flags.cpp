#include "driver/source_flags.hpp"

namespace qd::driver {

void add_paths_flag(CLI::App& app, std::vector<std::string>& paths, const std::string& verb,
                    const std::string& fallback) {
  app.add_option("PATH", paths, "files or directories to " + verb + " (default: " + fallback + ")");
}

void add_root_flag(CLI::App& app, std::string& root, const std::string& fallback) {
  app.add_option("--root", root,
                 "the source root kernel ids are relative to, or several separated by ':' "
                 "(default: " +
                     fallback + "; --root SITE SITE/genesis names the modules genesis.*)");
}

void add_instances_flag(CLI::App& app, std::vector<std::string>& files) {
  app.add_option("--instances", files,
                 "a recorded run (qdbuild record): instances and run-time values (repeatable)");
}

void add_target_flag(CLI::App& app, std::string& target, const std::string& fallback) {
  app.add_option("--target", target, "cpu, cuda (sm_90) or cuda:sm_XX (default: " + fallback + ")");
}

void add_targets_flag(CLI::App& app, std::vector<std::string>& targets,
                      const std::string& fallback) {
  app.add_option("--target", targets,
                 "cpu, cuda (sm_90) or cuda:sm_XX; repeat for several (default: " + fallback + ")");
}

void add_jobs_flag(CLI::App& app, unsigned& jobs) {
  app.add_option("-j,--jobs", jobs, "parallel jobs (default: number of CPUs)");
}

}  // namespace qd::driver
