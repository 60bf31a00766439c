#pragma once
// Writing a whole file, with failures (disk full, no permission) reported as siskin::Error.
#include <string>
#include <string_view>

namespace siskin::codegen {

/// Creates or truncates `path` (mode 0600) and writes `contents` to it.
void write_file(const std::string& path, std::string_view contents);

} // namespace siskin::codegen
