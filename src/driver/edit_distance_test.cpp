#include "driver/edit_distance.hpp"

#include <doctest/doctest.h>

#include "driver/driver.hpp"

namespace qd::driver {
namespace {

TEST_CASE("edit_distance") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("scan", "scan") == 0);
  CHECK(edit_distance("sacn", "scan") == 2);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abcdef", "uvwxyz", 2) == 3);  // stops early past the limit
}

TEST_CASE("command suggestions") {
  CHECK(suggest_command("sacn") == "scan");
  CHECK(suggest_command("dump-asr") == "dump-ast");
  CHECK(suggest_command("dumpast") == "dump-ast");
  CHECK(suggest_command("completely-different").empty());
}

}  // namespace
}  // namespace qd::driver
