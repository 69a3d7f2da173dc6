// libFuzzer target for the store's readers of untrusted files: index files, packs (header, index,
// object locations) and object files. Built only with -DQD_FUZZ=ON (QD_FUZZ_TARGET=store_index
// scripts/fuzz.sh). Each input is tried as each kind, with and without checksum verification (so
// mutations get past the checksums to the structure checks). Any crash, sanitizer report, leak or
// timeout is a finding; "damaged" results are expected.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "store/index_format.hpp"
#include "store/object_format.hpp"
#include "store/pack.hpp"

using namespace qd::store;

namespace {

// Every accessor of a view that opened must stay in bounds, and lookups must find each key.
void walk(const IndexView& view) {
  for (size_t i = 0; i < view.entry_count(); ++i) {
    Entry e = view.entry(i);
    std::optional<size_t> at = view.find(e.key.kernel_id, e.key.instance, e.key.target);
    if (!at || *at != i) {
      __builtin_trap();
    }
  }
  for (size_t i = 0; i < view.object_count(); ++i) {
    if (view.find_object(view.object_id(i)) != i) {
      __builtin_trap();
    }
  }
}

void try_object(std::string_view bytes) {
  Result<ObjectHeaderInfo> h = parse_object_header(bytes, "fuzz");
  // Decoding allocates the declared size: skip absurd ones (a resource limit, not a memory bug).
  if (h && h->raw_size <= (16u << 20)) {
    (void)decode_object(bytes, "fuzz");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (bool verify : {false, true}) {
    IndexOpenOptions options{verify};
    if (Result<IndexView> view = IndexView::open(bytes, "fuzz", options)) {
      walk(*view);
    }
    if (Result<std::unique_ptr<PackReader>> pack = PackReader::open_bytes(bytes, "fuzz", options)) {
      const IndexView* view = *(*pack)->index();
      walk(*view);
      for (size_t i = 0; i < view->object_count() && i < 64; ++i) {
        Result<std::string> file = (*pack)->get_file(view->object_id(i));
        if (!file) {
          __builtin_trap();  // every listed object lies inside the pack
        }
        try_object(*file);
      }
    }
  }
  try_object(bytes);
  return 0;
}
