#include "store/index_format.hpp"

#include <cstring>
#include <doctest/doctest.h>
#include <string>

#include "store/hashing.hpp"

using namespace qd::store;

namespace {

Entry make_entry(std::string kernel, std::string target, int tasks, int64_t last_used = 5) {
  Entry e;
  e.key = {std::move(kernel), "x: ndarray(f32, 1)", std::move(target)};
  for (int i = 0; i < tasks; ++i) {
    e.record.tasks.push_back({"task" + std::to_string(i),
                              i % 2 == 0 ? TaskKind::range : TaskKind::serial,
                              std::string("\0\1meta", 6) + std::to_string(i),
                              sha256(e.key.kernel_id + std::to_string(i))});
  }
  e.record.module = sha256(e.key.kernel_id + e.key.target);
  e.record.arguments = {{"x", QDRT_ARG_NDARRAY, QDRT_DTYPE_F32, 1, {3}, {}, {}},
                        {"dt", QDRT_ARG_SCALAR, QDRT_DTYPE_F64, 0, {}, {}, {}}};
  e.record.last_used = last_used;
  return e;
}

}  // namespace

TEST_CASE("index: write then read back every field; lookups by binary search") {
  std::vector<Entry> entries;
  for (int i = 0; i < 50; ++i) {
    entries.push_back(make_entry("mod" + std::to_string(i % 10) + ":k" + std::to_string(i),
                                 i % 2 ? "cpu" : "cuda:sm_90", i % 4));
  }
  Result<std::string> bytes = write_index(entries, 1234);
  REQUIRE(bytes.ok());
  Result<IndexView> view = IndexView::open(*bytes, "index.qdi");
  REQUIRE(view.ok());
  CHECK(view->entry_count() == 50);
  CHECK_FALSE(view->packed());
  CHECK(view->header().created_time == 1234);
  for (const Entry& e : entries) {
    std::optional<size_t> i = view->find(e.key.kernel_id, e.key.instance, e.key.target);
    REQUIRE(i.has_value());
    CHECK(view->entry(*i) == e);
  }
  CHECK_FALSE(view->find("mod0:k0", "x: ndarray(f32, 1)", "cpu"));  // k0 is cuda
  CHECK_FALSE(view->find("", "", ""));
  CHECK(view->find_object(*entries[3].record.module).has_value());
  CHECK_FALSE(view->find_object(sha256("nothing")));
}

TEST_CASE("index: field arguments keep their layout; an index without them stays version 1") {
  Entry plain = make_entry("m:plain", "cpu", 1);
  Result<std::string> v1 = write_index({plain}, 0);
  REQUIRE(v1.ok());
  CHECK(IndexView::open(*v1, "i")->header().version == 1u);

  Entry e = make_entry("m:k", "cpu", 1);
  // self.p.pos: an AOS struct member, 6 x vec3 f32 in 16-byte cells; self.g: a 0-d field.
  e.record.arguments.push_back(
      {"self.p.pos", QDRT_ARG_FIELD, QDRT_DTYPE_F32, 1, {3}, {6, 3}, {16, 4}});
  e.record.arguments.push_back({"self.g", QDRT_ARG_FIELD, QDRT_DTYPE_F64, 0, {}, {}, {}});
  Result<std::string> v2 = write_index({e, plain}, 0);
  REQUIRE(v2.ok());
  Result<IndexView> view = IndexView::open(*v2, "i");
  REQUIRE(view.ok());
  CHECK(view->header().version == 2u);
  CHECK(view->entry(*view->find("m:k", e.key.instance, "cpu")) == e);
  CHECK(view->entry(*view->find("m:plain", plain.key.instance, "cpu")) == plain);

  Entry bad = make_entry("m:bad", "cpu", 1);
  bad.record.arguments.push_back({"f", QDRT_ARG_FIELD, QDRT_DTYPE_F32, 2, {}, {4}, {4}});
  CHECK(write_index({bad}, 0).failure().kind == FailureKind::invalid);  // 1 dim for 2
}

