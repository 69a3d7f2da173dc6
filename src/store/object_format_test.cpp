#include "store/object_format.hpp"

#include <doctest/doctest.h>
#include <random>
#include <string>

#include "qdrt/store_format.h"
#include "store/hashing.hpp"

using namespace qd::store;

namespace {

std::string random_bytes(size_t n, unsigned seed, bool compressible) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < n) {
    if (compressible) {
      s +=
          "  add.f32 %r" + std::to_string(rng() % 40) + ", %r" + std::to_string(rng() % 40) + ";\n";
    } else {
      s += static_cast<char>(rng());
    }
  }
  s.resize(n);
  return s;
}

}  // namespace

TEST_CASE("ObjectId: hex round trip, fan-out path, rejects non-hex") {
  ObjectId id = sha256("abc");
  CHECK(id.hex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(ObjectId::from_hex(id.hex()) == id);
  CHECK(ObjectId::from_hex("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD") ==
        id);
  CHECK(id.relative_path() ==
        "ba/7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.qdo");
  CHECK_FALSE(ObjectId::from_hex("../etc/passwd"));
  CHECK_FALSE(ObjectId::from_hex(std::string(64, 'g')));
  CHECK_FALSE(ObjectId::from_hex(id.hex().substr(1)));
}

TEST_CASE("objects round trip: compressible, incompressible, empty") {
  for (bool compressible : {true, false}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{200000}}) {
      std::string raw = random_bytes(n, static_cast<unsigned>(n), compressible);
      std::string file = encode_object(raw, 3);
      Result<ObjectHeaderInfo> h = parse_object_header(file, "x.qdo");
      REQUIRE(h.ok());
      CHECK(h->raw_size == n);
      CHECK(h->qdbuild_version == k_qdbuild_version);
      if (compressible && n >= 1000) {
        CHECK(h->codec == QDRT_CODEC_ZSTD);
        CHECK(file.size() < n / 2);
      }
      if (!compressible || n <= 1) {
        CHECK(h->codec == QDRT_CODEC_NONE);
      }
      Result<std::string> back = decode_object(file, "x.qdo");
      REQUIRE(back.ok());
      CHECK(*back == raw);
    }
  }
}

TEST_CASE("damaged objects are refused with the file's name") {
  std::string raw = random_bytes(50000, 7, true);
  std::string file = encode_object(raw);
  auto check_damaged = [](const std::string& bytes, const char* why) {
    Result<std::string> r = decode_object(bytes, "objects/ab/cd.qdo");
    REQUIRE_FALSE(r.ok());
    CHECK(r.failure().kind == FailureKind::corrupt);
    CHECK(r.error().find("object 'objects/ab/cd.qdo' is damaged") == 0);
    CHECK_MESSAGE(r.error().find(why) != std::string::npos, r.error());
  };
  check_damaged(file.substr(0, 10), "truncated");
  check_damaged(file.substr(0, file.size() - 1), "truncated");
  check_damaged(file + "x", "extended");
  std::string bad = file;
  bad[0] = 'X';
  check_damaged(bad, "wrong magic");
  bad = file;
  bad[8] = 2;
  check_damaged(bad, "version 2");
  bad = file;
  bad[24] ^= 1;  // raw size
  check_damaged(bad, "header checksum");
  // Every single-byte flip anywhere is caught (header checksum, frame checks, content checksum).
  for (size_t i = 0; i < file.size(); i += 97) {
    bad = file;
    bad[i] = static_cast<char>(bad[i] ^ 0x40);
    CHECK_FALSE(decode_object(bad, "o").ok());
  }
}

TEST_CASE("levels: level 19 is not larger than level 1, all decode") {
  std::string raw = random_bytes(100000, 3, true);
  size_t first = 0;
  for (int level : {1, 3, 9, 19}) {
    std::string file = encode_object(raw, level);
    CHECK(parse_object_header(file, "o")->level == level);
    CHECK(*decode_object(file, "o") == raw);
    if (level == 1) {
      first = file.size();
    } else {
      CHECK(file.size() <= first);
    }
  }
}
