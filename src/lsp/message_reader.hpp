// The base protocol of the Language Server Protocol: messages framed by a `Content-Length`
// header (https://microsoft.github.io/language-server-protocol/, "Base Protocol"). The reader
// takes bytes as they arrive and hands out whole message bodies; it never trusts the peer:
// a header block without a valid Content-Length, an oversized header or body, or bytes that are
// not a header are errors the server answers (or logs) and then resynchronises past.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace qd::lsp {

// A body larger than this is refused (and skipped): a hostile or broken client cannot make the
// server hold more than one such buffer.
inline constexpr size_t k_max_body_bytes = size_t{64} << 20;
inline constexpr size_t k_max_header_bytes = 8192;

class MessageReader {
public:
  enum class Next {
    message,    // `body` holds one message's content
    need_more,  // feed more bytes
    error,      // `error` says what was wrong; the bad bytes are dropped, reading can go on
  };

  void feed(std::string_view bytes);
  Next next(std::string& body, std::string& error);
  size_t buffered() const { return m_buffer.size() - m_pos; }

private:
  std::string m_buffer;
  size_t m_pos = 0;   // start of unread bytes in m_buffer
  size_t m_skip = 0;  // bytes of a refused body still to drop as they arrive
  void compact();
};

// `body` framed for the wire.
std::string frame(std::string_view body);

}  // namespace qd::lsp
