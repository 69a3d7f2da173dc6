// capi_runner: runs the differential corpus through libqdrt's C API (qdrt/qdrt.h only, not the
// C++ wrapper), the way an application links the runtime. run_diff.py --via capi writes the
// request and reads the responses; tests/diff/README.md ("The C API runner") has the formats.
//
//   capi_runner STORE REQUEST OUTDIR [--from INDEX]
//
// STORE    a qdbuild store (directory, index file or pack), opened once with qdrt_open
// REQUEST  a text file: a header line "qdrt-diff-request 1", then per case
//            case INDEX KERNEL_ID NARGS
//          followed by NARGS argument lines, in parameter order:
//            array DTYPE NDIM D0 .. D(NDIM-1) FILE   raw C-contiguous bytes (FILE relative to the
//                                                    request's directory); DTYPE i8..u64 f32 f64 u1
//            int VALUE        signed 64-bit (QDRT_VALUE_INT)
//            uint VALUE       a u64 value >= 2^63 (QDRT_VALUE_INT + QDRT_VALUE_UNSIGNED)
//            float HEX        a double in C99 hex notation (QDRT_VALUE_FLOAT)
//            bool 0|1         (QDRT_VALUE_BOOL)
//            text STRING      the rest of the line (QDRT_VALUE_TEXT)
// OUTDIR   receives kernels.txt (the store's kernel ids, one a line, from qdrt_kernel_count /
//          qdrt_kernel_id) and, per case, INDEX.result with one line
//            ok none | ok int DTYPE VALUE | ok uint DTYPE VALUE | ok float DTYPE HEX |
//            ok bool DTYPE 0|1 | error STATUS_NAME MESSAGE
//          and, after a successful launch, INDEX_ARG.out with the bytes of every array argument.
// --from   skips the cases before INDEX (run_diff.py restarts the runner after a case that
//          killed it).
// Arrays are passed with explicit C-contiguous byte strides (the Python binding passes NULL),
// so both forms of qdrt_value.strides are exercised. Exit status: 0 when every case was
// attempted (failed launches are reported in their .result files), 2 on a usage / request /
// store error.
#include <qdrt/qdrt.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct DtypeInfo {
  const char* name;
  uint32_t code;
  size_t size;
};

const DtypeInfo kDtypes[] = {
    {"i8", QDRT_DTYPE_I8, 1},   {"i16", QDRT_DTYPE_I16, 2}, {"i32", QDRT_DTYPE_I32, 4},
    {"i64", QDRT_DTYPE_I64, 8}, {"u8", QDRT_DTYPE_U8, 1},   {"u16", QDRT_DTYPE_U16, 2},
    {"u32", QDRT_DTYPE_U32, 4}, {"u64", QDRT_DTYPE_U64, 8}, {"f16", QDRT_DTYPE_F16, 2},
    {"f32", QDRT_DTYPE_F32, 4}, {"f64", QDRT_DTYPE_F64, 8}, {"u1", QDRT_DTYPE_U1, 1},
};

const DtypeInfo* dtype_by_name(const std::string& name) {
  for (const auto& d : kDtypes) {
    if (name == d.name) {
      return &d;
    }
  }
  return nullptr;
}

const char* dtype_name(uint32_t code) {
  for (const auto& d : kDtypes) {
    if (d.code == code) {
      return d.name;
    }
  }
  return "none";
}

// One argument of a case, owning what its qdrt_value points to.
struct Arg {
  std::string kind;  // array int uint float bool text
  const DtypeInfo* dtype = nullptr;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::string file;
  std::unique_ptr<uint64_t[]> storage;  // 8-byte aligned: fits every dtype
  size_t nbytes = 0;
  int64_t i = 0;
  double f = 0.0;
  std::string text;
};

struct Case {
  long index = 0;
  std::string kernel;
  std::vector<Arg> args;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "capi_runner: %s\n", msg.c_str());
  std::exit(2);
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

bool read_file(const std::string& path, void* dst, size_t nbytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    return false;
  }
  size_t got = nbytes ? std::fread(dst, 1, nbytes, f) : 0;
  // The file must hold exactly nbytes.
  bool at_end = std::fgetc(f) == EOF;
  std::fclose(f);
  return got == nbytes && at_end;
}