TEST_CASE("index: empty index, hostile strings, duplicate keys refused") {
  Result<std::string> empty = write_index({}, 0);
  REQUIRE(empty.ok());
  CHECK(IndexView::open(*empty, "i")->entry_count() == 0);

  std::vector<Entry> entries = {make_entry("../../etc/passwd", "cpu", 1),
                                make_entry(std::string("a\0b/c", 5), "cpu", 1),
                                make_entry(std::string(10000, 'k'), "cpu", 1)};
  Result<std::string> bytes = write_index(entries, 0);
  REQUIRE(bytes.ok());
  Result<IndexView> view = IndexView::open(*bytes, "i");
  REQUIRE(view.ok());
  for (const Entry& e : entries) {
    CHECK(view->entry(*view->find(e.key.kernel_id, e.key.instance, e.key.target)) == e);
  }
  entries.push_back(entries[0]);
  CHECK(write_index(entries, 0).failure().kind == FailureKind::invalid);
  Entry wide = make_entry("k", "cpu", 0);
  wide.record.arguments[0].element_shape = {1, 2, 3, 4, 5};
  CHECK_FALSE(write_index({wide}, 0).ok());
}

TEST_CASE("index: damage is reported naming the file, never a crash") {
  std::vector<Entry> entries = {make_entry("a:k", "cpu", 3), make_entry("b:k", "cpu", 2)};
  std::string good = *write_index(entries, 0);
  auto check = [](const std::string& bytes, const char* why) {
    Result<IndexView> v = IndexView::open(bytes, "store/index.qdi");
    REQUIRE_FALSE(v.ok());
    CHECK(v.failure().kind == FailureKind::corrupt);
    CHECK(v.error().find("index 'store/index.qdi' is damaged") == 0);
    CHECK_MESSAGE(v.error().find(why) != std::string::npos, v.error());
  };
  check("", "truncated");
  check(good.substr(0, 100), "truncated");
  check(good.substr(0, good.size() - 8), "truncated");
  std::string bad = good;
  bad[1] = 'x';
  check(bad, "wrong magic");
  bad = good;
  bad[8] = 9;
  check(bad, "version 9");
  for (size_t i = QDRT_INDEX_CHECKSUM_START; i < good.size(); ++i) {
    bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    check(bad, "checksum");
  }
  // Without the checksum (the fuzzer's mode) every flip is still safe.
  for (size_t i = 0; i < good.size(); ++i) {
    bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0xff);
    Result<IndexView> v = IndexView::open(bad, "i", IndexOpenOptions{false});
    if (v.ok()) {
      for (size_t k = 0; k < v->entry_count(); ++k) {
        (void)v->entry(k);
      }
    }
  }
}

TEST_CASE("index: packed flag and object locations") {
  std::vector<Entry> entries = {make_entry("a:k", "cpu", 2)};
  LocateObject locate = [](const ObjectId& id) { return ObjectLocation{id.bytes[0] * 8ull, 77}; };
  Result<std::string> bytes = write_index(entries, 0, &locate);
  REQUIRE(bytes.ok());
  Result<IndexView> view = IndexView::open(*bytes, "i");
  REQUIRE(view.ok());
  CHECK(view->packed());
  for (size_t i = 0; i < view->object_count(); ++i) {
    CHECK(view->object_location(i).offset == view->object_id(i).bytes[0] * 8ull);
    CHECK(view->object_location(i).size == 77);
  }
}

TEST_CASE("merge_entries: union, newer record wins, incoming wins ties") {
  std::vector<Entry> base = {make_entry("a", "cpu", 1, 10), make_entry("b", "cpu", 1, 10),
                             make_entry("c", "cpu", 1, 30)};
  std::vector<Entry> incoming = {make_entry("b", "cpu", 2, 10), make_entry("c", "cpu", 2, 20),
                                 make_entry("d", "cpu", 1, 1)};
  std::vector<Entry> merged = merge_entries(base, incoming);
  REQUIRE(merged.size() == 4);
  CHECK(merged[0].key.kernel_id == "a");
  CHECK(merged[1].record.tasks.size() == 2);  // tie: incoming
  CHECK(merged[2].record.tasks.size() == 1);  // base is newer
  CHECK(merged[3].key.kernel_id == "d");
}
