#include "store/remote.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>

#include <doctest/doctest.h>
#include <zstd.h>

#include <cstddef>
#include <cstring>

#include "qdrt/store_format.h"
#include "store/build_stats.hpp"
#include "store/object_format.hpp"
#include "store/remote_config.hpp"
#include "store/remote_signing.hpp"
#include "support/file_io.hpp"

namespace qd::store {

namespace {

const std::string k_key(64, 'a');

TaskRecord record_of(const std::string& content, uint64_t ms) { return {sha256(content), ms}; }

// A remote in memory, for the RemoteSet's policy (the servers themselves: tests/remote).
class MemoryRemote : public RemoteBackend {
public:
  std::map<std::string, std::string> values;  // "task:key" / "object:hex"
  RemoteError fail_with = RemoteError::ok;
  bool raw = false;

  std::string describe() const override { return "memory://test"; }
  bool raw_objects() const override { return raw; }
  std::vector<RemoteResult> get_many(RemoteKind kind,
                                     const std::vector<std::string>& keys) override {
    std::vector<RemoteResult> out;
    for (const std::string& k : keys) {
      RemoteResult r;
      if (breaker().is_open()) {
        r.error = RemoteError::skipped;
        out.push_back(r);
        continue;
      }
      ++m_requests;
      if (fail_with != RemoteError::ok) {
        r.error = fail_with;
      } else if (auto it = values.find(name(kind, k)); it != values.end()) {
        r.body = it->second;
      } else {
        r.error = RemoteError::not_found;
      }
      breaker().note(r.error);
      out.push_back(r);
    }
    return out;
  }
  std::vector<RemoteResult> has_many(RemoteKind kind,
                                     const std::vector<std::string>& keys) override {
    return get_many(kind, keys);
  }
  std::vector<RemoteResult> put_many(const std::vector<RemoteItem>& items) override {
    std::vector<RemoteResult> out;
    for (const RemoteItem& it : items) {
      RemoteResult r;
      r.error = fail_with;
      if (fail_with == RemoteError::ok) {
        values[name(it.kind, it.key)] = it.body;
      }
      breaker().note(r.error);
      out.push_back(r);
    }
    return out;
  }
  static std::string name(RemoteKind kind, const std::string& k) {
    return (kind == RemoteKind::task ? "task:" : "object:") + k;
  }
};

struct Fixture {
  MemoryRemote* mem = nullptr;
  std::vector<std::string> warnings;
  std::unique_ptr<RemoteSet> set;

