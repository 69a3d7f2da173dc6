// Main of qd_unit_tests: doctest, with every test case run in a fresh temporary directory
// (ccache's unittest/main.cpp habit). The directory is removed after a passing test case; after a
// failing one it is kept and its path printed. QD_KEEP_TEST_DIRS=1 keeps all of them.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <doctest/doctest.h>
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

class TempDirListener : public doctest::IReporter {
public:
  explicit TempDirListener(const doctest::ContextOptions& /*options*/) {}

  void report_query(const doctest::QueryData& /*data*/) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& /*stats*/) override {}

  void test_case_start(const doctest::TestCaseData& data) override {
    std::error_code ec;
    m_old_cwd = fs::current_path(ec);
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/qd-unit-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::fprintf(stderr, "qd_unit_tests: cannot create a temporary directory: %s\n",
                   std::strerror(errno));
      std::exit(3);
    }
    m_dir = pattern;
    m_name = data.m_name;
    if (chdir(m_dir.c_str()) != 0) {
      std::fprintf(stderr, "qd_unit_tests: cannot enter %s: %s\n", m_dir.c_str(),
                   std::strerror(errno));
      std::exit(3);
    }
  }
  // Subcases re-enter the same test case; they share its directory.
  void test_case_reenter(const doctest::TestCaseData& /*data*/) override {}

  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    std::error_code ec;
    if (!m_old_cwd.empty()) {
      fs::current_path(m_old_cwd, ec);
    }
    const char* keep = std::getenv("QD_KEEP_TEST_DIRS");
    bool keep_all = keep != nullptr && std::string(keep) == "1";
    if (!stats.testCaseSuccess || keep_all) {
      std::fprintf(stderr, "qd_unit_tests: %s: test directory kept: %s\n",
                   stats.testCaseSuccess ? "passed" : "FAILED", m_dir.c_str());
    } else {
      fs::remove_all(m_dir, ec);
    }
    m_dir.clear();
  }

  void test_case_exception(const doctest::TestCaseException& /*e*/) override {}
  void subcase_start(const doctest::SubcaseSignature& /*signature*/) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData& /*data*/) override {}
  void log_message(const doctest::MessageData& /*data*/) override {}
  void test_case_skipped(const doctest::TestCaseData& /*data*/) override {}

private:
  fs::path m_old_cwd;
  std::string m_dir;
  std::string m_name;
};

REGISTER_LISTENER("qd_temp_dir", 1, TempDirListener);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
