#pragma once
// How values are written to tensor files: text that reads back to the same value, with bool as
// 0 or 1 so that files stay numeric.
#include <string>

#include "siskin/value.hpp"

namespace siskin::io {

inline std::string value_text(const Scalar& v) {
    if (v.type() == ValueType::Bool) return v.as_bool() ? "1" : "0";
    return v.to_string();
}

} // namespace siskin::io
