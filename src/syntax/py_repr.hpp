// Python's repr() of the constant types the AST holds, exactly as CPython 3.12 prints them.
#pragma once

#include <string>
#include <string_view>

namespace qd::syntax {

// repr(str): `utf8` is generalized UTF-8 (lone surrogates U+D800..U+DFFF may appear encoded as
// 3-byte sequences). Quote choice, escapes and the printable test follow unicode_repr().
void repr_str(std::string& out, std::string_view utf8);
// repr(bytes).
void repr_bytes(std::string& out, std::string_view bytes);
// repr(float): shortest round-trip digits, 'r' format rules (1e+16, 1e-05, inf, nan).
void repr_float(std::string& out, double v);
// repr(complex(0.0, imag)) for an imaginary literal: `1j`, `1.5j`, `1e+16j`, `infj`.
void repr_imaginary(std::string& out, double imag);

}  // namespace qd::syntax
