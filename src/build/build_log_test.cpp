#include "build/build_log.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "support/file_io.hpp"

using namespace qd::build;
namespace fs = std::filesystem;

namespace {

InstanceRecord instance(const std::string& kernel, const std::string& key) {
  InstanceRecord r;
  r.kernel_id = kernel;
  r.instance = "x=ndarray(f32, 1), n=i32";
  r.target = "cpu";
  r.kernel_key = key;
  r.compiler = "c1";
  r.module = "pkg.mod";
  r.module_object = std::string(64, 'f');
  r.end_ms = 1700000000123;
  r.duration_ms = 12;
  r.components = {{"tool", "h1"}, {"source pkg.mod:k", "h2"}, {"odd\ttag\\", "h\n3"}};
  r.tasks = {{std::string(64, 'a'), std::string(64, 'b')}, {std::string(64, 'c'), "d"}};
  return r;
}

InputsRecord inputs(const std::string& config) {
  InputsRecord r;
  r.config = config;
  r.stamp_ns = 1700000000000000000;
  r.index_size = 4096;
  r.index_mtime_ns = 1700000000000000001;
  r.files = {{"src/a.py", 10, 5, ""}, {"src/b b.py", 0, 6, "0123456789abcdef"}};
  r.configs = {{"/x/qdbuild.toml", false, 0, 0}, {"/x/pyproject.toml", true, 7, 8}};
  return r;
}

std::string read(const std::string& path) {
  std::string text;
  std::string error;
  REQUIRE(qd::support::read_file(path, text, error));
  return text;
}

}  // namespace

TEST_CASE("BuildLog: records round-trip through the text format, escapes included") {
  BuildLog log;
  std::string error;
  REQUIRE(log.write("build.log", {instance("m:k", "key1")}, {inputs("cfg")}, error));
  std::string text = read("build.log");
  CHECK(text.starts_with("# qdbuild log v1\ninstance\tm:k\t"));
  CHECK(text.find("odd\\ttag\\\\") != std::string::npos);

  BuildLog back;
  back.load("build.log");
  CHECK(back.version_ok());
  CHECK(back.skipped_lines() == 0);
  REQUIRE(back.find("m:k", "x=ndarray(f32, 1), n=i32", "cpu") != nullptr);
  CHECK(*back.find("m:k", "x=ndarray(f32, 1), n=i32", "cpu") == instance("m:k", "key1"));
  CHECK(back.find("m:k", "", "cpu") == nullptr);
  REQUIRE(back.find_inputs("cfg") != nullptr);
  CHECK(*back.find_inputs("cfg") == inputs("cfg"));
  CHECK(back.find_inputs("other") == nullptr);
}

TEST_CASE("BuildLog: the last record for a key wins; appends keep earlier lines") {
  BuildLog log;
  std::string error;
  REQUIRE(log.write("build.log", {instance("m:k", "key1")}, {}, error));
  REQUIRE(log.write("build.log", {instance("m:k", "key2"), instance("m:j", "key3")}, {}, error));
  BuildLog back;
  back.load("build.log");
  CHECK(back.total_records() == 3);
  CHECK(back.instances().size() == 2);
  CHECK(back.find("m:k", "x=ndarray(f32, 1), n=i32", "cpu")->kernel_key == "key2");
}

TEST_CASE("BuildLog: missing, foreign and damaged logs") {
  BuildLog log;
  log.load("no-such.log");
  CHECK(log.instances().empty());
  CHECK(log.version_ok());

  std::string error;
  REQUIRE(qd::support::write_file("old.log", "# qdbuild log v0\ninstance\tx\n", error));
  log.load("old.log");
  CHECK_FALSE(log.version_ok());
  CHECK(log.instances().empty());
  // The next write replaces it with a v1 log.
  REQUIRE(log.write("old.log", {instance("m:k", "k")}, {}, error));
  CHECK(read("old.log").starts_with("# qdbuild log v1\ninstance\t"));
  CHECK(read("old.log").find("v0") == std::string::npos);

  // A damaged middle line and a torn last line are skipped; the rest is read.
  std::string good = BuildLog::format(instance("m:a", "ka"));
  std::string text = "# qdbuild log v1\n" + good + "instance\tonly\ttwo\n" + "garbage\\q\n" +
                     BuildLog::format(instance("m:b", "kb")) +
                     BuildLog::format(inputs("c")).substr(0, 30);
  REQUIRE(qd::support::write_file("torn.log", text, error));
  BuildLog torn;
  torn.load("torn.log");
  CHECK(torn.instances().size() == 2);
  CHECK(torn.inputs().empty());
  CHECK(torn.skipped_lines() == 3);
  // Appending after a torn line starts a new line, so the new record is readable.
  REQUIRE(torn.write("torn.log", {instance("m:c", "kc")}, {}, error));
  BuildLog again;
  again.load("torn.log");
  CHECK(again.instances().size() == 3);
  CHECK(again.find("m:c", "x=ndarray(f32, 1), n=i32", "cpu") != nullptr);
}

