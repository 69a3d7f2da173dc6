#include "syntax/source_codecs.hpp"

#include <cerrno>
#include <cstring>

#include <iconv.h>

namespace qd::syntax {

namespace {

struct Alias {
  const char* alias;
  const char* module;
};

// Generated from Python 3.12's encodings.aliases, restricted to the codecs below.
// clang-format off
const Codec k_codecs[] = {
  {"ascii", "ascii", "ANSI_X3.4-1968", CodecKind::ascii},
  {"latin_1", "iso8859-1", "ISO-8859-1", CodecKind::latin1},
  {"utf_8", "utf-8", "UTF-8", CodecKind::utf8},
  {"utf_8_sig", "utf-8-sig", "UTF-8", CodecKind::utf8},
  {"iso8859_2", "iso8859-2", "ISO-8859-2", CodecKind::charmap},
  {"iso8859_3", "iso8859-3", "ISO-8859-3", CodecKind::charmap},
  {"iso8859_4", "iso8859-4", "ISO-8859-4", CodecKind::charmap},
  {"iso8859_5", "iso8859-5", "ISO-8859-5", CodecKind::charmap},
  {"iso8859_6", "iso8859-6", "ISO-8859-6", CodecKind::charmap},
  {"iso8859_7", "iso8859-7", "ISO-8859-7", CodecKind::charmap},
  {"iso8859_8", "iso8859-8", "ISO-8859-8", CodecKind::charmap},
  {"iso8859_9", "iso8859-9", "ISO-8859-9", CodecKind::charmap},
  {"iso8859_10", "iso8859-10", "ISO-8859-10", CodecKind::charmap},
  {"iso8859_11", "iso8859-11", "ISO-8859-11", CodecKind::charmap},
  {"iso8859_13", "iso8859-13", "ISO-8859-13", CodecKind::charmap},
  {"iso8859_14", "iso8859-14", "ISO-8859-14", CodecKind::charmap},
  {"iso8859_15", "iso8859-15", "ISO-8859-15", CodecKind::charmap},
  {"iso8859_16", "iso8859-16", "ISO-8859-16", CodecKind::charmap},
  {"cp1250", "cp1250", "CP1250", CodecKind::charmap},
  {"cp1251", "cp1251", "CP1251", CodecKind::charmap},
  {"cp1252", "cp1252", "CP1252", CodecKind::charmap},
  {"cp1253", "cp1253", "CP1253", CodecKind::charmap},
  {"cp1254", "cp1254", "CP1254", CodecKind::charmap},
  {"cp1255", "cp1255", "CP1255", CodecKind::charmap},
  {"cp1256", "cp1256", "CP1256", CodecKind::charmap},
  {"cp1257", "cp1257", "CP1257", CodecKind::charmap},
  {"cp1258", "cp1258", "CP1258", CodecKind::charmap},
  {"cp437", "cp437", "CP437", CodecKind::charmap},
  {"cp850", "cp850", "CP850", CodecKind::charmap},
  {"cp852", "cp852", "CP852", CodecKind::charmap},
  {"cp866", "cp866", "CP866", CodecKind::charmap},
  {"koi8_r", "koi8-r", "KOI8-R", CodecKind::charmap},
  {"koi8_u", "koi8-u", "KOI8-U", CodecKind::charmap},
  {"mac_roman", "mac-roman", "MACINTOSH", CodecKind::charmap},
  {"mac_cyrillic", "mac-cyrillic", "MAC-CYRILLIC", CodecKind::charmap},
  {"tis_620", "tis-620", "TIS-620", CodecKind::charmap},
  {"euc_jp", "euc_jp", "EUC-JP", CodecKind::multibyte},
  {"shift_jis", "shift_jis", "SHIFT_JIS", CodecKind::multibyte},
  {"cp932", "cp932", "CP932", CodecKind::multibyte},
  {"euc_kr", "euc_kr", "EUC-KR", CodecKind::multibyte},
  {"cp949", "cp949", "CP949", CodecKind::multibyte},
  {"gb2312", "gb2312", "GB2312", CodecKind::multibyte},
  {"gbk", "gbk", "GBK", CodecKind::multibyte},
  {"gb18030", "gb18030", "GB18030", CodecKind::multibyte},
  {"big5", "big5", "BIG5", CodecKind::multibyte},
  {"big5hkscs", "big5hkscs", "BIG5-HKSCS", CodecKind::multibyte},
  {"iso2022_jp", "iso2022_jp", "ISO-2022-JP", CodecKind::multibyte},
  {"utf_16", "utf-16", "UTF-16LE", CodecKind::wide},
  {"utf_16_le", "utf-16-le", "UTF-16LE", CodecKind::wide},
  {"utf_16_be", "utf-16-be", "UTF-16BE", CodecKind::wide},
  {"utf_32", "utf-32", "UTF-32LE", CodecKind::wide},
  {"utf_32_le", "utf-32-le", "UTF-32LE", CodecKind::wide},
  {"utf_32_be", "utf-32-be", "UTF-32BE", CodecKind::wide},
  {"rot_13", "rot-13", nullptr, CodecKind::not_text},
  {"hex_codec", "hex", nullptr, CodecKind::not_text},
  {"base64_codec", "base64", nullptr, CodecKind::not_text},
  {"zlib_codec", "zlib", nullptr, CodecKind::not_text},
  {"bz2_codec", "bz2", nullptr, CodecKind::not_text},
  {"uu_codec", "uu", nullptr, CodecKind::not_text},
  {"quopri_codec", "quopri", nullptr, CodecKind::not_text},
};
const Alias k_aliases[] = {
  {"1250", "cp1250"},
  {"1251", "cp1251"},
  {"1252", "cp1252"},
  {"1253", "cp1253"},
  {"1254", "cp1254"},
  {"1255", "cp1255"},
  {"1256", "cp1256"},
  {"1257", "cp1257"},
  {"1258", "cp1258"},
  {"437", "cp437"},
  {"646", "ascii"},
  {"850", "cp850"},
  {"852", "cp852"},
  {"866", "cp866"},
  {"8859", "latin_1"},
  {"932", "cp932"},
  {"936", "gbk"},
  {"949", "cp949"},
  {"ansi_x3.4_1968", "ascii"},
  {"ansi_x3.4_1986", "ascii"},
  {"ansi_x3_4_1968", "ascii"},
  {"arabic", "iso8859_6"},
  {"asmo_708", "iso8859_6"},
  {"base64", "base64_codec"},
  {"base_64", "base64_codec"},
  {"big5_hkscs", "big5hkscs"},
  {"big5_tw", "big5"},
  {"bz2", "bz2_codec"},
  {"chinese", "gb2312"},
  {"cp367", "ascii"},
  {"cp65001", "utf_8"},
  {"cp819", "latin_1"},
  {"cp936", "gbk"},
  {"csascii", "ascii"},
  {"csbig5", "big5"},
  {"csibm866", "cp866"},
  {"csiso2022jp", "iso2022_jp"},
  {"csiso58gb231280", "gb2312"},
  {"csisolatin1", "latin_1"},
  {"csisolatin2", "iso8859_2"},
  {"csisolatin3", "iso8859_3"},
  {"csisolatin4", "iso8859_4"},
  {"csisolatin5", "iso8859_9"},
  {"csisolatin6", "iso8859_10"},
  {"csisolatinarabic", "iso8859_6"},
  {"csisolatincyrillic", "iso8859_5"},
  {"csisolatingreek", "iso8859_7"},
  {"csisolatinhebrew", "iso8859_8"},
  {"cskoi8r", "koi8_r"},
  {"cspc850multilingual", "cp850"},
  {"cspc8codepage437", "cp437"},
  {"cspcp852", "cp852"},
  {"csshiftjis", "shift_jis"},
  {"cyrillic", "iso8859_5"},
  {"ecma_114", "iso8859_6"},
  {"ecma_118", "iso8859_7"},
  {"elot_928", "iso8859_7"},
  {"euc_cn", "gb2312"},
  {"euccn", "gb2312"},
  {"eucgb2312_cn", "gb2312"},
  {"eucjp", "euc_jp"},
  {"euckr", "euc_kr"},
  {"gb18030_2000", "gb18030"},
  {"gb2312_1980", "gb2312"},
  {"gb2312_80", "gb2312"},
  {"greek", "iso8859_7"},
  {"greek8", "iso8859_7"},
  {"hebrew", "iso8859_8"},
  {"hex", "hex_codec"},
  {"hkscs", "big5hkscs"},
  {"ibm367", "ascii"},
  {"ibm437", "cp437"},
  {"ibm819", "latin_1"},
  {"ibm850", "cp850"},
  {"ibm852", "cp852"},
  {"ibm866", "cp866"},
  {"iso2022jp", "iso2022_jp"},
  {"iso646_us", "ascii"},
  {"iso8859", "latin_1"},
  {"iso8859_1", "latin_1"},
  {"iso_2022_jp", "iso2022_jp"},
  {"iso_646.irv_1991", "ascii"},
  {"iso_8859_1", "latin_1"},
  {"iso_8859_10", "iso8859_10"},
  {"iso_8859_10_1992", "iso8859_10"},
  {"iso_8859_11", "iso8859_11"},
  {"iso_8859_11_2001", "iso8859_11"},
  {"iso_8859_13", "iso8859_13"},
  {"iso_8859_14", "iso8859_14"},
  {"iso_8859_14_1998", "iso8859_14"},
  {"iso_8859_15", "iso8859_15"},
  {"iso_8859_16", "iso8859_16"},
  {"iso_8859_16_2001", "iso8859_16"},
  {"iso_8859_1_1987", "latin_1"},
  {"iso_8859_2", "iso8859_2"},
  {"iso_8859_2_1987", "iso8859_2"},
  {"iso_8859_3", "iso8859_3"},
  {"iso_8859_3_1988", "iso8859_3"},
  {"iso_8859_4", "iso8859_4"},
  {"iso_8859_4_1988", "iso8859_4"},
  {"iso_8859_5", "iso8859_5"},
  {"iso_8859_5_1988", "iso8859_5"},
  {"iso_8859_6", "iso8859_6"},
  {"iso_8859_6_1987", "iso8859_6"},
  {"iso_8859_7", "iso8859_7"},
  {"iso_8859_7_1987", "iso8859_7"},
  {"iso_8859_8", "iso8859_8"},
  {"iso_8859_8_1988", "iso8859_8"},
  {"iso_8859_9", "iso8859_9"},
  {"iso_8859_9_1989", "iso8859_9"},
  {"iso_celtic", "iso8859_14"},
  {"iso_ir_100", "latin_1"},
  {"iso_ir_101", "iso8859_2"},
  {"iso_ir_109", "iso8859_3"},
  {"iso_ir_110", "iso8859_4"},
  {"iso_ir_126", "iso8859_7"},
  {"iso_ir_127", "iso8859_6"},
  {"iso_ir_138", "iso8859_8"},
  {"iso_ir_144", "iso8859_5"},
  {"iso_ir_148", "iso8859_9"},
  {"iso_ir_157", "iso8859_10"},
  {"iso_ir_166", "tis_620"},
  {"iso_ir_199", "iso8859_14"},
  {"iso_ir_226", "iso8859_16"},
  {"iso_ir_58", "gb2312"},
  {"iso_ir_6", "ascii"},
  {"korean", "euc_kr"},
  {"ks_c_5601", "euc_kr"},
  {"ks_c_5601_1987", "euc_kr"},
  {"ks_x_1001", "euc_kr"},
  {"ksc5601", "euc_kr"},
  {"ksx1001", "euc_kr"},
  {"l1", "latin_1"},
  {"l10", "iso8859_16"},
  {"l2", "iso8859_2"},
  {"l3", "iso8859_3"},
  {"l4", "iso8859_4"},
  {"l5", "iso8859_9"},
  {"l6", "iso8859_10"},
  {"l7", "iso8859_13"},
  {"l8", "iso8859_14"},
  {"l9", "iso8859_15"},
  {"latin", "latin_1"},
  {"latin1", "latin_1"},
  {"latin10", "iso8859_16"},
  {"latin2", "iso8859_2"},
  {"latin3", "iso8859_3"},
  {"latin4", "iso8859_4"},
  {"latin5", "iso8859_9"},
  {"latin6", "iso8859_10"},
  {"latin7", "iso8859_13"},
  {"latin8", "iso8859_14"},
  {"latin9", "iso8859_15"},
  {"maccyrillic", "mac_cyrillic"},
  {"macintosh", "mac_roman"},
  {"macroman", "mac_roman"},
  {"ms932", "cp932"},
  {"ms936", "gbk"},
  {"ms949", "cp949"},
  {"ms_kanji", "cp932"},
  {"mskanji", "cp932"},
  {"quopri", "quopri_codec"},
  {"quoted_printable", "quopri_codec"},
  {"quotedprintable", "quopri_codec"},
  {"rot13", "rot_13"},
  {"s_jis", "shift_jis"},
  {"shiftjis", "shift_jis"},
  {"sjis", "shift_jis"},
  {"thai", "iso8859_11"},
  {"tis620", "tis_620"},
  {"tis_620_0", "tis_620"},
  {"tis_620_2529_0", "tis_620"},
  {"tis_620_2529_1", "tis_620"},
  {"u16", "utf_16"},
  {"u32", "utf_32"},
  {"u8", "utf_8"},
  {"u_jis", "euc_jp"},
  {"uhc", "cp949"},
  {"ujis", "euc_jp"},
  {"unicodebigunmarked", "utf_16_be"},
  {"unicodelittleunmarked", "utf_16_le"},
  {"us", "ascii"},
  {"us_ascii", "ascii"},
  {"utf", "utf_8"},
  {"utf16", "utf_16"},
  {"utf32", "utf_32"},
  {"utf8", "utf_8"},
  {"utf8_ucs2", "utf_8"},
  {"utf8_ucs4", "utf_8"},
  {"utf_16be", "utf_16_be"},
  {"utf_16le", "utf_16_le"},
  {"utf_32be", "utf_32_be"},
  {"utf_32le", "utf_32_le"},
  {"uu", "uu_codec"},
  {"windows_1250", "cp1250"},
  {"windows_1251", "cp1251"},
  {"windows_1252", "cp1252"},
  {"windows_1253", "cp1253"},
  {"windows_1254", "cp1254"},
  {"windows_1255", "cp1255"},
  {"windows_1256", "cp1256"},
  {"windows_1257", "cp1257"},
  {"windows_1258", "cp1258"},
  {"x_mac_japanese", "shift_jis"},
  {"x_mac_korean", "euc_kr"},
  {"x_mac_simp_chinese", "gb2312"},
  {"x_mac_trad_chinese", "big5"},
  {"zip", "zlib_codec"},
  {"zlib", "zlib_codec"},
};
// clang-format on

bool is_ascii_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// encodings.normalize_encoding() after lower-casing: runs of punctuation other than '.' become one
// '_', leading and trailing punctuation is dropped.
std::string normalize_for_lookup(std::string_view name) {
  std::string out;
  bool punct = false;
  for (char c : name) {
    if (is_ascii_alnum(c) || c == '.') {
      if (punct && !out.empty()) {
        out.push_back('_');
      }
      out.push_back(ascii_lower(c));
      punct = false;
    } else if (static_cast<unsigned char>(c) < 0x80) {
      punct = true;
    } else {
      punct = true;  // non-ASCII letters are dropped by normalize_encoding
    }
  }
  return out;
}

const Codec* find_module(std::string_view module) {
  for (const Codec& c : k_codecs) {
    if (module == c.module) {
      return &c;
    }
  }
  return nullptr;
}

const char* find_alias(std::string_view alias) {
  for (const Alias& a : k_aliases) {
    if (alias == a.alias) {
      return a.module;
    }
  }
  return nullptr;
}

bool is_continuation(unsigned char c) { return c >= 0x80 && c < 0xC0; }

}  // namespace

std::string normal_encoding_name(std::string_view name) {
  // CPython copies at most 12 characters into its buffer before comparing.
  std::string buf;
  for (size_t i = 0; i < name.size() && i < 12; ++i) {
    buf.push_back(name[i] == '_' ? '-' : ascii_lower(name[i]));
  }
  std::string_view b(buf);
  if (b == "utf-8" || b.starts_with("utf-8-")) {
    return "utf-8";
  }
  if (b == "latin-1" || b == "iso-8859-1" || b == "iso-latin-1" || b.starts_with("latin-1-") ||
      b.starts_with("iso-8859-1-") || b.starts_with("iso-latin-1-")) {
    return "iso-8859-1";
  }
  return std::string(name);
}

const Codec* lookup_codec(std::string_view name) {
  std::string norm = normalize_for_lookup(name);
  const char* module = find_alias(norm);
  if (module == nullptr) {
    std::string underscored = norm;
    for (char& c : underscored) {
      if (c == '.') {
        c = '_';
      }
    }
    module = find_alias(underscored);
  }
  const Codec* codec = module != nullptr ? find_module(module) : find_module(norm);
  if (codec == nullptr || codec->iconv_name == nullptr || codec->kind == CodecKind::ascii ||
      codec->kind == CodecKind::latin1 || codec->kind == CodecKind::utf8) {
    return codec;
  }
  // A machine without glibc's gconv modules cannot convert; say so as an unknown encoding.
  iconv_t cd = iconv_open("UTF-8", codec->iconv_name);
  if (cd == reinterpret_cast<iconv_t>(-1)) {
    return nullptr;
  }
  iconv_close(cd);
  return codec;
}

// Mirrors CPython's utf8_decode (Objects/stringlib/codecs.h) and the error ranges
// unicode_decode_utf8 derives from its result.
bool check_python_utf8(std::string_view s, DecodeError& error) {
  const size_t n = s.size();
  size_t i = 0;
  auto fail = [&](size_t start, size_t end, const char* reason) {
    error.start = start;
    error.end = end;
    error.reason = reason;
    return false;
  };
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t avail = n - i;
    auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (c < 0xC2 || c > 0xF4) {
      return fail(i, i + 1, "invalid start byte");
    }
    if (c < 0xE0) {
      if (avail < 2) {
        return fail(i, n, "unexpected end of data");
      }
      if (!is_continuation(at(1))) {
        return fail(i, i + 1, "invalid continuation byte");
      }
      i += 2;
      continue;
    }
    if (c < 0xF0) {
      bool bad2 = avail >= 2 && (!is_continuation(at(1)) || (at(1) < 0xA0 ? c == 0xE0 : c == 0xED));
      if (avail < 3) {
        if (bad2) {
          return fail(i, i + 1, "invalid continuation byte");
        }
        return fail(i, n, "unexpected end of data");
      }
      if (bad2) {
        return fail(i, i + 1, "invalid continuation byte");
      }
      if (!is_continuation(at(2))) {
        return fail(i, i + 2, "invalid continuation byte");
      }
      i += 3;
      continue;
    }
    bool bad2 = avail >= 2 && (!is_continuation(at(1)) || (at(1) < 0x90 ? c == 0xF0 : c == 0xF4));
    if (avail < 4) {
      if (bad2) {
        return fail(i, i + 1, "invalid continuation byte");
      }
      if (avail == 3 && !is_continuation(at(2))) {
        return fail(i, i + 2, "invalid continuation byte");
      }
      return fail(i, n, "unexpected end of data");
    }
    if (bad2) {
      return fail(i, i + 1, "invalid continuation byte");
    }
    if (!is_continuation(at(2))) {
      return fail(i, i + 2, "invalid continuation byte");
    }
    if (!is_continuation(at(3))) {
      return fail(i, i + 3, "invalid continuation byte");
    }
    i += 4;
  }
  return true;
}