  explicit Fixture(std::shared_ptr<const RecordSigner> signer = nullptr, bool read_only = false) {
    auto m = std::make_unique<MemoryRemote>();
    mem = m.get();
    std::vector<RemoteEndpoint> eps;
    RemoteEndpoint ep;
    ep.backend = std::move(m);
    ep.read_only = read_only;
    eps.push_back(std::move(ep));
    set = std::make_unique<RemoteSet>(std::move(eps), std::move(signer),
                                      [this](const std::string& w) { warnings.push_back(w); });
  }
};

const auto k_no_object = [](const ObjectId&) { return false; };

}  // namespace

TEST_CASE("remote: URLs, attributes and credentials") {
  RemoteSpec s;
  std::string error;
  REQUIRE(parse_remote_url("http://127.0.0.1:8080/cache/|read-only|timeout=250", true, s, error));
  CHECK(s.scheme == "http");
  CHECK(s.host == "127.0.0.1");
  CHECK(s.port == 8080);
  CHECK(s.path == "/cache");
  CHECK(s.read_only);
  CHECK(s.timeout_ms == 250);
  CHECK(s.layout == RemoteLayout::plain);
  CHECK(s.display() == "http://127.0.0.1:8080/cache");

  REQUIRE(parse_remote_url("bazel+https://cache.example/ci", true, s, error));
  CHECK(s.layout == RemoteLayout::bazel);
  CHECK(s.scheme == "https");
  CHECK(s.display() == "bazel+https://cache.example/ci");
  REQUIRE(parse_remote_url("http://h:1|layout=bazel|parallel=4", true, s, error));
  CHECK(s.layout == RemoteLayout::bazel);
  CHECK(s.parallel == 4);

  REQUIRE(parse_remote_url("redis://h:6380/3|connect-timeout=50", true, s, error));
  CHECK(s.port == 6380);
  CHECK(s.path == "/3");
  CHECK(s.connect_timeout_ms == 50);

  // Credentials: from the environment's URL, never shown; never from a config file.
  REQUIRE(parse_remote_url("http://ci:s%40cret@h:9/p", false, s, error));
  CHECK(s.user == "ci");
  CHECK(s.password == "s@cret");
  CHECK(s.display().find("cret") == std::string::npos);
  CHECK_FALSE(parse_remote_url("http://ci:secret@h:9/p", true, s, error));
  CHECK(error.find("credentials do not belong in a config file") != std::string::npos);
  CHECK(error.find("secret") == std::string::npos);

  CHECK_FALSE(parse_remote_url("ftp://h/x", false, s, error));
  CHECK_FALSE(parse_remote_url("h:80", false, s, error));
  CHECK_FALSE(parse_remote_url("http://h:99999/x", false, s, error));
  CHECK_FALSE(parse_remote_url("http://h/x|read-write", false, s, error));
  CHECK(error.find("unknown or malformed attribute 'read-write'") != std::string::npos);
  CHECK_FALSE(parse_remote_url("redis://h/abc", false, s, error));
  CHECK_FALSE(parse_remote_url("redis://h/0|layout=bazel", false, s, error));
}

TEST_CASE("remote: the environment wins over the config file") {
  std::map<std::string, std::string> env{{"QDBUILD_REMOTE", "http://a:1/x redis://b:2/0"},
                                         {"QDBUILD_REMOTE_READ_ONLY", "1"}};
  auto get = [&](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  RemoteSettings file;
  file.urls = {"http://file:1/y"};
  std::vector<std::string> errors;
  std::unique_ptr<RemoteSet> set = make_remote_set(file, get, [](const std::string&) {}, errors);
  CHECK(errors.empty());
  REQUIRE(set);
  CHECK_FALSE(set->writable());  // QDBUILD_REMOTE_READ_ONLY
  env["QDBUILD_REMOTE"] = "";
  CHECK_FALSE(make_remote_set(file, get, [](const std::string&) {}, errors));  // set and empty
  env.erase("QDBUILD_REMOTE");
  env.erase("QDBUILD_REMOTE_READ_ONLY");
  set = make_remote_set(file, get, [](const std::string&) {}, errors);
  REQUIRE(set);
  CHECK(set->writable());
  file.urls = {"http://u:p@file:1/y"};
  CHECK_FALSE(make_remote_set(file, get, [](const std::string&) {}, errors));
  CHECK(errors.size() == 1);
}

TEST_CASE("remote: signed records bind their key") {
  TaskRecord rec = record_of("code", 12);
  std::unique_ptr<RecordSigner> hmac = RecordSigner::hmac("team secret");
  std::string body = hmac->sign(k_key, rec);
  CHECK(body.starts_with(format_task_record(rec)));
  CHECK(body.find("\nsig hmac-sha256 ") != std::string::npos);
  REQUIRE(hmac->verify(k_key, body));
  CHECK(hmac->verify(k_key, body)->object == rec.object);
  CHECK_FALSE(hmac->verify(std::string(64, 'b'), body));  // copied to another key
  CHECK_FALSE(RecordSigner::hmac("other secret")->verify(k_key, body));
  CHECK_FALSE(hmac->verify(k_key, format_task_record(rec)));  // unsigned
  std::string tampered = body;
  tampered[20] = tampered[20] == '0' ? '1' : '0';  // another object
  CHECK_FALSE(hmac->verify(k_key, tampered));
  // Unsigned readers take the record line and ignore the signature.
  REQUIRE(parse_remote_record(body));
  CHECK(parse_remote_record(body)->compile_ms == 12);
  CHECK_FALSE(parse_remote_record(body + "junk\n"));

  // Ed25519: the private key signs, the public key verifies.
  std::string dir = "ed25519-keys";
  std::string cmd = "mkdir -p " + dir + " && openssl genpkey -algorithm ed25519 -out " + dir +
                    "/a.pem 2>/dev/null && openssl pkey -in " + dir + "/a.pem -pubout -out " + dir +
                    "/a.pub 2>/dev/null && openssl genpkey -algorithm ed25519 -out " + dir +
                    "/b.pem 2>/dev/null && openssl pkey -in " + dir + "/b.pem -pubout -out " + dir +
                    "/b.pub 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string error;
  std::unique_ptr<RecordSigner> priv = RecordSigner::ed25519(dir + "/a.pem", true, error);
  REQUIRE(priv);
  std::unique_ptr<RecordSigner> pub = RecordSigner::ed25519(dir + "/a.pub", false, error);
  REQUIRE(pub);
  std::string pem;
  REQUIRE(support::read_file(dir + "/b.pub", pem, error));
  std::unique_ptr<RecordSigner> other = RecordSigner::ed25519(pem, false, error);  // PEM text
  REQUIRE(other);
  CHECK_FALSE(pub->can_sign());
  std::string signed_body = priv->sign(k_key, rec);
  CHECK(signed_body.find("\nsig ed25519 ") != std::string::npos);
  CHECK(pub->verify(k_key, signed_body));
  CHECK(priv->verify(k_key, signed_body));
  CHECK_FALSE(other->verify(k_key, signed_body));
  CHECK_FALSE(pub->verify(std::string(64, 'c'), signed_body));
  CHECK_FALSE(pub->verify(k_key, body));                    // an HMAC signature
  CHECK(pub->sign(k_key, rec) == format_task_record(rec));  // cannot sign: unsigned
  CHECK_FALSE(RecordSigner::ed25519(dir + "/a.pub", true, error));
  CHECK_FALSE(RecordSigner::ed25519(dir + "/missing.pub", false, error));
}

TEST_CASE("remote: fetched objects are verified against their address") {
  std::string content = "the object's content";
  ObjectId id = sha256(content);
  std::string file = encode_object(content);
  CHECK(verify_object_body(id, file, false) == content);
  CHECK(verify_object_body(id, content, true) == content);
  CHECK_FALSE(verify_object_body(id, file.substr(0, file.size() / 2), false));  // truncated
  std::string flipped = file;
  flipped[flipped.size() - 1] ^= 0x20;
  CHECK_FALSE(verify_object_body(id, flipped, false));
  CHECK_FALSE(verify_object_body(id, content + "x", true));
  CHECK_FALSE(verify_object_body(id, encode_object("other content"), false));  // intact, wrong
  CHECK_FALSE(verify_object_body(id, "", true));
}

TEST_CASE("remote: an object declaring more than 1 GiB of content is refused before decoding") {
  // A hostile remote's decompression bomb: an intact header and a zstd frame that both declare
  // 2^40 bytes of content, carrying one. Decoding would allocate 1 TiB first.
  const uint64_t declared = uint64_t{1} << 40;
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setPledgedSrcSize(c, declared);
  std::string in = "x", frame(256, '\0');
  ZSTD_outBuffer ob{frame.data(), frame.size(), 0};
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_flush);
  ZSTD_freeCCtx(c);
  frame.resize(ob.pos);
  REQUIRE(ZSTD_getFrameContentSize(frame.data(), frame.size()) == declared);
  std::string version = "x";
  qdrt_object_header h{};
  std::memcpy(h.magic, QDRT_OBJECT_MAGIC, 8);
  h.version = QDRT_OBJECT_VERSION;
  h.header_size = static_cast<uint32_t>(sizeof h + version.size());
  h.codec = QDRT_CODEC_ZSTD;
  h.version_size = static_cast<uint16_t>(version.size());
  h.raw_size = declared;
  h.payload_size = frame.size();
  h.header_checksum = xxh3_64(std::string_view(reinterpret_cast<const char*>(&h),
                                               offsetof(qdrt_object_header, header_checksum)),
                              version);
  std::string file(reinterpret_cast<const char*>(&h), sizeof h);
  file += version + frame;
  REQUIRE(parse_object_header(file, "bomb"));  // the header itself is intact
  CHECK_FALSE(verify_object_body(sha256("x"), file, false));
}

TEST_CASE("remote: a set serves verified tasks and counts corruption") {
  Fixture f;
  std::string content = "compiled code";
  TaskRecord rec = record_of(content, 40);
  f.set->upload({{k_key, rec, content}});
  CHECK(f.mem->values.size() == 2);
  auto got = f.set->fetch({k_key, std::string(64, 'e')}, k_no_object);
  REQUIRE(got.count(k_key) == 1);
  CHECK(got[k_key].content == content);
  CHECK(f.set->stats().hits == 1);
  CHECK(f.set->stats().misses == 1);
  CHECK(f.set->stats().saved_ms == 40);
  // The local store has the object: only the record is fetched.
  got = f.set->fetch({k_key}, [](const ObjectId&) { return true; });
  CHECK_FALSE(got[k_key].has_content);
  f.set->take_stats();

  // A wrong body (another object's intact file) is a miss, counted, reported once.
  f.mem->values["object:" + rec.object.hex()] = encode_object("evil code");
  got = f.set->fetch({k_key}, k_no_object);
  CHECK(got.empty());
  CHECK(f.set->stats().corrupt == 1);
  CHECK(f.set->stats().misses == 1);
  f.set->report_problems();
  f.set->report_problems();
  CHECK(f.warnings.size() == 1);
  // A record that does not parse.
  f.mem->values["task:" + k_key] = "qdbuild task v1 zz 1\n";
  CHECK(f.set->fetch({k_key}, k_no_object).empty());
  CHECK(f.set->stats().corrupt == 2);
}

TEST_CASE("remote: readers with a key accept only records it verifies") {
  std::shared_ptr<const RecordSigner> key = RecordSigner::hmac("k1");
  Fixture writer(key);
  std::string content = "code";
  writer.set->upload({{k_key, record_of(content, 1), content}});
  Fixture unsigned_reader;
  unsigned_reader.mem->values = writer.mem->values;
  CHECK(unsigned_reader.set->fetch({k_key}, k_no_object).size() == 1);
  Fixture reader(RecordSigner::hmac("k1"));
  reader.mem->values = writer.mem->values;
  CHECK(reader.set->fetch({k_key}, k_no_object).size() == 1);
  Fixture wrong(RecordSigner::hmac("k2"));
  wrong.mem->values = writer.mem->values;
  CHECK(wrong.set->fetch({k_key}, k_no_object).empty());
  CHECK(wrong.set->stats().errors_by_kind.at("signature") == 1);
  // An unsigned record (anyone could have written it) is refused by a reader with a key.
  Fixture plain;
  plain.set->upload({{k_key, record_of(content, 1), content}});
  reader.mem->values = plain.mem->values;
  CHECK(reader.set->fetch({k_key}, k_no_object).empty());
}

TEST_CASE("remote: the circuit breaker opens once, read-only uploads nothing") {
  Fixture f;
  f.mem->fail_with = RemoteError::timeout;
  std::vector<std::string> keys;
  for (char c : std::string("0123456789")) {
    keys.push_back(std::string(64, c));
  }
  CHECK(f.set->fetch(keys, k_no_object).empty());
  CHECK(f.mem->requests() == static_cast<uint64_t>(k_breaker_threshold));  // then skipped
  CHECK(f.set->stats().errors == static_cast<uint64_t>(k_breaker_threshold));
  CHECK(f.set->fetch(keys, k_no_object).empty());
  CHECK(f.mem->requests() == static_cast<uint64_t>(k_breaker_threshold));
  CHECK(f.warnings.size() == 1);
  CHECK_FALSE(f.set->writable());

  Fixture ro(nullptr, true);
  ro.set->upload({{k_key, record_of("x", 1), "x"}});
  CHECK(ro.mem->values.empty());
  CHECK_FALSE(ro.set->writable());

  // Refused credentials: one warning, no more uploads.
  Fixture auth;
  auth.mem->fail_with = RemoteError::auth;
  auth.set->upload({{k_key, record_of("x", 1), "x"}});
  auth.set->upload({{k_key, record_of("y", 1), "y"}});
  CHECK(auth.warnings.size() == 1);
  CHECK(auth.warnings[0].find("refused the credentials") != std::string::npos);
}

TEST_CASE("remote: build statistics keep the remote part") {
  std::string path = "remote-stats.log";
  std::remove(path.c_str());
  BuildStats plain{100, 1, 2, 3, 4};
  BuildStats remote{200, 5, 6, 7, 8};
  remote.remote = true;
  remote.remote_hits = 9;
  remote.remote_misses = 10;
  remote.remote_errors = 11;
  remote.remote_corrupt = 12;
  remote.bytes_down = 13;
  remote.bytes_up = 14;
  remote.remote_saved_ms = 15;
  remote.remote_requests = 16;
  REQUIRE(append_build_stats(path, plain));
  REQUIRE(append_build_stats(path, remote));
  Result<BuildStatsLog> log = read_build_stats(path);
  REQUIRE(log);
  REQUIRE(log->records.size() == 2);
  CHECK(log->records[0] == plain);
  CHECK(log->records[1] == remote);
  BuildStats sum = sum_build_stats(log->records);
  CHECK(sum.remote);
  CHECK(sum.remote_hits == 9);
  CHECK(sum.hits == 6);
}

}  // namespace qd::store
