#include "sema/record_cache.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "sema/parse_cache.hpp"

namespace qd::sema {
namespace {

const char* k_record = R"({"format": "qdrt-record 1",
  "kernels": {"m:k": [{"params": {"n": {"template": 3}}}, {"params": {"n": {"template": 3}}},
                      {"params": {"n": {"template": 4}}}],
              "bad": []},
  "defines": {"m.A": 2.5, "m.B": 1.0, "m.C": {"tuple": [1, {"nope": 1}]}}})";

std::string config_text(const BuildConfig& c, const std::vector<ConfigError>& errors) {
  std::string out;
  for (const auto& [id, list] : c.instances) {
    for (size_t i = 0; i < list.size(); ++i) {
      out += id + " " + instance_text(list[i]) + " " + c.instance_sources.at(id)[i] + "\n";
    }
  }
  for (const auto& [name, d] : c.defines) {
    out += name + "=" + d.python + " from " + d.source + "\n";
  }
  for (const ConfigError& e : errors) {
    out += "error " + e.message + "\n";
  }
  return out;
}

TEST_CASE("records: a cached read merges as read_record_text does") {
  // A config that already gives one instance and one define: they win, and are not repeated.
  BuildConfig base;
  std::vector<ConfigError> base_errors;
  CHECK(read_record_text(
      R"({"format": "qdrt-record 1", "kernels": {"m:k": [{"params": {"n": {"template": 4}}}]}})",
      "base.json", base, base_errors));
  CHECK(base_errors.empty());
  base.defines["m.B"] = Define{"7.0", "pyproject.toml", false};

  BuildConfig direct = base;
  std::vector<ConfigError> direct_errors;
  CHECK(read_record_text(k_record, "r.json", direct, direct_errors));
  BuildConfig merged = base;
  std::vector<ConfigError> merged_errors;
  RecordSeen seen;
  CHECK(merge_record(read_record_content(k_record, "r.json"), merged, merged_errors, &seen));
  CHECK(config_text(merged, merged_errors) == config_text(direct, direct_errors));
  CHECK(merged.instances["m:k"].size() == 2);  // n=4 given before, n=3 once
  CHECK(merged.defines["m.B"].python == "7.0");

  // The same record twice: nothing added the second time.
  CHECK(merge_record(read_record_content(k_record, "r.json"), merged, merged_errors, &seen));
  CHECK(merged.instances["m:k"].size() == 2);
}

TEST_CASE("records: the cache reads a file again only when it changed") {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "qd-record-cache-test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "r.json").string();
  std::ofstream(path) << k_record;
  RecordCache cache;
  auto a = cache.get(path);
  auto b = cache.get(path);
  CHECK(a == b);
  CHECK(cache.reads() == 1);
  CHECK(a->ok);
  {
    std::ofstream out(path + ".tmp");
    out << R"({"format": "qdrt-record 1", "kernels": {}})";
  }
  std::filesystem::rename(path + ".tmp", path);  // as the recorder writes: a new inode
  auto c = cache.get(path);
  CHECK(c != a);
  CHECK(c->kernels.empty());
  std::filesystem::remove(path);
  auto d = cache.get(path);
  CHECK(!d->ok);
  CHECK(d->errors.size() == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("parse cache: an overlay stands for the file until it is cleared") {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "qd-overlay-test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "m.py").string();
  std::ofstream(path) << "x = 1\n";
  ParseCache cache;
  CHECK(cache.get(path)->source.text() == "x = 1\n");
  cache.set_overlay(path, "x = (\n");
  auto p = cache.get(path);
  CHECK(p->source.text() == "x = (\n");
  CHECK(!p->ok());
  CHECK(cache.get(path) == p);  // the same buffer: a hit
  cache.clear_overlay(path);
  CHECK(cache.get(path)->source.text() == "x = 1\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qd::sema
