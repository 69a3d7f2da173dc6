#include "driver/driver.hpp"

#include <doctest/doctest.h>

namespace qd::driver {
namespace {

TEST_CASE("command suggestions") {
  CHECK(suggest_command("sacn") == "scan");
  CHECK(suggest_command("dump-asr") == "dump-ast");
  CHECK(suggest_command("dumpast") == "dump-ast");
  CHECK(suggest_command("completely-different").empty());
}

}  // namespace
}  // namespace qd::driver
