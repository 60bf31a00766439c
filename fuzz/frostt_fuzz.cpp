// The FROSTT (.tns) reader on arbitrary bytes: a tensor or siskin::Error, never a crash. Read as
// coo (the reader's default for .tns), so storage grows with the entries.
#include <sstream>

#include "fuzz_util.hpp"
#include "siskin/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace siskin;
    fuzz::expect_only_siskin_errors([&] {
        std::istringstream in{std::string(fuzz::text_of(data, size))};
        Tensor t = read_frostt(in, "<fuzz>");
        if (t.stored() < 0) fuzz::fail("negative stored count", t.to_string(20));
    });
    return 0;
}
