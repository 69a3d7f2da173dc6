#include "store/local_store.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "store/gc.hpp"
#include "store/verify.hpp"
#include "support/file_io.hpp"

using namespace qd::store;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> warnings;

void quiet(LocalStore& s) {
  s.set_warning_handler([](const std::string& w) { warnings.push_back(w); });
}

Entry entry_with(LocalStore& store, const std::string& kernel, const std::string& code,
                 const std::string& target = "cpu") {
  Entry e;
  e.key = {kernel, "", target};
  Result<ObjectId> id = store.put(code);
  REQUIRE(id.ok());
  e.record.tasks.push_back({"t0", TaskKind::serial, "meta", *id});
  Result<ObjectId> module = store.put(code + "-module");
  REQUIRE(module.ok());
  e.record.module = *module;
  return e;
}

void flip_byte(const std::string& path, size_t at) {
  std::string bytes;
  std::string error;
  REQUIRE(qd::support::read_file(path, bytes, error));
  bytes[at % bytes.size()] ^= 0x20;
  REQUIRE(qd::support::write_file(path, bytes, error));
}

}  // namespace

TEST_CASE("LocalStore: put/get, dedupe, fan-out, only hex names on disk") {
  LocalStore store("st");
  quiet(store);
  Result<ObjectId> a = store.put("hello");
  REQUIRE(a.ok());
  CHECK(*a == sha256("hello"));
  CHECK(fs::exists("st/objects/" + a->relative_path()));
  CHECK(*store.get(*a) == "hello");
  CHECK(*store.put("hello") == *a);
  CHECK(store.list_objects()->size() == 1);
  CHECK(store.get(sha256("other")).failure().kind == FailureKind::not_found);
  CHECK(store.get_header(*a)->raw_size == 5);
  CHECK(*store.remove(*a));
  CHECK_FALSE(*store.remove(*a));
}

TEST_CASE("LocalStore: publish merges, lookups see the new index, hostile ids stay in the index") {
  LocalStore store("st");
  quiet(store);
  CHECK(*store.index() == nullptr);
  std::vector<Entry> first = {entry_with(store, "../../x", "code1"),
                              entry_with(store, std::string("a\0/b", 4), "code2"),
                              entry_with(store, std::string(10000, '/'), "code3")};
  REQUIRE(store.publish(first).ok());
  REQUIRE(store.publish({entry_with(store, "m:k", "code4", "cuda:sm_90")}).ok());
  const IndexView* view = *store.index();
  REQUIRE(view != nullptr);
  CHECK(view->entry_count() == 4);
  CHECK(view->find("../../x", "", "cpu").has_value());
  CHECK(view->find(std::string(10000, '/'), "", "cpu").has_value());
  CHECK(view->entry(*view->find("m:k", "", "cuda:sm_90")).record.last_used > 0);
  // Nothing but the index, lock, the cache directory tag and the objects tree at the top; no
  // stray names anywhere.
  std::string tag;
  std::string error;
  CHECK(qd::support::read_file("st/CACHEDIR.TAG", tag, error));
  CHECK(tag == k_cachedir_tag);
  for (const auto& e : fs::recursive_directory_iterator("st")) {
    std::string name = e.path().filename().string();
    bool ok = name == "index.qdi" || name == "index.lock" || name == "objects" ||
              name == "CACHEDIR.TAG" || name.size() == 2 ||
              (name.size() == 66 && name.substr(62) == ".qdo");
    CHECK_MESSAGE(ok, e.path().string());
  }
  CHECK(verify_store(store).clean());
}

TEST_CASE("LocalStore: publish refuses entries whose objects are missing") {
  LocalStore store("st");
  quiet(store);
  Entry e = entry_with(store, "k", "code");
  REQUIRE(store.remove(*e.record.module).ok());
  Result<Unit> r = store.publish({e});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find("is not in the store") != std::string::npos);
}

TEST_CASE("LocalStore: a damaged object is reported, never returned, and replaced by a put") {
  LocalStore store("st");
  quiet(store);
  Entry e = entry_with(store, "k", std::string(5000, 'x'));
  REQUIRE(store.publish({e}).ok());
  ObjectId id = *e.record.tasks[0].code;
  std::string path = store.object_path(id);
  flip_byte(path, 100);
  Result<std::string> got = store.get(id);
  REQUIRE_FALSE(got.ok());
  CHECK(got.failure().kind == FailureKind::corrupt);
  CHECK(got.error().find(path) != std::string::npos);
  VerifyReport report = verify_store(store);
  REQUIRE(report.damage.size() == 1);
  CHECK(report.damage[0].find(path) != std::string::npos);
  warnings.clear();
  REQUIRE(store.put(std::string(5000, 'x')).ok());
  CHECK(warnings.size() == 1);
  CHECK(*store.get(id) == std::string(5000, 'x'));
  CHECK(verify_store(store).clean());
  // A valid object at the wrong address is damage too.
  ObjectId other = *store.put("other content");
  fs::copy_file(store.object_path(other), path, fs::copy_options::overwrite_existing);
  CHECK_FALSE(verify_store(store).clean());
}

