#pragma once
// The C form of a user function: a `static inline` C11 function over the siskin_ops.h helpers,
// computing what the interpreter computes.
#include <string>

#include "functions/code.hpp"

namespace siskin::functions {

/// The C name of the function: siskin_udf_<name>_<8 hex digits hashing its definition and the
/// C names of the user functions it calls>, so different definitions never share a name.
std::string c_function_name(const std::string& canonical_text, const Code& code);

/// File-scope C text defining `c_name` (and, before it, every user function it calls), each
/// definition wrapped in an include guard so that a kernel may contain it any number of times.
/// Needs siskin_prelude.h (which includes siskin_ops.h) before it.
std::string emit_c_definition(const Code& code, const std::string& c_name);

} // namespace siskin::functions
