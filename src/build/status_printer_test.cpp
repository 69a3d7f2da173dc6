#include "build/status_printer.hpp"

#include <doctest/doctest.h>
#include <map>
#include <string>

#include "build/line_printer.hpp"

using namespace qd::build;

namespace {

struct Captured {
  std::string out;
  LinePrinter printer(bool smart, bool color, size_t width = 40) {
    return LinePrinter({smart, color, width}, [this](std::string_view s) { out += s; });
  }
};

TaskEvent task(const std::string& where) { return {"m:k", "", where, "for i in range(n)"}; }

}  // namespace

TEST_CASE("elide_middle") {
  CHECK(elide_middle("short", 10) == "short");
  CHECK(elide_middle("0123456789", 10) == "0123456789");
  CHECK(elide_middle("0123456789abcdef", 10) == "012...cdef");
  CHECK(elide_middle("0123456789", 3) == "012");
  // UTF-8: characters, not bytes, are counted and never split.
  CHECK(elide_middle("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 5) ==
        "\xc3\xa9...\xc3\xa9");
}

TEST_CASE("color_wanted: NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR") {
  std::map<std::string, std::string> env;
  auto get = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  CHECK(color_wanted(true, get));
  CHECK_FALSE(color_wanted(false, get));
  env["FORCE_COLOR"] = "1";
  CHECK(color_wanted(false, get));
  env["FORCE_COLOR"] = "0";
  CHECK_FALSE(color_wanted(false, get));
  env["CLICOLOR_FORCE"] = "1";
  CHECK(color_wanted(false, get));
  env["NO_COLOR"] = "1";
  CHECK_FALSE(color_wanted(true, get));
  env["NO_COLOR"] = "";
  CHECK(color_wanted(false, get));
}

TEST_CASE("StatusPrinter on a smart terminal: one overprinted, elided line") {
  Captured c;
  StatusPrinter s(c.printer(true, true, 30));
  s.planned(2);
  s.compile_started(task("examples/heat.py:step#0"));
  CHECK(c.out == "\r[0/2] compile...eat.py:step#0\x1b[K");
  c.out.clear();
  s.compile_finished(task("examples/heat.py:step#0"), true);
  CHECK(c.out == "\r[1/2] compile...eat.py:step#0\x1b[K");
  c.out.clear();
  s.compile_started(task("a.py:k#1"));  // after the first finish: not reprinted
  CHECK(c.out.empty());
  s.compile_finished(task("a.py:k#1"), true);
  CHECK(c.out == "\r[2/2] compile a.py:k#1\x1b[K");
  c.out.clear();
  s.info("qdbuild explain: kernel 'm:k': not built before");
  CHECK(c.out == "\r\x1b[Kqdbuild explain: kernel 'm:k': not built before\n");
  c.out.clear();
  s.finish("qdbuild: no work to do.");
  CHECK(c.out == "qdbuild: no work to do.\n");
}

TEST_CASE("StatusPrinter off a terminal: nothing per task; failures and the summary") {
  Captured c;
  StatusPrinter s(c.printer(false, false));
  s.planned(1);
  s.compile_started(task("a.py:k#0"));
  s.compile_finished(task("a.py:k#0"), false);
  CHECK(c.out.empty());
  qd::sema::Analysis a;
  s.kernel_failed(a, "m:k", {}, {"internal error, please report: x"});
  CHECK(c.out == "FAILED: m:k\ninternal error, please report: x\n");
  c.out.clear();
  s.finish("qdbuild: build stopped: 1 kernel failed.");
  CHECK(c.out == "qdbuild: build stopped: 1 kernel failed.\n");
}

TEST_CASE("StatusPrinter: FAILED in red when colour is on; diagnostics as code frames") {
  Captured c;
  StatusPrinter s(c.printer(false, true));
  qd::sema::Analysis a;
  qd::sema::SemaDiagnostic d;
  d.path = "qdbuild.toml";
  d.d.severity = qd::syntax::Severity::Error;
  d.d.code = "QD112";
  d.d.line = 3;
  d.d.message = "bad";
  s.kernel_failed(a, "m:k", {d}, {});
  CHECK(c.out == "\x1b[1;31mFAILED:\x1b[0m m:k\nqdbuild.toml:3:1: error: bad [QD112]\n");
}

// A recording Status: what the builder would tell a printer, in order.
class RecordingStatus : public Status {
public:
  std::vector<std::string> events;
  void planned(size_t n) override { events.push_back("planned " + std::to_string(n)); }
  void compile_started(const TaskEvent& t) override { events.push_back("start " + t.where); }
  void compile_finished(const TaskEvent& t, bool ok) override {
    events.push_back(std::string(ok ? "done " : "fail ") + t.where);
  }
  void info(const std::string& m) override { events.push_back("info " + m); }
};

TEST_CASE("Status: defaults ignore events; a recording Status sees them in order") {
  Status quiet;
  quiet.planned(3);
  quiet.info("x");
  RecordingStatus r;
  Status& s = r;
  s.planned(1);
  s.compile_started(task("a.py:k#0"));
  s.compile_finished(task("a.py:k#0"), true);
  s.warning("ignored by the recorder");
  CHECK(r.events == std::vector<std::string>{"planned 1", "start a.py:k#0", "done a.py:k#0"});
}
