// qd_reapi_cas_check URL: qdbuild's REAPI CAS client (src/remote_exec/cas_client.hpp) against a
// real server (test_reapi.py starts BuildGrid). Prints one line per check, exit 0 all passed.
//   - GetCapabilities: SHA-256, a batch limit, execution enabled
//   - 60 blobs (empty, small, one of several batches' worth, duplicates): all missing first, all
//     present after the upload, read back byte for byte in the order asked
//   - reading a blob the server lacks is an error naming its digest
//   - blobs over a batch go through ByteStream Write and Read, verified the same way
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include <unistd.h>

#include "remote_exec/cas_client.hpp"

namespace {

int g_failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  g_failures += ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: qd_reapi_cas_check grpc://HOST:PORT[/INSTANCE]\n");
    return 2;
  }
  using namespace qd::remote_exec;
  Endpoint ep;
  std::string error;
  if (!parse_endpoint(argv[1], ep, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  for (const char* bad : {"http://a:1", "grpc://a", "grpc://:1", "grpc://a:x", "grpc://a:"}) {
    Endpoint e;
    std::string why;
    check(!parse_endpoint(bad, e, why) && !why.empty(), std::string("refused: ") + bad);
  }
  CasClient cas(ep, std::chrono::seconds(30));
  Capabilities caps;
  bool got = cas.capabilities(caps, error);
  check(got, "GetCapabilities " + error);
  check(caps.sha256, "the server takes SHA-256 digests");
  check(caps.max_batch_bytes > 0,
        "the server names a batch limit: " + std::to_string(caps.max_batch_bytes));
  check(caps.exec_enabled, "the server executes actions (API " + caps.api_version + ")");

  // Blobs: unique content per run (the server may outlive a run), some large enough that the
  // upload and the read take several batches.
  std::string salt = std::to_string(static_cast<long long>(time(nullptr))) + "-" +
                     std::to_string(static_cast<long long>(getpid()));
  std::vector<std::string> blobs;
  blobs.push_back("");
  for (int i = 0; i < 50; ++i) {
    blobs.push_back("blob " + std::to_string(i) + " " + salt);
  }
  for (int i = 0; i < 6; ++i) {
    blobs.push_back(std::string(900 * 1024, static_cast<char>('a' + i)) + salt);
  }
  blobs.push_back(blobs[3]);  // duplicates within one request
  blobs.push_back(blobs[52]);
  blobs.push_back("x" + salt);
  std::vector<Digest> digests;
  for (const std::string& b : blobs) {
    digests.push_back(digest_of(b));
  }
  std::vector<Digest> missing;
  got = cas.find_missing(digests, missing, error);
  // The empty blob is always present (REAPI: servers must answer for it without storing it).
  check(got && missing.size() >= digests.size() - 1,
        "before the upload: " + std::to_string(missing.size()) + " of " +
            std::to_string(digests.size()) + " missing " + error);
  got = cas.upload(blobs, error);
  check(got, "BatchUpdateBlobs of " + std::to_string(blobs.size()) + " blobs in batches of " +
                 std::to_string(cas.batch_budget()) + " bytes " + error);
  got = cas.find_missing(digests, missing, error);
  check(got && missing.empty(),
        "after the upload: " + std::to_string(missing.size()) + " missing " + error);
  std::vector<std::string> back;
  got = cas.read(digests, back, error);
  check(got && back == blobs, "BatchReadBlobs: every blob back, in order, verified " + error);

  Digest absent = digest_of("never uploaded " + salt);
  got = cas.read({digests[1], absent}, back, error);
  check(!got && error.find(absent.hash) != std::string::npos,
        "reading a blob the server lacks is an error naming it: " + error);
  // Blobs over a batch: ByteStream, in 1 MiB chunks, mixed with small ones in one call.
  std::string big(static_cast<size_t>(cas.batch_budget()) * 2 + 12345, '\0');
  for (size_t k = 0; k < big.size(); ++k) {
    big[k] = static_cast<char>((k * 2654435761u) >> 13);
  }
  big += salt;
  std::vector<std::string> mixed = {"small " + salt, big, big + "2"};
  std::vector<Digest> mixed_digests;
  for (const std::string& b : mixed) {
    mixed_digests.push_back(digest_of(b));
  }
  error.clear();
  got = cas.upload(mixed, error);
  check(got, "ByteStream.Write of two blobs of " + std::to_string(big.size()) + " bytes " + error);
  got = cas.find_missing(mixed_digests, missing, error);
  check(got && missing.empty(), "the large blobs are present " + error);
  got = cas.read(mixed_digests, back, error);
  check(got && back == mixed, "ByteStream.Read: the large blobs back, verified " + error);
  Digest absent_big = digest_of(big + "never");
  got = cas.read({absent_big}, back, error);
  check(!got && error.find(absent_big.hash) != std::string::npos,
        "reading a large blob the server lacks is an error naming it: " + error);
  std::printf("reapi cas: %s\n", g_failures == 0
                                     ? "all passed"
                                     : (std::to_string(g_failures) + " failure(s)").c_str());
  return g_failures == 0 ? 0 : 1;
}
