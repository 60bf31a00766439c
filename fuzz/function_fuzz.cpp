// The parser of `def` and `case` forms on arbitrary text: definitions or siskin::Error. Each
// definition that parses prints (to_string) to text that parses back to the same text; checking
// it (function_operator, which also type-checks the body) raises nothing but siskin::Error.
#include "fuzz_util.hpp"
#include "siskin/functions.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace siskin;
    fuzz::expect_only_siskin_errors([&] {
        for (const FunctionDef& def : parse_functions(fuzz::text_of(data, size), "<fuzz>")) {
            std::string printed = def.to_string();
            std::vector<FunctionDef> again;
            try {
                again = parse_functions(printed, "<printed>");
            } catch (const Error& e) {
                fuzz::fail("printed definition does not parse back", printed + "\n" + e.what());
            }
            if (again.size() != 1 || again[0].to_string() != printed)
                fuzz::fail("printed definition does not round-trip", printed);
            function_operator(def);
        }
    });
    return 0;
}