bool write_file(const std::string& path, const void* src, size_t nbytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    return false;
  }
  size_t put = nbytes ? std::fwrite(src, 1, nbytes, f) : 0;
  return std::fclose(f) == 0 && put == nbytes;
}

std::vector<Case> parse_request(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    die("cannot read the request " + path);
  }
  std::string line;
  if (!std::getline(in, line) || line != "qdrt-diff-request 1") {
    die(path + ": the first line must be 'qdrt-diff-request 1'");
  }
  std::vector<Case> cases;
  int lineno = 1;
  auto bad = [&](const std::string& why) {
    die(path + ":" + std::to_string(lineno) + ": " + why + ": " + line);
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) {
      continue;
    }
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    if (word != "case") {
      bad("expected 'case INDEX KERNEL NARGS'");
    }
    Case c;
    size_t nargs = 0;
    if (!(ls >> c.index >> c.kernel >> nargs)) {
      bad("expected 'case INDEX KERNEL NARGS'");
    }
    for (size_t a = 0; a < nargs; ++a) {
      if (!std::getline(in, line)) {
        die(path + ": the request ends inside case " + c.kernel);
      }
      ++lineno;
      std::istringstream as(line);
      Arg arg;
      as >> arg.kind;
      if (arg.kind == "array") {
        std::string dt;
        int ndim = 0;
        if (!(as >> dt >> ndim) || ndim < 0 || ndim > 16) {
          bad("bad array header");
        }
        arg.dtype = dtype_by_name(dt);
        if (!arg.dtype) {
          bad("unknown dtype '" + dt + "'");
        }
        arg.shape.resize(size_t(ndim));
        size_t count = 1;
        for (auto& d : arg.shape) {
          if (!(as >> d) || d < 0) {
            bad("bad array extent");
          }
          count *= size_t(d);
        }
        if (!(as >> arg.file)) {
          bad("missing array file");
        }
        arg.nbytes = count * arg.dtype->size;
        arg.strides.assign(size_t(ndim), 0);
        int64_t stride = int64_t(arg.dtype->size);
        for (int k = ndim - 1; k >= 0; --k) {
          arg.strides[size_t(k)] = stride;
          stride *= arg.shape[size_t(k)] ? arg.shape[size_t(k)] : 1;
        }
      } else if (arg.kind == "int") {
        if (!(as >> arg.i)) {
          bad("bad int");
        }
      } else if (arg.kind == "uint") {
        uint64_t u = 0;
        if (!(as >> u)) {
          bad("bad uint");
        }
        std::memcpy(&arg.i, &u, sizeof u);
      } else if (arg.kind == "float") {
        std::string hex;
        if (!(as >> hex)) {
          bad("bad float");
        }
        errno = 0;
        char* end = nullptr;
        arg.f = std::strtod(hex.c_str(), &end);
        if (*end != '\0') {
          bad("bad float");
        }
      } else if (arg.kind == "bool") {
        if (!(as >> arg.i) || (arg.i != 0 && arg.i != 1)) {
          bad("bad bool");
        }
      } else if (arg.kind == "text") {
        std::getline(as >> std::ws, arg.text);
      } else {
        bad("unknown argument kind '" + arg.kind + "'");
      }
      c.args.push_back(std::move(arg));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string hex_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

// Runs one case; returns the .result line.
std::string run_case(qdrt_store* store, Case& c, const std::string& req_dir,
                     const std::string& out_dir) {
  qdrt_kernel* kernel = nullptr;
  qdrt_status st = qdrt_get_kernel(store, c.kernel.c_str(), &kernel);
  if (st != QDRT_OK) {
    return std::string("error ") + qdrt_status_name(st) + " " + qdrt_last_error();
  }
  std::vector<qdrt_value> values;
  values.reserve(c.args.size());
  for (auto& a : c.args) {
    if (a.kind == "array") {
      a.storage.reset(new uint64_t[a.nbytes / 8 + 1]());
      std::string file = req_dir + "/" + a.file;
      if (!read_file(file, a.storage.get(), a.nbytes)) {
        return "error REQUEST cannot read " + std::to_string(a.nbytes) + " bytes from " + file;
      }
      qdrt_value v =
          qdrt_array_value(a.dtype->code, a.storage.get(), int32_t(a.shape.size()), a.shape.data());
      v.strides = a.strides.data();
      values.push_back(v);
    } else if (a.kind == "int") {
      values.push_back(qdrt_int_value(a.i));
    } else if (a.kind == "uint") {
      qdrt_value v = qdrt_int_value(a.i);
      v.flags = QDRT_VALUE_UNSIGNED;
      values.push_back(v);
    } else if (a.kind == "float") {
      values.push_back(qdrt_float_value(a.f));
    } else if (a.kind == "bool") {
      values.push_back(qdrt_bool_value(int(a.i)));
    } else {
      values.push_back(qdrt_text_value(a.text.c_str()));
    }
  }
  qdrt_value result;
  std::memset(&result, 0xA5, sizeof result);  // the runtime must set every field it reports
  st = qdrt_launch(kernel, values.data(), values.size(), &result);
  if (st != QDRT_OK) {
    return std::string("error ") + qdrt_status_name(st) + " " + qdrt_last_error();
  }
  for (size_t k = 0; k < c.args.size(); ++k) {
    const Arg& a = c.args[k];
    if (a.kind != "array") {
      continue;
    }
    std::string file = out_dir + "/" + std::to_string(c.index) + "_" + std::to_string(k) + ".out";
    if (!write_file(file, a.storage.get(), a.nbytes)) {
      die("cannot write " + file);
    }
  }
  char buf[128];
  switch (result.kind) {
    case QDRT_VALUE_NONE: return "ok none";
    case QDRT_VALUE_INT:
      if ((result.flags & QDRT_VALUE_UNSIGNED) || result.dtype == QDRT_DTYPE_U64) {
        uint64_t u;
        std::memcpy(&u, &result.i, sizeof u);
        std::snprintf(buf, sizeof buf, "ok uint %s %" PRIu64, dtype_name(result.dtype), u);
      } else {
        std::snprintf(buf, sizeof buf, "ok int %s %" PRId64, dtype_name(result.dtype), result.i);
      }
      return buf;
    case QDRT_VALUE_FLOAT:
      return std::string("ok float ") + dtype_name(result.dtype) + " " + hex_double(result.f);
    case QDRT_VALUE_BOOL:
      if (result.i != 0 && result.i != 1) {
        return "error RESULT bool result with i = " + std::to_string(result.i);
      }
      return std::string("ok bool ") + dtype_name(result.dtype) + " " + std::to_string(result.i);
    default: return "error RESULT unknown result kind " + std::to_string(result.kind);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 6 && std::strcmp(argv[4], "--from") == 0)) {
    std::fprintf(stderr, "usage: capi_runner STORE REQUEST OUTDIR [--from INDEX]\n");
    return 2;
  }
  std::string store_path = argv[1], request = argv[2], out_dir = argv[3];
  long from = argc == 6 ? std::strtol(argv[5], nullptr, 10) : 0;
  std::vector<Case> cases = parse_request(request);

  if ((qdrt_version() >> 16) != QDRT_VERSION_MAJOR) {
    die(std::string("libqdrt ") + qdrt_version_string() + " does not match the headers' major");
  }
  qdrt_store* store = nullptr;
  qdrt_status st = qdrt_open(store_path.c_str(), nullptr, &store);
  if (st != QDRT_OK) {
    die("cannot open the store " + store_path + ": " + qdrt_status_name(st) + ": " +
        qdrt_last_error());
  }

  std::string ids;
  for (size_t i = 0, n = qdrt_kernel_count(store); i < n; ++i) {
    ids += std::string(qdrt_kernel_id(store, i)) + "\n";
  }
  if (!write_file(out_dir + "/kernels.txt", ids.data(), ids.size())) {
    die("cannot write " + out_dir + "/kernels.txt");
  }

  std::string req_dir = dir_of(request);
  for (auto& c : cases) {
    if (c.index < from) {
      continue;
    }
    std::string line = run_case(store, c, req_dir, out_dir);
    for (char& ch : line) {
      if (ch == '\n') {
        ch = ' ';
      }
    }
    line += "\n";
    std::string file = out_dir + "/" + std::to_string(c.index) + ".result";
    if (!write_file(file, line.data(), line.size())) {
      die("cannot write " + file);
    }
  }
  qdrt_close(store);
  return 0;
}
