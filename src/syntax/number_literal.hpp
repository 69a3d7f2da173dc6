// Values of numeric literals. The lexer has already checked the syntax of the text.
#pragma once

#include <string>
#include <string_view>

namespace qd::syntax {

enum class NumberKind { Int, Float, Imaginary };

// Int if no '.', exponent or j suffix (hex digits e/E are not exponents); Imaginary if it ends in
// j/J.
NumberKind classify_number(std::string_view text);
// Decimal digits of an int literal of any base and size (`0x_FF`, `0o17`, `0b1`, `1_000`, `000`).
std::string int_literal_decimal(std::string_view text);
// Correctly rounded value of a float literal, or the imaginary part of an imaginary literal
// (underscores allowed; overflow gives inf as CPython does).
double float_literal_value(std::string_view text);

}  // namespace qd::syntax
