#include "syntax/unicode.hpp"

#include <doctest/doctest.h>

namespace qd::syntax {

TEST_CASE("unicode: identifier properties") {
  CHECK(is_identifier_start('_'));
  CHECK(is_identifier_start('a'));
  CHECK_FALSE(is_identifier_start('1'));
  CHECK(is_identifier_continue('1'));
  CHECK(is_identifier_start(0xE9));     // é
  CHECK(is_identifier_start(0x4E00));   // CJK
  CHECK(is_identifier_start(0x1D518));  // MATHEMATICAL FRAKTUR CAPITAL U
  CHECK(is_identifier_start(0x2118));   // SCRIPT CAPITAL P (Other_ID_Start)
  CHECK_FALSE(is_identifier_start(0x0301));
  CHECK(is_identifier_continue(0x0301));  // combining acute
  CHECK(is_identifier_continue(0x00B7));  // MIDDLE DOT (Other_ID_Continue)
  CHECK_FALSE(is_identifier_continue(0x2028));
  CHECK_FALSE(is_identifier_start(0xD800));
  CHECK_FALSE(is_identifier_continue(0x110000));
}

TEST_CASE("unicode: printable") {
  CHECK(is_printable(' '));
  CHECK_FALSE(is_printable('\n'));
  CHECK_FALSE(is_printable(0x7F));
  CHECK_FALSE(is_printable(0xA0));  // NO-BREAK SPACE (Zs other than space)
  CHECK_FALSE(is_printable(0xAD));  // SOFT HYPHEN (Cf)
  CHECK(is_printable(0xE9));
  CHECK(is_printable(0x1F600));
  CHECK_FALSE(is_printable(0xD800));
  CHECK_FALSE(is_printable(0x0378));  // unassigned
  CHECK_FALSE(is_printable(0xE000));  // private use
}

TEST_CASE("unicode: nfkc") {
  CHECK(nfkc("abc") == "abc");
  CHECK(nfkc("\xEF\xAC\x81") == "fi");  // ﬁ
  CHECK(nfkc("\xF0\x9D\x94\x98\xF0\x9D\x94\xAB\xF0\x9D\x94\xA6\xF0\x9D\x94\xA0\xF0\x9D\x94\xAC"
             "\xF0\x9D\x94\xA1\xF0\x9D\x94\xA2") == "Unicode");
  CHECK(nfkc("e\xCC\x81") == "\xC3\xA9");                                 // e + U+0301 -> é
  CHECK(nfkc("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8") == "\xEA\xB0\x81");  // jamo -> 각
  CHECK(nfkc("\xEA\xB0\x81") == "\xEA\xB0\x81");
  CHECK(nfkc("\xC2\xB5") == "\xCE\xBC");  // MICRO SIGN -> GREEK SMALL LETTER MU
  // a + U+0301 + U+0328: reordered (ogonek 202 < acute 230), then composed to U+0105 + U+0301.
  CHECK(nfkc("a\xCC\x81\xCC\xA8") == "\xC4\x85\xCC\x81");
  CHECK(nfkc("\xE2\x84\xAB") == "\xC3\x85");  // ANGSTROM SIGN -> Å
}

TEST_CASE("unicode: names") {
  uint32_t cp = 0;
  CHECK(lookup_unicode_name("LATIN SMALL LETTER A", cp));
  CHECK(cp == 'a');
  CHECK(lookup_unicode_name("latin capital letter e with acute", cp));
  CHECK(cp == 0xC9);
  CHECK(lookup_unicode_name("NUL", cp));  // alias
  CHECK(cp == 0);
  CHECK(lookup_unicode_name("BYTE ORDER MARK", cp));
  CHECK(cp == 0xFEFF);
  CHECK(lookup_unicode_name("CJK UNIFIED IDEOGRAPH-4E00", cp));
  CHECK(cp == 0x4E00);
  CHECK(lookup_unicode_name("CJK COMPATIBILITY IDEOGRAPH-F900", cp));
  CHECK(cp == 0xF900);
  CHECK(lookup_unicode_name("HANGUL SYLLABLE GAG", cp));
  CHECK(cp == 0xAC01);
  CHECK(lookup_unicode_name("GRINNING FACE", cp));
  CHECK(cp == 0x1F600);
  CHECK(lookup_unicode_name("SPACE", cp));
  CHECK(cp == 0x20);
  CHECK(lookup_unicode_name("TAG LATIN SMALL LETTER Z", cp));
  CHECK(cp == 0xE007A);
  // CPython matches the algorithmic prefixes case-sensitively and wants uppercase hex.
  CHECK_FALSE(lookup_unicode_name("cjk unified ideograph-4E00", cp));
  CHECK_FALSE(lookup_unicode_name("CJK UNIFIED IDEOGRAPH-4e00", cp));
  CHECK_FALSE(lookup_unicode_name("hangul syllable GA", cp));
  CHECK_FALSE(lookup_unicode_name("HANGUL SYLLABLE ga", cp));
  // Named sequences are not accepted by \N{...}.
  CHECK_FALSE(lookup_unicode_name("LATIN CAPITAL LETTER A WITH MACRON AND GRAVE", cp));
  CHECK_FALSE(lookup_unicode_name("", cp));
  CHECK_FALSE(lookup_unicode_name("LATIN SMALL LETTER A ", cp));
  CHECK_FALSE(lookup_unicode_name("TANGUT IDEOGRAPH-17000", cp));
}

}  // namespace qd::syntax
