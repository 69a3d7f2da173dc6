// A terminal line printer (ninja's LinePrinter): on a smart terminal one status line is
// overprinted in place ("\r" + text + ESC[K), elided in the middle to the terminal's width; other
// output first clears it. A terminal is smart only if stdout is a TTY and TERM is not "dumb".
// Colour: NO_COLOR (non-empty) turns it off; CLICOLOR_FORCE or FORCE_COLOR (non-empty, not "0")
// turn it on even off a terminal; otherwise colour iff smart.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace qd::build {

// `text` cut to `width` columns (bytes; UTF-8 continuation bytes do not count) by replacing its
// middle with "...". Width < 4: the first `width` columns.
std::string elide_middle(std::string_view text, size_t width);

struct TerminalInfo {
  bool smart = false;
  bool color = false;
  size_t width = 80;
};

// From isatty(1), TERM, the colour variables and TIOCGWINSZ (COLUMNS as a fallback).
TerminalInfo detect_terminal();
// The colour decision alone, for tests: `getenv` looks variables up.
bool color_wanted(bool smart, const std::function<const char*(const char*)>& getenv);

class LinePrinter {
public:
  using Sink = std::function<void(std::string_view)>;

  LinePrinter();  // detect_terminal(), writing to stdout
  LinePrinter(TerminalInfo info, Sink sink);

  bool smart() const { return m_info.smart; }
  bool color() const { return m_info.color; }

  // Overprints the status line (smart terminals only; elsewhere nothing).
  void status(std::string_view line);
  // Prints whole lines (`text` should end in '\n'), clearing the status line first.
  void print(std::string_view text);
  // Clears the status line, if one is shown.
  void clear();
  // `text` in bold red when colour is on.
  std::string red(std::string_view text) const;

private:
  TerminalInfo m_info;
  Sink m_sink;
  bool m_have_status = false;
};

}  // namespace qd::build
