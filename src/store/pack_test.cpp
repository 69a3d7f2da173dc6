#include "store/pack.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>

#include "store/local_store.hpp"
#include "store/verify.hpp"
#include "support/file_io.hpp"

using namespace qd::store;
namespace fs = std::filesystem;

namespace {

void fill(LocalStore& store) {
  std::vector<Entry> entries;
  for (int i = 0; i < 6; ++i) {
    Entry e;
    e.key = {"m:k" + std::to_string(i), "inst", i % 2 ? "cpu" : "cuda:sm_90"};
    e.record.tasks.push_back(
        {"t", TaskKind::range, "meta", *store.put(std::string(3000 + i, 'q'))});
    e.record.tasks.push_back({"s", TaskKind::serial, "", *store.put("shared task")});
    e.record.module = *store.put("module " + std::to_string(i));
    entries.push_back(e);
  }
  REQUIRE(store.publish(entries).ok());
}

}  // namespace

TEST_CASE("pack: holds every entry and object; reads like the directory store") {
  LocalStore store("st");
  fill(store);
  Result<PackSummary> s = write_pack(store, "all.qdpack", {});
  REQUIRE(s.ok());
  CHECK(s->entries == 6);
  CHECK(s->objects == 6 + 1 + 6);
  CHECK(s->bytes == fs::file_size("all.qdpack"));
  Result<std::unique_ptr<Backend>> opened = open_store("all.qdpack");
  REQUIRE(opened.ok());
  Backend& pack = **opened;
  const IndexView* view = *pack.index();
  REQUIRE(view->entry_count() == 6);
  for (size_t i = 0; i < view->entry_count(); ++i) {
    Entry e = view->entry(i);
    const IndexView* dir_view = *store.index();
    CHECK(dir_view->entry(*dir_view->find(e.key.kernel_id, e.key.instance, e.key.target)) == e);
    for (const ObjectId& id : referenced_objects(e)) {
      CHECK(*pack.get(id) == *store.get(id));
    }
  }
  CHECK(verify_store(pack).clean());
  CHECK_FALSE(pack.put("x").ok());
}

TEST_CASE("pack: --target filters; an unknown target is an error") {
  LocalStore store("st");
  fill(store);
  Result<PackSummary> s = write_pack(store, "cpu.qdpack", {"cpu"});
  REQUIRE(s.ok());
  CHECK(s->entries == 3);
  Result<PackSummary> bad = write_pack(store, "x.qdpack", {"cuda:sm_80"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("cuda:sm_80") != std::string::npos);
  CHECK_FALSE(fs::exists("x.qdpack"));
}

TEST_CASE("pack: damage is refused naming the pack; a damaged object is not packed") {
  LocalStore store("st");
  fill(store);
  REQUIRE(write_pack(store, "p.qdpack", {}).ok());
  std::string bytes;
  std::string error;
  REQUIRE(qd::support::read_file("p.qdpack", bytes, error));
  for (size_t cut : {size_t{0}, size_t{10}, size_t{64}, bytes.size() / 2, bytes.size() - 1}) {
    Result<std::unique_ptr<PackReader>> r = PackReader::open_bytes(bytes.substr(0, cut), "p");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().find("pack 'p'") == 0);
  }
  std::string bad = bytes;
  bad[30] ^= 1;
  CHECK(PackReader::open_bytes(bad, "p").error().find("checksum") != std::string::npos);
  // A flip inside an object: the pack opens, that object fails its checksum.
  bad = bytes;
  bad[bad.size() - 100] ^= 1;
  Result<std::unique_ptr<PackReader>> r = PackReader::open_bytes(bad, "p");
  REQUIRE(r.ok());
  CHECK_FALSE(verify_store(**r).clean());

  const IndexView* view = *store.index();
  ObjectId victim = view->object_id(0);
  std::string path = store.object_path(victim);
  REQUIRE(qd::support::write_file(path, "garbage", error));
  Result<PackSummary> s = write_pack(store, "q.qdpack", {});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().find(path) != std::string::npos);
}
