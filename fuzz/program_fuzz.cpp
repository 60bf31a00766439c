// The program parser on arbitrary text: a program or siskin::Error. A program that parses must
// print to text that parses back to the same printed program (docs/syntax.md promises it).
#include "fuzz_util.hpp"
#include "siskin/ir/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace siskin;
    fuzz::expect_only_siskin_errors([&] {
        ir::Program p = ir::parse_program(fuzz::text_of(data, size), "<fuzz>");
        std::string printed = ir::print(p);
        std::string again;
        try {
            again = ir::print(ir::parse_program(printed, "<printed>"));
        } catch (const Error& e) {
            fuzz::fail("printed program does not parse back", printed + "\n" + e.what());
        }
        if (again != printed) fuzz::fail("printed program does not round-trip", printed + "\n---\n" + again);
    });
    return 0;
}
