#include "lsp/message_reader.hpp"

#include <doctest/doctest.h>

namespace qd::lsp {
namespace {

TEST_CASE("lsp framing: whole, split, back to back, bad headers") {
  MessageReader r;
  std::string body;
  std::string error;
  r.feed(frame("{\"a\":1}") + frame("[]"));
  CHECK(r.next(body, error) == MessageReader::Next::message);
  CHECK(body == "{\"a\":1}");
  CHECK(r.next(body, error) == MessageReader::Next::message);
  CHECK(body == "[]");
  CHECK(r.next(body, error) == MessageReader::Next::need_more);

  // One byte at a time; the header name in any case, other headers ignored.
  std::string wire = "content-length:  2 \r\nContent-Type: x\r\n\r\n{}";
  for (size_t i = 0; i + 1 < wire.size(); ++i) {
    r.feed(wire.substr(i, 1));
    CHECK(r.next(body, error) == MessageReader::Next::need_more);
  }
  r.feed(wire.substr(wire.size() - 1));
  CHECK(r.next(body, error) == MessageReader::Next::message);
  CHECK(body == "{}");

  r.feed("Content-Type: x\r\n\r\n" + frame("1"));
  CHECK(r.next(body, error) == MessageReader::Next::error);
  CHECK(error.find("Content-Length") != std::string::npos);
  CHECK(r.next(body, error) == MessageReader::Next::message);  // resynchronised
  CHECK(body == "1");

  r.feed("Content-Length: -3\r\n\r\n" + frame("2"));
  CHECK(r.next(body, error) == MessageReader::Next::error);
  CHECK(r.next(body, error) == MessageReader::Next::message);
  CHECK(body == "2");
}

TEST_CASE("lsp framing: an oversized body is skipped as it arrives") {
  MessageReader r;
  std::string body;
  std::string error;
  size_t n = k_max_body_bytes + 10;
  r.feed("Content-Length: " + std::to_string(n) + "\r\n\r\nabc");
  CHECK(r.next(body, error) == MessageReader::Next::error);
  r.feed(std::string(n - 3, 'x') + frame("ok"));
  CHECK(r.next(body, error) == MessageReader::Next::message);
  CHECK(body == "ok");
}

TEST_CASE("lsp framing: a header block that never ends is dropped") {
  MessageReader r;
  std::string body;
  std::string error;
  r.feed(std::string(k_max_header_bytes + 1, 'h'));
  CHECK(r.next(body, error) == MessageReader::Next::error);
  CHECK(r.buffered() == 0);
}

}  // namespace
}  // namespace qd::lsp
