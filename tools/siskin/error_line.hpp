#pragma once
// How the `siskin` command reports an error: one line `siskin: error: ...` on stderr.
#include <string>
#include <string_view>

namespace siskin::cli {

/// A message on one line: its lines (a parse error's excerpt, a C compiler's errors) joined by
/// "; ", control bytes escaped, and cut at 2,000 bytes with a note of how much was shown.
std::string one_line(std::string_view message);

/// Prints `siskin: error: ` and the message on one line to stderr; returns the exit status, 1.
int print_error(std::string_view message);

} // namespace siskin::cli
