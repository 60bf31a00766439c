#pragma once
// How values are written to tensor files: text that reads back to the same value (the text of
// Scalar::to_string), with bool as 0 or 1 so that files stay numeric.
#include <cmath>

#include <fmt/format.h>

#include "siskin/value.hpp"

namespace siskin::io {

inline void append_value(fmt::memory_buffer& out, const Scalar& v) {
    auto it = std::back_inserter(out);
    ValueType t = v.type();
    if (t == ValueType::Bool) {
        out.push_back(v.as_bool() ? '1' : '0');
    } else if (t == ValueType::Float64 && std::isfinite(v.as_double())) {
        fmt::format_to(it, "{}", v.as_double()); // shortest text that reads back exactly
    } else if (is_signed_integer(t)) {
        fmt::format_to(it, "{}", v.as_int());
    } else {
        std::string s = v.to_string();
        out.append(s.data(), s.data() + s.size());
    }
}

inline std::string value_text(const Scalar& v) {
    fmt::memory_buffer out;
    append_value(out, v);
    return fmt::to_string(out);
}

} // namespace siskin::io
