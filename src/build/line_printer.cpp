#include "build/line_printer.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/ioctl.h>
#include <unistd.h>

namespace qd::build {

namespace {

size_t columns(std::string_view s) {
  size_t n = 0;
  for (char c : s) {
    n += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
  }
  return n;
}

// The byte offset after `cols` columns from the start.
size_t prefix_bytes(std::string_view s, size_t cols) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (n == cols) {
        return i;
      }
      ++n;
    }
  }
  return s.size();
}

// The byte offset where the last `cols` columns start.
size_t suffix_start(std::string_view s, size_t cols) {
  size_t n = 0;
  size_t i = s.size();
  while (i > 0 && n < cols) {
    --i;
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      ++n;
    }
  }
  return i;
}

bool set(const char* v) { return v != nullptr && *v != '\0'; }

}  // namespace

std::string elide_middle(std::string_view text, size_t width) {
  size_t cols = columns(text);
  if (cols <= width) {
    return std::string(text);
  }
  if (width < 4) {
    return std::string(text.substr(0, prefix_bytes(text, width)));
  }
  size_t keep = width - 3;
  size_t head = keep / 2;
  size_t tail = keep - head;
  return std::string(text.substr(0, prefix_bytes(text, head))) + "..." +
         std::string(text.substr(suffix_start(text, tail)));
}

bool color_wanted(bool smart, const std::function<const char*(const char*)>& getenv) {
  if (set(getenv("NO_COLOR"))) {
    return false;
  }
  for (const char* name : {"CLICOLOR_FORCE", "FORCE_COLOR"}) {
    const char* v = getenv(name);
    if (set(v) && std::strcmp(v, "0") != 0) {
      return true;
    }
  }
  return smart;
}

TerminalInfo detect_terminal() {
  TerminalInfo t;
  const char* term = std::getenv("TERM");
  t.smart = ::isatty(1) != 0 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
  t.color = color_wanted(t.smart, [](const char* name) { return std::getenv(name); });
  winsize ws{};
  if (::ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    t.width = ws.ws_col;
  } else if (const char* c = std::getenv("COLUMNS"); set(c) && std::atoi(c) > 0) {
    t.width = static_cast<size_t>(std::atoi(c));
  }
  return t;
}

LinePrinter::LinePrinter()
    : LinePrinter(detect_terminal(), [](std::string_view s) {
        std::fwrite(s.data(), 1, s.size(), stdout);
        std::fflush(stdout);
      }) {}

LinePrinter::LinePrinter(TerminalInfo info, Sink sink) : m_info(info), m_sink(std::move(sink)) {}

void LinePrinter::status(std::string_view line) {
  if (!m_info.smart) {
    return;
  }
  // One column is left free: writing the last column makes some terminals wrap.
  std::string text = "\r" + elide_middle(line, m_info.width > 1 ? m_info.width - 1 : 1) + "\x1b[K";
  m_sink(text);
  m_have_status = true;
}

void LinePrinter::clear() {
  if (m_have_status) {
    m_sink("\r\x1b[K");
    m_have_status = false;
  }
}

void LinePrinter::print(std::string_view text) {
  clear();
  m_sink(text);
}

std::string LinePrinter::red(std::string_view text) const {
  if (!m_info.color) {
    return std::string(text);
  }
  return "\x1b[1;31m" + std::string(text) + "\x1b[0m";
}

}  // namespace qd::build
