// Format spellings: the first byte picks the number of dimensions (1-4), the rest is the
// spelling. A spelling that parses must print to one that parses back to an equal format.
#include "fuzz_util.hpp"
#include "siskin/format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace siskin;
    if (size == 0) return 0;
    int ndims = 1 + data[0] % 4;
    std::string_view spelling = fuzz::text_of(data + 1, size - 1);
    fuzz::expect_only_siskin_errors([&] {
        Format f = Format::parse(spelling, ndims);
        std::string printed = f.to_string();
        Format again = Format::parse(printed, ndims);
        if (again.to_string() != printed) fuzz::fail("format spelling does not round-trip", printed);
    });
    return 0;
}