TEST_CASE("BuildLog: recompacted past 3x the unique records") {
  BuildLog log;
  std::string error;
  size_t writes = 0;
  // Two keys rewritten over and over: the log never grows past 3x unique (or the minimum).
  for (int i = 0; i < 200; ++i) {
    REQUIRE(log.write("build.log", {instance("m:k", "key" + std::to_string(i))}, {inputs("cfg")},
                      error));
    writes += 2;
    BuildLog back;
    back.load("build.log");
    CHECK(back.total_records() <= std::max<size_t>(k_compact_min, 3 * 2) + 2);
    CHECK(back.find("m:k", "x=ndarray(f32, 1), n=i32", "cpu")->kernel_key ==
          "key" + std::to_string(i));
  }
  CHECK(writes == 400);
  BuildLog back;
  back.load("build.log");
  CHECK(back.skipped_lines() == 0);
  CHECK(back.instances().size() == 1);
  CHECK(back.inputs().size() == 1);
  // No temp files left behind by the rewrites.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(".")) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("BuildLog: needs_compaction") {
  BuildLog log;
  std::string text = "# qdbuild log v1\n";
  for (size_t i = 0; i < k_compact_min; ++i) {
    text += BuildLog::format(instance("m:k", "k"));
  }
  log.parse(text);
  CHECK(log.total_records() == k_compact_min);
  CHECK(log.needs_compaction(1));
  BuildLog small;
  small.parse("# qdbuild log v1\n" + BuildLog::format(instance("m:k", "k")) +
              BuildLog::format(instance("m:k", "k")));
  CHECK_FALSE(small.needs_compaction(5));
}

TEST_CASE("BuildLog::scan_inputs: the last inputs record of a config, nothing else parsed") {
  std::string text = "# qdbuild log v1\n" + BuildLog::format(instance("m:k", "k")) +
                     BuildLog::format(inputs("cfg")) + BuildLog::format(inputs("other"));
  InputsRecord newer = inputs("cfg");
  newer.index_size = 1;
  text += BuildLog::format(newer);
  std::optional<InputsRecord> r = BuildLog::scan_inputs(text, "cfg");
  REQUIRE(r);
  CHECK(*r == newer);
  CHECK_FALSE(BuildLog::scan_inputs(text, "missing"));
  CHECK_FALSE(BuildLog::scan_inputs("# qdbuild log v0\n" + BuildLog::format(newer), "cfg"));
  // A damaged last record for the config is not replaced by an older one: not a no-op.
  CHECK_FALSE(BuildLog::scan_inputs(text + "inputs\tcfg\tbroken\n", "cfg"));
  // A torn last line is ignored.
  CHECK(BuildLog::scan_inputs(text + "inputs\tcfg\t12", "cfg"));
}

TEST_CASE("build log: owner records round trip, last one wins, survive compaction") {
  OwnerRecord a;
  a.owner = "owner1";
  a.entries = {{"m:k", "x=ndarray(f32, 1)", "cpu", std::string(64, 'a')},
               {"m:odd\tname", "", "cpu", std::string(64, 'b')}};
  OwnerRecord b = a;
  b.entries.pop_back();
  BuildLog log;
  log.parse(std::string(k_log_version_line) + "\n" + BuildLog::format(a) + BuildLog::format(b));
  REQUIRE(log.find_owner("owner1") != nullptr);
  CHECK(*log.find_owner("owner1") == b);
  CHECK(log.find_owner("other") == nullptr);
  CHECK(log.skipped_lines() == 0);

  fs::path dir = fs::temp_directory_path() / ("qd_owner_log_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "build.log").string();
  BuildLog w;
  std::string error;
  for (size_t i = 0; i < k_compact_min + 5; ++i) {
    REQUIRE(w.write(path, {}, {}, error, {i % 2 == 0 ? a : b}));
  }
  BuildLog r;
  r.load(path);
  REQUIRE(r.find_owner("owner1") != nullptr);
  CHECK(*r.find_owner("owner1") == ((k_compact_min + 4) % 2 == 0 ? a : b));
  CHECK(r.total_records() < k_compact_min);  // compacted
  fs::remove_all(dir);
}
