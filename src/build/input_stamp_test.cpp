#include "build/input_stamp.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>

#include "support/file_io.hpp"

using namespace qd::build;
namespace fs = std::filesystem;

namespace {

void write(const std::string& path, const std::string& text) {
  std::string error;
  REQUIRE(qd::support::write_file(path, text, error));
}

// Sets a file's mtime (ns since the epoch).
void set_mtime(const std::string& path, int64_t ns) {
  timespec times[2];
  times[0].tv_sec = ns / 1'000'000'000;
  times[0].tv_nsec = ns % 1'000'000'000;
  times[1] = times[0];
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

const int64_t k_old = 1'600'000'000'000'000'000;  // 2020: not racy

}  // namespace

TEST_CASE(
    "input stamps: unchanged tree is up to date; edits, new files and config changes are not") {
  // Subcases re-enter the test case in the same directory: start from scratch each time.
  fs::remove_all("src");
  fs::create_directories("src/pkg");
  write("src/a.py", "x = 1\n");
  write("src/pkg/b.py", "y = 2\n");
  write("src/notes.txt", "not python\n");
  write("index.qdi", "index");
  for (const char* p : {"src/a.py", "src/pkg/b.py", "index.qdi"}) {
    set_mtime(p, k_old);
  }
  InputsRecord r = take_stamp({"src"}, true);
  REQUIRE(r.files.size() == 2);
  CHECK(r.files[0].path == "src/a.py");
  CHECK(r.files[1].path == "src/pkg/b.py");
  CHECK(r.files[0].hash.empty());
  CHECK_FALSE(r.configs.empty());
  CHECK(r.configs[0].path.ends_with("/src/qdbuild.toml"));
  REQUIRE(stat_file("index.qdi", r.index_size, r.index_mtime_ns));

  std::string why;
  CHECK(stamp_up_to_date(r, {"src"}, "index.qdi", why));

  SUBCASE("an edit (size or mtime)") {
    write("src/a.py", "x = 2\n");
    set_mtime("src/a.py", k_old + 1);
    CHECK_FALSE(stamp_up_to_date(r, {"src"}, "index.qdi", why));
    CHECK(why == "'src/a.py' changed");
  }
  SUBCASE("a new python file; other files do not count") {
    write("src/other.txt", "");
    CHECK(stamp_up_to_date(r, {"src"}, "index.qdi", why));
    write("src/pkg/c.py", "");
    CHECK_FALSE(stamp_up_to_date(r, {"src"}, "index.qdi", why));
    CHECK(why == "the set of source files changed");
  }
  SUBCASE("a config file appears") {
    write("src/qdbuild.toml", "opt_level = 2\n");
    CHECK_FALSE(stamp_up_to_date(r, {"src"}, "index.qdi", why));
    CHECK(why == "a configuration file changed");
  }
  SUBCASE("the index changed or is gone") {
    set_mtime("index.qdi", k_old + 5);
    CHECK_FALSE(stamp_up_to_date(r, {"src"}, "index.qdi", why));
    fs::remove("index.qdi");
    CHECK_FALSE(stamp_up_to_date(r, {"src"}, "index.qdi", why));
  }
}

TEST_CASE("input stamps: racy files carry a content hash that catches same-mtime edits") {
  write("k.py", "a = 1\n");  // just written: racy
  write("index.qdi", "i");
  InputsRecord r = take_stamp({"k.py"}, true);
  REQUIRE(r.files.size() == 1);
  CHECK_FALSE(r.files[0].hash.empty());
  REQUIRE(stat_file("index.qdi", r.index_size, r.index_mtime_ns));
  std::string why;
  CHECK(stamp_up_to_date(r, {"k.py"}, "index.qdi", why));
  // Same size, mtime forced back to the recorded one: only the hash can tell.
  write("k.py", "a = 2\n");
  set_mtime("k.py", r.files[0].mtime_ns);
  CHECK_FALSE(stamp_up_to_date(r, {"k.py"}, "index.qdi", why));
  CHECK(why == "'k.py' changed (same mtime)");
}
