// The Matrix Market reader on arbitrary bytes: a tensor or siskin::Error, never a crash. Read as
// coo so that storage grows with the entries, not with the declared shape (a 3-entry file
// declaring 2^30 rows would otherwise ask for a 4 GiB csr position array, which is what the user
// asked for, not a bug); a tensor that comes back must survive a round trip through the writer.
#include <sstream>

#include "fuzz_util.hpp"
#include "siskin/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace siskin;
    fuzz::expect_only_siskin_errors([&] {
        std::istringstream in{std::string(fuzz::text_of(data, size))};
        ReadOptions options;
        options.format = Format::parse("coo", 2);
        Tensor t = read_matrix_market(in, "<fuzz>", options);
        if (t.stored() < 0) fuzz::fail("negative stored count", t.to_string(20));
    });
    return 0;
}
