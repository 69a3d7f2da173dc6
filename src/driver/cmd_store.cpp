// qdbuild store stats|verify|gc|ls|pack|inspect: manage an artifact store (docs/store.md).
//
// Every subcommand takes --store PATH: a directory store, or (for stats, verify, ls, inspect) a
// pack. The default is $QDBUILD_STORE, else build/qdstore. Exit status: 0 ok; 1 damage found or bad
// input (no such store, unknown target or address); 2 usage; 3 environment (I/O) failure.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/command_line.hpp"
#include "driver/commands.hpp"
#include "qdbuild/project.hpp"
#include "store/backend.hpp"
#include "store/gc.hpp"
#include "store/local_store.hpp"
#include "store/pack.hpp"
#include "store/summary.hpp"
#include "store/verify.hpp"

namespace qd::driver {

std::string default_store() {
  // As qdbuild build resolves it (qdbuild::default_store). A project whose config has errors
  // counts as none here: `qdbuild store` reports no config problems.
  qdbuild::Project p = qdbuild::find_project(".");
  return qdbuild::default_store(p.errors.empty() ? p : qdbuild::Project());
}

namespace {

using Json = nlohmann::ordered_json;

void error(const std::string& message) {
  std::fprintf(stderr, "qdbuild: error: %s\n", message.c_str());
}

ExitStatus status_of(store::FailureKind kind) {
  return kind == store::FailureKind::io ? ExitStatus::internal : ExitStatus::input_error;
}

ExitStatus report(const store::Failure& f) {
  error(f.error);
  return status_of(f.kind);
}

// Kernel ids are any bytes: show control bytes escaped and cut very long ones.
std::string printable(std::string_view s, size_t limit = 120) {
  std::string out;
  for (size_t i = 0; i < s.size() && out.size() < limit; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (out.size() >= limit && s.size() > limit) {
    out += "...(" + std::to_string(s.size()) + " bytes)";
  }
  return out;
}

std::string human_bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string time_text(int64_t t) {
  if (t <= 0) {
    return "-";
  }
  time_t tt = static_cast<time_t>(t);
  struct tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
  return buf;
}

void print_json_indented(const Json& j) {
  std::string text = j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
}

Json build_stats_json(const store::BuildStats& s, size_t builds) {
  return Json{{"builds", builds},
              {"hits", s.hits},
              {"misses", s.misses},
              {"compile_ms", s.compile_ms},
              {"saved_ms", s.saved_ms},
              {"remote",
               {{"hits", s.remote_hits},
                {"misses", s.remote_misses},
                {"errors", s.remote_errors},
                {"corrupt", s.remote_corrupt},
                {"bytes_down", s.bytes_down},
                {"bytes_up", s.bytes_up},
                {"saved_ms", s.remote_saved_ms},
                {"requests", s.remote_requests}}}};
}

ExitStatus run_stats(store::Backend& st, bool json, size_t recent) {
  store::StoreSummary s = store::summarize_store(st);
  std::vector<store::BuildStats> records;
  if (s.build_log) {
    records = s.build_log->records;
  }
  size_t recent_n = std::min(recent, records.size());
  store::BuildStats last = store::sum_build_stats(records, recent == 0 ? records.size() : recent);
  store::BuildStats total = store::sum_build_stats(records);
  if (json) {
    Json j;
    j["store"] = st.describe();
    j["objects"] = s.objects;
    j["raw_bytes"] = s.raw_bytes;
    j["stored_bytes"] = s.stored_bytes;
    j["ratio"] = s.ratio();
    j["unreferenced_objects"] = s.unreferenced_objects;
    j["unreferenced_bytes"] = s.unreferenced_bytes;
    j["entries"] = s.entries;
    j["entries_per_target"] = Json::object();
    for (const auto& [target, n] : s.entries_per_target) {
      j["entries_per_target"][target] = n;
    }
    j["builds"] = {{"recorded", records.size()},
                   {"recent", build_stats_json(last, recent_n)},
                   {"total", build_stats_json(total, records.size())}};
    j["problems"] = s.problems;
    print_json_indented(j);
  } else {
    std::printf("store:          %s\n", st.describe().c_str());
    std::printf("objects:        %zu (%zu unreferenced, %s)\n", s.objects, s.unreferenced_objects,
                human_bytes(s.unreferenced_bytes).c_str());
    std::printf("raw bytes:      %s (%" PRIu64 ")\n", human_bytes(s.raw_bytes).c_str(),
                s.raw_bytes);
    std::printf("stored bytes:   %s (%" PRIu64 ")\n", human_bytes(s.stored_bytes).c_str(),
                s.stored_bytes);
    std::printf("ratio:          %.2f\n", s.ratio());
    std::printf("entries:        %zu\n", s.entries);
    for (const auto& [target, n] : s.entries_per_target) {
      std::printf("  %-12s  %zu\n", printable(target).c_str(), n);
    }
    std::printf("builds:         %zu recorded\n", records.size());
    if (!records.empty()) {
      uint64_t lookups = last.hits + last.misses;
      std::printf("last %zu builds: %" PRIu64 " hits, %" PRIu64 " misses (%.1f%% hits), compile "
                  "time %.1f s, saved %.1f s\n",
                  recent_n, last.hits, last.misses,
                  lookups == 0 ? 0.0 : 100.0 * static_cast<double>(last.hits) / lookups,
                  last.compile_ms / 1000.0, last.saved_ms / 1000.0);
      if (last.remote) {
        std::printf("remote cache:   %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64
                    " errors (%" PRIu64 " corrupt), %s down, %s up, %" PRIu64
                    " requests, saved %.1f s\n",
                    last.remote_hits, last.remote_misses, last.remote_errors, last.remote_corrupt,
                    human_bytes(last.bytes_down).c_str(), human_bytes(last.bytes_up).c_str(),
                    last.remote_requests, last.remote_saved_ms / 1000.0);
      }
    }
  }
  for (const std::string& p : s.problems) {
    error(p);
  }
  return s.problems.empty() ? ExitStatus::ok : ExitStatus::input_error;
}

ExitStatus run_verify(store::Backend& st, bool json) {
  store::VerifyReport r = store::verify_store(st);
  if (json) {
    print_json_indented(Json{{"store", st.describe()},
                             {"objects_checked", r.objects_checked},
                             {"entries_checked", r.entries_checked},
                             {"damage", r.damage},
                             {"notes", r.notes}});
  } else {
    for (const std::string& n : r.notes) {
      std::fprintf(stderr, "qdbuild: note: %s\n", n.c_str());
    }
    std::printf("%s: %zu objects, %zu entries checked: %s\n", st.describe().c_str(),
                r.objects_checked, r.entries_checked,
                r.clean() ? "no damage"
                          : (std::to_string(r.damage.size()) + " damaged or missing").c_str());
  }
  for (const std::string& d : r.damage) {
    error(d);
  }
  return r.clean() ? ExitStatus::ok : ExitStatus::input_error;
}

ExitStatus run_gc(store::Backend& st, const store::GcOptions& options, bool json) {
  auto* local = dynamic_cast<store::LocalStore*>(&st);
  if (local == nullptr) {
    error("gc works on directory stores; " + st.describe() + " is read-only");
    return ExitStatus::input_error;
  }
  store::Result<store::GcReport> r = store::collect_garbage(*local, options);
  if (!r) {
    return report(r.failure());
  }
  uint64_t after = r->bytes_before - r->bytes_removed;
  if (json) {
    print_json_indented(Json{{"store", st.describe()},
                             {"dry_run", options.dry_run},
                             {"entries_before", r->entries_before},
                             {"entries_evicted", r->entries_evicted},
                             {"objects_before", r->objects_before},
                             {"objects_removed", r->objects_removed},
                             {"bytes_before", r->bytes_before},
                             {"bytes_removed", r->bytes_removed},
                             {"bytes_after", after},
                             {"temps_removed", r->temps_removed}});
  } else {
    std::printf("%s%s: evicted %zu of %zu entries, removed %zu of %zu objects (%s), %zu temp "
                "files; %s left\n",
                options.dry_run ? "dry run: " : "", st.describe().c_str(), r->entries_evicted,
                r->entries_before, r->objects_removed, r->objects_before,
                human_bytes(r->bytes_removed).c_str(), r->temps_removed,
                human_bytes(after).c_str());
  }
  for (const std::string& w : r->warnings) {
    std::fprintf(stderr, "qdbuild: warning: %s\n", w.c_str());
  }
  return ExitStatus::ok;
}

ExitStatus run_ls(store::Backend& st, bool json, const std::vector<std::string>& targets) {
  store::Result<std::vector<store::EntrySummary>> rows = store::list_entries(st);
  if (!rows) {
    return report(rows.failure());
  }
  auto wanted = [&](const store::EntrySummary& r) {
    return targets.empty() || std::find(targets.begin(), targets.end(), r.target) != targets.end();
  };
  size_t missing = 0;
  std::vector<std::string> missing_names;
  auto note_missing = [&](const store::EntrySummary& r) {
    missing += r.missing_objects;
    for (const std::string& name : r.missing_names) {
      missing_names.push_back("object '" + name + "' is missing (used by kernel '" +
                              printable(r.kernel_id) + "')");
    }
  };
  if (json) {
    Json entries = Json::array();
    for (const store::EntrySummary& r : *rows) {
      if (wanted(r)) {
        entries.push_back({{"kernel", r.kernel_id},
                           {"instance", r.instance},
                           {"target", r.target},
                           {"tasks", r.tasks},
                           {"arguments", r.arguments},
                           {"objects", r.objects},
                           {"bytes", r.bytes},
                           {"missing_objects", r.missing_objects},
                           {"last_used", r.last_used}});
        note_missing(r);
      }
    }
    print_json_indented(Json{{"store", st.describe()}, {"entries", entries}});
  } else {
    std::printf("%-40s  %-24s  %-12s  %5s  %10s  %s\n", "KERNEL", "INSTANCE", "TARGET", "TASKS",
                "SIZE", "LAST USED");
    for (const store::EntrySummary& r : *rows) {
      if (wanted(r)) {
        std::printf("%-40s  %-24s  %-12s  %5zu  %10s  %s\n", printable(r.kernel_id).c_str(),
                    printable(r.instance).c_str(), printable(r.target).c_str(), r.tasks,
                    human_bytes(r.bytes).c_str(), time_text(r.last_used).c_str());
        note_missing(r);
      }
    }
  }
  for (const std::string& m : missing_names) {
    error(m);
  }
  if (missing > 0) {
    error(std::to_string(missing) + " objects are missing (run `qdbuild store verify`)");
    return ExitStatus::input_error;
  }
  return ExitStatus::ok;
}

ExitStatus run_pack(store::Backend& st, const std::string& out,
                    const std::vector<std::string>& targets) {
  store::Result<store::PackSummary> r = store::write_pack(st, out, targets);
  if (!r) {
    return report(r.failure());
  }
  std::printf("wrote %s: %zu entries, %zu objects, %s\n", out.c_str(), r->entries, r->objects,
              human_bytes(r->bytes).c_str());
  return ExitStatus::ok;
}

ExitStatus run_inspect(store::Backend& st, const std::string& address, bool json) {
  std::optional<store::ObjectId> id = store::ObjectId::from_hex(address);
  if (!id) {
    // A unique prefix of at least 4 hex digits names an object too.
    store::Result<std::vector<store::ObjectInfo>> all = st.list_objects();
    if (!all) {
      return report(all.failure());
    }
    std::vector<store::ObjectId> matches;
    for (const store::ObjectInfo& o : *all) {
      if (address.size() >= 4 && o.id.hex().compare(0, address.size(), address) == 0) {
        matches.push_back(o.id);
      }
    }
    if (matches.size() != 1) {
      error("'" + printable(address) + "' " +
            (matches.empty() ? "names no object in " + st.describe()
                             : "is ambiguous (" + std::to_string(matches.size()) + " objects)") +
            " (give the 64-hex-digit address or a unique prefix of at least 4)");
      return ExitStatus::input_error;
    }
    id = matches[0];
  }
  store::Result<std::string> file = st.get_file(*id);
  if (!file) {
    return report(file.failure());
  }
  std::string name = st.object_name(*id);
  store::Result<store::ObjectHeaderInfo> h = store::parse_object_header(*file, name);
  if (!h) {
    return report(h.failure());
  }
  store::Result<std::string> raw = store::decode_object(*file, name);
  std::string problem = !raw ? raw.error()
                        : store::sha256(*raw) != *id
                            ? "object '" + name + "' is damaged: content does not match its address"
                            : "";
  std::string checksum;
  for (uint8_t b : h->content_xxh3_128) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", b);
    checksum += buf;
  }
  double ratio = file->empty() ? 1.0 : static_cast<double>(h->raw_size) / file->size();
  if (json) {
    print_json_indented(Json{{"address", id->hex()},
                             {"file", name},
                             {"format_version", h->format_version},
                             {"codec", store::codec_name(h->codec)},
                             {"level", h->level},
                             {"raw_size", h->raw_size},
                             {"file_size", file->size()},
                             {"ratio", ratio},
                             {"qdbuild_version", h->qdbuild_version},
                             {"content_xxh3_128", checksum},
                             {"verified", problem.empty()}});
  } else {
    std::printf("address:         %s\nfile:            %s\nformat version:  %u\n"
                "codec:           %s (level %d)\nraw size:        %" PRIu64 "\nfile size:       "
                "%zu (ratio %.2f)\nqdbuild version: %s\ncontent xxh3:    %s\nverified:        %s\n",
                id->hex().c_str(), name.c_str(), h->format_version, store::codec_name(h->codec),
                h->level, h->raw_size, file->size(), ratio, printable(h->qdbuild_version).c_str(),
                checksum.c_str(), problem.empty() ? "yes (checksum and SHA-256)" : "NO");
  }
  if (!problem.empty()) {
    error(problem);
    return ExitStatus::input_error;
  }
  return ExitStatus::ok;
}

}  // namespace

ExitStatus cmd_store(int argc, char** argv) {
  CommandLine app("Manage an artifact store: a directory (default $QDBUILD_STORE, else "
                  "build/qdstore) or, read-only, a pack. See docs/store.md.",
                  "qdbuild store");
  app.fallthrough();
  app.require_subcommand(1);
  std::string path = default_store();
  app.add_option("--store", path, "the store directory or pack (default: " + path + ")");
  bool json = false;
  size_t recent = 10;
  std::string size_text;
  long grace = 600;
  bool dry_run = false;
  std::vector<std::string> targets;
  std::string out;
  std::string address;

  CommandLine& stats =
      app.add_subcommand("stats", "objects, sizes, ratio, entries per target, hits");
  stats.add_flag("--json", json, "print JSON");
  stats.add_option("--recent", recent, "builds summed as recent (default 10; 0: all)");
  CommandLine& verify = app.add_subcommand("verify", "check every object and the index (exit 1 on "
                                                     "damage)");
  verify.add_flag("--json", json, "print JSON");
  CommandLine& gc =
      app.add_subcommand("gc", "drop unreferenced objects; evict LRU entries to a size");
  gc.add_option("--max-size", size_text,
                "evict least recently used entries until the objects "
                "fit in SIZE (bytes, or with K/M/G/T suffixes)");
  gc.add_option("--grace", grace,
                "keep unreferenced objects younger than this many seconds "
                "(default 600: a running build's)");
  gc.add_flag("--dry-run", dry_run, "report what would go; change nothing");
  gc.add_flag("--json", json, "print JSON");
  CommandLine& ls = app.add_subcommand("ls", "list kernels, instances, targets and sizes");
  ls.add_flag("--json", json, "print JSON");
  ls.add_option("--target", targets, "only these targets");
  CommandLine& pack =
      app.add_subcommand("pack", "write the index and reachable objects to one file");
  pack.add_option("OUT", out, "the pack file to write").required();
  pack.add_option("--target", targets, "only these targets (repeatable; default: all)");
  CommandLine& inspect = app.add_subcommand("inspect", "describe one object (header, checks)");
  inspect.add_option("ADDRESS", address, "SHA-256 address, or a unique prefix").required();
  inspect.add_flag("--json", json, "print JSON");
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }
  store::GcOptions gc_options;
  if (!size_text.empty()) {
    gc_options.max_size = store::parse_size(size_text);
    if (!gc_options.max_size) {
      error("--max-size: '" + size_text + "' is not a size (e.g. 500M, 2G, 123456)");
      return ExitStatus::usage;
    }
  }
  if (grace < 0) {
    error("--grace: must not be negative");
    return ExitStatus::usage;
  }
  gc_options.grace = std::chrono::seconds(grace);
  gc_options.dry_run = dry_run;

  store::Result<std::unique_ptr<store::Backend>> opened = store::open_store(path);
  if (!opened) {
    return report(opened.failure());
  }
  store::Backend& st = **opened;
  ExitStatus status = ExitStatus::ok;
  if (stats.parsed()) {
    status = run_stats(st, json, recent);
  } else if (verify.parsed()) {
    status = run_verify(st, json);
  } else if (gc.parsed()) {
    status = run_gc(st, gc_options, json);
  } else if (ls.parsed()) {
    status = run_ls(st, json, targets);
  } else if (pack.parsed()) {
    status = run_pack(st, out, targets);
  } else if (inspect.parsed()) {
    status = run_inspect(st, address, json);
  }
  std::fflush(stdout);
  return status;
}

}  // namespace qd::driver
