#include "support/atomic_file.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "support/file_io.hpp"
#include "support/mapped_file.hpp"

namespace fs = std::filesystem;
using qd::support::AtomicFile;

namespace {

size_t count_files(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("AtomicFile: commit publishes the content, the temp file is gone") {
  fs::create_directories("d");
  std::string error;
  AtomicFile f;
  REQUIRE(f.open("d/out.bin", error));
  CHECK(fs::exists(f.temp_path()));
  CHECK(qd::support::temp_file_pid(fs::path(f.temp_path()).filename().string()) == ::getpid());
  CHECK_FALSE(fs::exists("d/out.bin"));
  REQUIRE(f.write("hello ", error));
  REQUIRE(f.write("world", error));
  REQUIRE(f.commit(error));
  std::string back;
  REQUIRE(qd::support::read_file("d/out.bin", back, error));
  CHECK(back == "hello world");
  CHECK(count_files("d") == 1);
}

TEST_CASE("AtomicFile: without commit the target is unchanged and no temp remains") {
  fs::create_directories("d");
  std::string error;
  REQUIRE(qd::support::write_file_atomic("d/x", "old", error));
  {
    AtomicFile f;
    REQUIRE(f.open("d/x", error));
    REQUIRE(f.write("new content", error));
  }
  std::string back;
  REQUIRE(qd::support::read_file("d/x", back, error));
  CHECK(back == "old");
  CHECK(count_files("d") == 1);
}

TEST_CASE("AtomicFile: a missing directory is an error naming the target") {
  std::string error;
  AtomicFile f;
  CHECK_FALSE(f.open("no/such/dir/file", error));
  CHECK(error.find("'no/such/dir/file'") != std::string::npos);
}

TEST_CASE("temp_file_pid parses only AtomicFile temp names") {
  using qd::support::temp_file_pid;
  CHECK(temp_file_pid(".index.qdi.1234.0123456789abcdef.tmp") == 1234);
  CHECK(temp_file_pid(".a.1.0123456789abcdef.tmp") == 1);
  CHECK_FALSE(temp_file_pid("index.qdi"));
  CHECK_FALSE(temp_file_pid(".index.qdi.1234.0123456789abcdeg.tmp"));
  CHECK_FALSE(temp_file_pid(".index.qdi.12x4.0123456789abcdef.tmp"));
  CHECK_FALSE(temp_file_pid(".index.qdi.1234.0123456789abcde.tmp"));
  CHECK_FALSE(temp_file_pid(".index.qdi..0123456789abcdef.tmp"));
  CHECK_FALSE(temp_file_pid(".index.qdi.0.0123456789abcdef.tmp"));
}

TEST_CASE("remove_stale_temps removes temps of dead writers and keeps live ones") {
  fs::create_directories("d");
  std::string error;
  // A pid that is surely not running: fork a child that exits at once, then reap it.
  pid_t child = ::fork();
  if (child == 0) {
    ::_exit(0);
  }
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  std::string dead = "d/.obj." + std::to_string(child) + ".00000000000000aa.tmp";
  std::string live = "d/.obj." + std::to_string(::getpid()) + ".00000000000000bb.tmp";
  REQUIRE(qd::support::write_file(dead, "x", error));
  REQUIRE(qd::support::write_file(live, "x", error));
  REQUIRE(qd::support::write_file("d/keep.tmp", "x", error));
  std::vector<std::string> removed;
  CHECK(qd::support::remove_stale_temps("d", std::chrono::hours(1), &removed) == 1);
  CHECK(removed == std::vector<std::string>{dead});
  CHECK(fs::exists(live));
  CHECK(fs::exists("d/keep.tmp"));
  // Old enough: even a live writer's temp goes (its pid may have been reused).
  CHECK(qd::support::remove_stale_temps("d", std::chrono::seconds(-1)) == 1);
  CHECK_FALSE(fs::exists(live));
}

TEST_CASE("MappedFile maps whole files, empty files and refuses directories") {
  std::string error;
  REQUIRE(qd::support::write_file("f", "abc", error));
  REQUIRE(qd::support::write_file("empty", "", error));
  qd::support::MappedFile m;
  REQUIRE(m.open("f", error));
  CHECK(m.bytes() == "abc");
  qd::support::MappedFile moved = std::move(m);
  CHECK(moved.bytes() == "abc");
  CHECK(m.bytes().empty());
  REQUIRE(moved.open("empty", error));
  CHECK(moved.bytes().empty());
  fs::create_directories("dir");
  CHECK_FALSE(moved.open("dir", error));
  CHECK(error.find("'dir'") != std::string::npos);
  CHECK_FALSE(moved.open("missing", error));
}
