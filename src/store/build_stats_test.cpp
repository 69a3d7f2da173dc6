#include "store/build_stats.hpp"

#include <doctest/doctest.h>
#include <string>

#include "support/file_io.hpp"

using namespace qd::store;

TEST_CASE("build stats: append, read back, sum recent; torn lines skipped") {
  CHECK(read_build_stats("stats.log")->records.empty());
  REQUIRE(append_build_stats("stats.log", {100, 5, 2, 300, 1200}).ok());
  REQUIRE(append_build_stats("stats.log", {200, 7, 0, 0, 2000}).ok());
  Result<BuildStatsLog> log = read_build_stats("stats.log");
  REQUIRE(log.ok());
  REQUIRE(log->records.size() == 2);
  CHECK(log->records[0] == BuildStats{100, 5, 2, 300, 1200});
  BuildStats all = sum_build_stats(log->records);
  CHECK(all.hits == 12);
  CHECK(all.saved_ms == 3200);
  CHECK(sum_build_stats(log->records, 1).hits == 7);

  std::string text;
  std::string error;
  REQUIRE(qd::support::read_file("stats.log", text, error));
  REQUIRE(qd::support::write_file("stats.log", text + "300 1 2", error));  // torn last line
  log = read_build_stats("stats.log");
  CHECK(log->records.size() == 2);
  CHECK(log->malformed_lines == 1);

  REQUIRE(qd::support::write_file("other.log", "# something else\n", error));
  CHECK(read_build_stats("other.log").failure().kind == FailureKind::corrupt);
}
