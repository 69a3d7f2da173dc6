#include "build/explain.hpp"

#include <doctest/doctest.h>

using namespace qd::build;

TEST_CASE("explain: key component diffs name what changed") {
  Components before = {{"tool", "t"},       {"kernel", "k"},       {"source m:f", "1"},
                       {"source m:k", "2"}, {"source m:old", "3"}, {"signature", "s"},
                       {"config", "c"}};
  Components after = {{"tool", "t"},       {"kernel", "k"},       {"source m:f", "9"},
                      {"source m:k", "2"}, {"source m:new", "4"}, {"signature", "s2"},
                      {"config", "c"}};
  std::vector<std::string> d = diff_components(before, after);
  REQUIRE(d.size() == 4);
  CHECK(d[0] == "source of 'm:f' changed");
  CHECK(d[1] == "'m:new' is newly reached");
  CHECK(d[2] == "signature changed");
  CHECK(d[3] == "'m:old' is no longer reached");
  CHECK(explain_key_change(before, after) ==
        "kernel key changed: source of 'm:f' changed, 'm:new' is newly reached, signature "
        "changed, 'm:old' is no longer reached");
  CHECK(explain_key_change(before, before) == "kernel key changed");
  CHECK(diff_components({{"constants", "a"}}, {{"constants", "b"}})[0] ==
        "module constants read changed");
}