TEST_CASE("LocalStore: a damaged index is an error for readers and gc, replaced by publish") {
  LocalStore store("st");
  quiet(store);
  REQUIRE(store.publish({entry_with(store, "a", "1")}).ok());
  fs::resize_file(store.index_path(), 100);
  store.reload_index();
  Result<const IndexView*> view = store.index();
  REQUIRE_FALSE(view.ok());
  CHECK(view.error().find(store.index_path()) != std::string::npos);
  CHECK_FALSE(verify_store(store).clean());
  CHECK_FALSE(collect_garbage(store, {}).ok());
  warnings.clear();
  REQUIRE(store.publish({entry_with(store, "b", "2")}).ok());
  CHECK(warnings.size() == 1);
  CHECK((*store.index())->entry_count() == 1);
  CHECK(verify_store(store).clean());
}

TEST_CASE("gc: unreferenced objects go (after the grace period), LRU eviction to a size") {
  LocalStore store("st");
  quiet(store);
  std::vector<Entry> entries;
  for (int i = 0; i < 10; ++i) {
    Entry e = entry_with(store, "k" + std::to_string(i), std::string(20000 + i, 'a' + i));
    e.record.last_used = 1000 + i;
    entries.push_back(e);
  }
  REQUIRE(store.publish(entries).ok());
  ObjectId orphan = *store.put("orphan");
  GcOptions keep_young;  // default grace: the fresh orphan stays
  CHECK(collect_garbage(store, keep_young)->objects_removed == 0);
  GcOptions now;
  now.grace = std::chrono::seconds(0);
  Result<GcReport> r = collect_garbage(store, now);
  REQUIRE(r.ok());
  CHECK(r->objects_removed == 1);
  CHECK(store.get(orphan).failure().kind == FailureKind::not_found);
  CHECK(store.list_objects()->size() == 20);

  uint64_t total = 0;
  Result<std::vector<ObjectInfo>> listed1 = store.list_objects();
  for (const ObjectInfo& o : *listed1) {
    total += o.file_size;
  }
  now.max_size = total / 2;
  r = collect_garbage(store, now);
  REQUIRE(r.ok());
  CHECK(r->entries_evicted >= 5);
  store.reload_index();
  const IndexView* view = *store.index();
  // The oldest went first.
  CHECK_FALSE(view->find("k0", "", "cpu").has_value());
  CHECK(view->find("k9", "", "cpu").has_value());
  uint64_t after = 0;
  Result<std::vector<ObjectInfo>> listed2 = store.list_objects();
  for (const ObjectInfo& o : *listed2) {
    after += o.file_size;
  }
  CHECK(after <= total / 2);
  CHECK(verify_store(store).clean());
}

TEST_CASE("gc: stale temp files of dead writers are removed") {
  LocalStore store("st");
  quiet(store);
  REQUIRE(store.publish({entry_with(store, "a", "1")}).ok());
  std::string error;
  std::string dead = "st/objects/ab/.x.qdo.999999999.0123456789abcdef.tmp";
  fs::create_directories("st/objects/ab");
  REQUIRE(qd::support::write_file(dead, "partial", error));
  REQUIRE(qd::support::write_file("st/.index.qdi.999999999.0123456789abcdef.tmp", "p", error));
  VerifyReport before = verify_store(store);
  CHECK(before.clean());
  CHECK(before.notes.size() == 1);
  Result<GcReport> r = collect_garbage(store, {});
  REQUIRE(r.ok());
  CHECK(r->temps_removed >= 1);
  CHECK_FALSE(fs::exists(dead));
  CHECK_FALSE(fs::exists("st/.index.qdi.999999999.0123456789abcdef.tmp"));
}

TEST_CASE("parse_size: suffixes and junk") {
  CHECK(parse_size("123") == 123u);
  CHECK(parse_size("10K") == 10240u);
  CHECK(parse_size("1.5M") == 1572864u);
  CHECK(parse_size("2G") == 2147483648ull);
  CHECK(parse_size("2GiB") == 2147483648ull);
  CHECK(parse_size("7B") == 7u);
  CHECK_FALSE(parse_size(""));
  CHECK_FALSE(parse_size("K"));
  CHECK_FALSE(parse_size("10X"));
  CHECK_FALSE(parse_size("-1"));
  CHECK_FALSE(parse_size("1..2"));
}
