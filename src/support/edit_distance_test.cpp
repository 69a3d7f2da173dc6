#include "support/edit_distance.hpp"

#include <doctest/doctest.h>

namespace qd::support {
namespace {

TEST_CASE("edit_distance") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("scan", "scan") == 0);
  CHECK(edit_distance("sacn", "scan") == 2);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abcdef", "uvwxyz", 2) == 3);  // stops early past the limit
}

TEST_CASE("closest") {
  CHECK(closest("storee", {"paths", "store", "targets"}) == "store");
  CHECK(closest("target", {"paths", "store", "targets"}) == "targets");
  CHECK(closest("completely-different", {"paths", "store"}).empty());
}

}  // namespace
}  // namespace qd::support
