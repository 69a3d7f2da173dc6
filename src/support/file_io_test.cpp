#include "support/file_io.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace qd::support {
namespace {

std::filesystem::path temp_dir() {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "qd_file_io_test";
  std::filesystem::create_directories(dir);
  return dir;
}

TEST_CASE("read_file returns the bytes exactly") {
  std::string path = (temp_dir() / "bytes.bin").string();
  std::string data("a\r\nb\0c\xff", 7);
  std::string error;
  REQUIRE(write_file(path, data, error));
  std::string out;
  REQUIRE(read_file(path, out, error));
  CHECK(out == data);
}

TEST_CASE("read_file reads empty and large files") {
  std::string error;
  std::string out = "stale";
  std::string empty = (temp_dir() / "empty.txt").string();
  REQUIRE(write_file(empty, "", error));
  REQUIRE(read_file(empty, out, error));
  CHECK(out.empty());

  std::string big(300 * 1024 + 7, 'x');
  big[12345] = 'y';
  std::string big_path = (temp_dir() / "big.txt").string();
  REQUIRE(write_file(big_path, big, error));
  REQUIRE(read_file(big_path, out, error));
  CHECK(out == big);
}

TEST_CASE("read_file names the file and the reason") {
  std::string out;
  std::string error;
  std::string missing = (temp_dir() / "does-not-exist.py").string();
  CHECK_FALSE(read_file(missing, out, error));
  CHECK(error == "cannot read '" + missing + "': No such file or directory");

  std::string dir = temp_dir().string();
  CHECK_FALSE(read_file(dir, out, error));
  CHECK(error == "cannot read '" + dir + "': Is a directory");
  CHECK(out.empty());
}

TEST_CASE("write_file reports an unwritable path") {
  std::string error;
  CHECK_FALSE(write_file("/nonexistent-dir/x.txt", "x", error));
  CHECK(error == "cannot write '/nonexistent-dir/x.txt': No such file or directory");
}

}  // namespace
}  // namespace qd::support
