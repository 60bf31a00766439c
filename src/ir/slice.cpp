// Slices of one dimension (`lo:hi:st`): resolving their bounds against a size, and their text.
#include <fmt/format.h>

#include "siskin/error.hpp"
#include "siskin/ir/program.hpp"

namespace siskin::ir {

std::string slice_text(const Slice& s) {
    std::string out = s.lo ? std::to_string(*s.lo) : std::string();
    out += ":";
    if (s.hi) out += std::to_string(*s.hi);
    if (s.step != 1) out += ":" + std::to_string(s.step);
    return out;
}

SliceWindow resolve_slice(const Slice& s, int64_t n, const std::string& what) {
    if (s.step <= 0)
        throw Error(fmt::format("slice {} of {} has step {}; the step must be positive",
                                slice_text(s), what, s.step));
    // Python would clamp an out-of-range bound; a silent clamp hides mistakes, so it is an error.
    auto bound = [&](std::optional<int64_t> b, int64_t absent) {
        if (!b) return absent;
        if (*b < -n || *b > n)
            throw Error(fmt::format("slice {} of {} is out of range: bound {} is outside "
                                    "[-{}, {}] (the dimension has size {})",
                                    slice_text(s), what, *b, n, n, n));
        return *b < 0 ? *b + n : *b;
    };
    int64_t lo = bound(s.lo, 0), hi = bound(s.hi, n);
    SliceWindow w;
    w.first = lo;
    w.length = hi > lo ? (hi - lo + s.step - 1) / s.step : 0;
    return w;
}

} // namespace siskin::ir
