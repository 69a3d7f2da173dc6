#include "store/task_cache.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>

#include "store/gc.hpp"
#include "store/local_store.hpp"
#include "store/verify.hpp"
#include "support/file_io.hpp"

using namespace qd::store;
namespace fs = std::filesystem;

namespace {

const std::string k_key_a(64, 'a');
const std::string k_key_b = "0b" + std::string(62, '1');

}  // namespace

TEST_CASE("TaskCache: record format round trip and rejects") {
  TaskRecord r{sha256("obj"), 42};
  std::string text = format_task_record(r);
  CHECK(text == "qdbuild task v1 " + sha256("obj").hex() + " 42\n");
  std::optional<TaskRecord> back = parse_task_record(text);
  REQUIRE(back);
  CHECK(back->object == r.object);
  CHECK(back->compile_ms == 42);
  CHECK_FALSE(parse_task_record(""));
  CHECK_FALSE(parse_task_record(text.substr(0, text.size() - 1)));  // torn: no newline
  CHECK_FALSE(parse_task_record("qdbuild task v2 " + sha256("obj").hex() + " 1\n"));
  CHECK_FALSE(parse_task_record("qdbuild task v1 " + sha256("obj").hex() + " x\n"));
  CHECK_FALSE(parse_task_record("qdbuild task v1 " + sha256("obj").hex() + " \n"));
  CHECK(is_task_key(k_key_a));
  CHECK_FALSE(is_task_key("../" + std::string(61, 'a')));
  CHECK_FALSE(is_task_key(std::string(64, 'A')));
  CHECK_FALSE(is_task_key(std::string(63, 'a')));
}

TEST_CASE("TaskCache: insert, lookup, fan-out, missing object is a miss") {
  LocalStore store("st");
  REQUIRE(store.create().ok());
  TaskCache cache(store);
  CHECK_FALSE(cache.lookup(k_key_a));
  Result<ObjectId> id = store.put("object code");
  REQUIRE(id.ok());
  REQUIRE(cache.insert(k_key_a, {*id, 7}).ok());
  CHECK(fs::exists("st/tasks/aa/" + std::string(62, 'a') + ".qdt"));
  std::optional<TaskRecord> hit = cache.lookup(k_key_a);
  REQUIRE(hit);
  CHECK(hit->object == *id);
  CHECK(hit->compile_ms == 7);
  CHECK_FALSE(cache.insert("not-a-key", {*id, 1}).ok());
  CHECK_FALSE(cache.lookup("not-a-key"));
  // The object goes: the record stays on disk but is a miss.
  REQUIRE(*store.remove(*id));
  CHECK_FALSE(cache.lookup(k_key_a));
  CHECK(cache.list().size() == 1);
}

TEST_CASE("TaskCache: gc removes dangling records and keeps live ones; verify reports them") {
  LocalStore store("st");
  store.set_warning_handler([](const std::string&) {});
  REQUIRE(store.create().ok());
  TaskCache cache(store);
  Result<ObjectId> live = store.put("live");
  Result<ObjectId> gone = store.put("gone");
  REQUIRE(live.ok());
  REQUIRE(gone.ok());
  // An index entry keeps `live`; `gone` is referenced by nothing.
  Entry e;
  e.key = {"m:k", "", "cpu"};
  e.record.tasks.push_back({"t", TaskKind::range, "meta", *live});
  REQUIRE(store.publish({e}).ok());
  REQUIRE(cache.insert(k_key_a, {*live, 1}).ok());
  REQUIRE(cache.insert(k_key_b, {*gone, 1}).ok());
  std::string error;
  REQUIRE(qd::support::write_file("st/tasks/aa/" + std::string(61, 'c') + "d.qdt", "junk", error));

  VerifyReport before = verify_store(store, 1);
  CHECK(before.damage.size() == 1);  // the malformed record; `gone` is still present

  GcOptions options;
  options.grace = std::chrono::seconds(0);  // `gone` is unreferenced and removed now
  Result<GcReport> report = collect_garbage(store, options);
  REQUIRE(report.ok());
  CHECK(report->objects_removed == 1);
  CHECK(report->task_records_removed == 2);  // `gone`'s record and the malformed one
  CHECK(cache.lookup(k_key_a));
  CHECK_FALSE(fs::exists(cache.record_path(k_key_b)));
  CHECK(verify_store(store, 1).clean());

  // A record naming a missing object is damage for verify.
  REQUIRE(cache.insert(k_key_b, {*gone, 1}).ok());
  VerifyReport after = verify_store(store, 1);
  REQUIRE(after.damage.size() == 1);
  CHECK(after.damage[0].find("which is missing") != std::string::npos);
}
