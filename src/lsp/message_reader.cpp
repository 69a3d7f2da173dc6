#include "lsp/message_reader.hpp"

#include <cctype>
#include <charconv>

namespace qd::lsp {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

void MessageReader::feed(std::string_view bytes) {
  if (m_skip > 0) {
    size_t n = std::min(m_skip, bytes.size());
    m_skip -= n;
    bytes.remove_prefix(n);
  }
  m_buffer.append(bytes);
}

void MessageReader::compact() {
  if (m_pos > 0 && (m_pos == m_buffer.size() || m_pos > (size_t{1} << 16))) {
    m_buffer.erase(0, m_pos);
    m_pos = 0;
  }
}

MessageReader::Next MessageReader::next(std::string& body, std::string& error) {
  compact();
  std::string_view rest(m_buffer.data() + m_pos, m_buffer.size() - m_pos);
  // Blank lines between messages are tolerated (some clients end a body with a newline).
  size_t lead = 0;
  while (lead < rest.size() && (rest[lead] == '\r' || rest[lead] == '\n')) {
    ++lead;
  }
  rest.remove_prefix(lead);
  m_pos += lead;
  size_t end = rest.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (rest.size() > k_max_header_bytes) {
      error = "a header block longer than " + std::to_string(k_max_header_bytes) +
              " bytes without its end (\\r\\n\\r\\n): dropped";
      m_pos = m_buffer.size();
      return Next::error;
    }
    return Next::need_more;
  }
  std::string_view headers = rest.substr(0, end);
  size_t header_bytes = end + 4;
  if (headers.size() > k_max_header_bytes) {
    error = "a header block longer than " + std::to_string(k_max_header_bytes) + " bytes";
    m_pos += header_bytes;
    return Next::error;
  }
  bool have_length = false;
  size_t length = 0;
  std::string problem;
  while (!headers.empty()) {
    size_t nl = headers.find("\r\n");
    std::string_view line = headers.substr(0, nl);
    headers = nl == std::string_view::npos ? std::string_view() : headers.substr(nl + 2);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      problem = "a header line without ':'";
      continue;
    }
    std::string_view name = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (iequals(name, "Content-Length")) {
      size_t v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || p != value.data() + value.size() || value.empty()) {
        problem = "Content-Length is not a number";
        continue;
      }
      have_length = true;
      length = v;
    }
    // Content-Type and other headers: accepted, not needed (UTF-8 JSON is the only type).
  }
  if (!have_length) {
    error = problem.empty() ? "a message without a Content-Length header" : problem;
    m_pos += header_bytes;
    return Next::error;
  }
  if (length > k_max_body_bytes) {
    error = "a message of " + std::to_string(length) + " bytes (more than " +
            std::to_string(k_max_body_bytes) + "): skipped";
    m_pos += header_bytes;
    size_t have = m_buffer.size() - m_pos;
    size_t drop = std::min(have, length);
    m_pos += drop;
    m_skip = length - drop;
    return Next::error;
  }
  if (rest.size() - header_bytes < length) {
    return Next::need_more;
  }
  body.assign(rest.data() + header_bytes, length);
  m_pos += header_bytes + length;
  return Next::message;
}

std::string frame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

}  // namespace qd::lsp
