// Exit statuses of every qdbuild command (README "Commands").
#pragma once

namespace qd::driver {

enum class ExitStatus : int {
  ok = 0,           // success
  input_error = 1,  // errors in the user's input; diagnostics were printed
  usage = 2,        // bad command line
  internal = 3,     // environment or internal failure ("internal error, please report")
};

inline int to_int(ExitStatus s) { return static_cast<int>(s); }

// The worse of two statuses (a command that saw both an input error and success reports 1).
inline ExitStatus worst(ExitStatus a, ExitStatus b) { return to_int(a) >= to_int(b) ? a : b; }

}  // namespace qd::driver
