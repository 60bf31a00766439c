// Index widths of level buffers: choosing int32 or int64, and reading either as int64.
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

int choose_index_bits(int requested, int64_t largest, std::string_view level_name) {
    constexpr int64_t int32_max = std::numeric_limits<int32_t>::max();
    if (requested == 64) return 64;
    if (requested == 32) {
        if (largest > int32_max)
            throw Error(fmt::format("level {}@32 cannot hold {}: it needs 64-bit indices (use @64 "
                                    "or leave the width out)",
                                    level_name, largest));
        return 32;
    }
    SISKIN_ASSERT(requested == 0, "index width must be 0, 32 or 64");
    return largest > int32_max ? 64 : 32;
}

ValueType index_type(int bits) {
    SISKIN_ASSERT(bits == 32 || bits == 64, "index width must be 32 or 64");
    return bits == 32 ? ValueType::Int32 : ValueType::Int64;
}

Buffer make_index_buffer(int bits, std::span<const int64_t> values) {
    Buffer b(index_type(bits), static_cast<int64_t>(values.size()));
    if (bits == 64) {
        if (!values.empty()) std::memcpy(b.data<int64_t>(), values.data(), values.size_bytes());
    } else {
        int32_t* out = b.data<int32_t>();
        for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<int32_t>(values[i]);
    }
    return b;
}

IndexReader::IndexReader(const Buffer& b)
    : data_(b.data<void>()), size_(b.size()), narrow_(b.type() == ValueType::Int32) {
    SISKIN_ASSERT(b.type() == ValueType::Int32 || b.type() == ValueType::Int64,
                  "level index buffers are int32 or int64");
}

} // namespace siskin::levels