bool codec_decode(const Codec& codec, std::string_view bytes, std::string* out,
                  DecodeError& error) {
  switch (codec.kind) {
    case CodecKind::utf8: {
      std::string_view body = bytes;
      if (std::string_view(codec.module) == "utf_8_sig" && body.starts_with("\xEF\xBB\xBF")) {
        body.remove_prefix(3);
      }
      if (!check_python_utf8(body, error)) {
        error.start += bytes.size() - body.size();
        error.end += bytes.size() - body.size();
        return false;
      }
      if (out != nullptr) {
        out->assign(body);
      }
      return true;
    }
    case CodecKind::ascii:
      for (size_t i = 0; i < bytes.size(); ++i) {
        if (static_cast<unsigned char>(bytes[i]) >= 0x80) {
          error = {i, i + 1, "ordinal not in range(128)"};
          return false;
        }
      }
      if (out != nullptr) {
        out->assign(bytes);
      }
      return true;
    case CodecKind::latin1:
      if (out != nullptr) {
        out->clear();
        out->reserve(bytes.size() + bytes.size() / 8);
        for (char ch : bytes) {
          unsigned char c = static_cast<unsigned char>(ch);
          if (c < 0x80) {
            out->push_back(ch);
          } else {
            out->push_back(static_cast<char>(0xC0 | (c >> 6)));
            out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
          }
        }
      }
      return true;
    case CodecKind::not_text: error = {0, 0, "is not a text encoding"}; return false;
    case CodecKind::charmap:
    case CodecKind::multibyte:
    case CodecKind::wide: break;
  }

  iconv_t cd = iconv_open("UTF-8", codec.iconv_name);
  if (cd == reinterpret_cast<iconv_t>(-1)) {
    error = {0, bytes.empty() ? 0 : size_t{1}, "codec not available"};
    return false;
  }
  std::string result;
  result.resize(bytes.size() * 4 + 16);
  char* in = const_cast<char*>(bytes.data());
  size_t in_left = bytes.size();
  char* dst = result.data();
  size_t dst_left = result.size();
  bool ok = true;
  while (in_left > 0) {
    size_t r = iconv(cd, &in, &in_left, &dst, &dst_left);
    if (r != static_cast<size_t>(-1)) {
      continue;
    }
    int err = errno;
    if (err == E2BIG) {
      size_t used = result.size() - dst_left;
      result.resize(result.size() * 2);
      dst = result.data() + used;
      dst_left = result.size() - used;
      continue;
    }
    size_t pos = bytes.size() - in_left;
    ok = false;
    if (codec.kind == CodecKind::charmap) {
      error = {pos, pos + 1, "character maps to <undefined>"};
    } else if (codec.kind == CodecKind::wide) {
      error = {pos, bytes.size(), err == EINVAL ? "truncated data" : "illegal encoding"};
    } else if (err == EINVAL) {
      error = {pos, bytes.size(), "incomplete multibyte sequence"};
    } else {
      error = {pos, pos + 1, "illegal multibyte sequence"};
    }
    break;
  }
  iconv_close(cd);
  if (ok && out != nullptr) {
    result.resize(result.size() - dst_left);
    *out = std::move(result);
  }
  return ok;
}

}  // namespace qd::syntax
