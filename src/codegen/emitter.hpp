// A small indent-aware text emitter for generated C++.
#pragma once

#include <string>
#include <string_view>

namespace qd::codegen {

class Emitter {
public:
  void line(std::string_view text = {}) {
    if (!text.empty()) {
      m_out.append(static_cast<size_t>(m_indent) * 2, ' ');
      m_out += text;
    }
    m_out += '\n';
  }
  void open(std::string_view text) {  // "if (c) {"
    line(text);
    ++m_indent;
  }
  void close(std::string_view text = "}") {
    --m_indent;
    line(text);
  }
  void reopen(std::string_view text) {  // "} else {"
    --m_indent;
    line(text);
    ++m_indent;
  }
  // Text another emitter wrote, each of its lines indented to this one's level.
  void lines(std::string_view text) {
    while (!text.empty()) {
      size_t nl = text.find('\n');
      line(text.substr(0, nl));
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    }
  }
  const std::string& text() const { return m_out; }
  std::string take() { return std::move(m_out); }

private:
  std::string m_out;
  int m_indent = 0;
};

}  // namespace qd::codegen
