#pragma once
// The C runtime of generated kernels: the files of runtime/ (siskin_prelude.h and its companions),
// embedded into the library when it is built. The JIT puts them on every kernel's include path,
// so a kernel starts with `#include "siskin_prelude.h"` and needs nothing else.
#include <span>
#include <string_view>

namespace siskin::codegen {

struct RuntimeFile {
    std::string_view name;     // "siskin_prelude.h"
    std::string_view contents; // the file's bytes
};

/// Every embedded runtime file, sorted by name.
std::span<const RuntimeFile> runtime_files();

} // namespace siskin::codegen
