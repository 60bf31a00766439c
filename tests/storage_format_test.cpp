// Format spellings: presets, the general form, printing and every kind of bad spelling.
#include <gtest/gtest.h>

#include "siskin/format.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::throws_error;

TEST(StorageFormat, PresetsMeanTheirLevels) {
    EXPECT_EQ(Format::parse("csr", 2).to_string(), "dense(0)/sparselist(1)");
    EXPECT_EQ(Format::parse("csc", 2).to_string(), "dense(1)/sparselist(0)");
    EXPECT_EQ(Format::parse("dcsr", 2).to_string(), "sparselist(0)/sparselist(1)");
    EXPECT_EQ(Format::parse("dcsc", 2).to_string(), "sparselist(1)/sparselist(0)");
    EXPECT_EQ(Format::parse("dense", 3).to_string(), "dense(0)/dense(1)/dense(2)");
    EXPECT_EQ(Format::parse("coo", 3).to_string(), "coo(0,1,2)");
    EXPECT_EQ(Format::parse("csf", 3).to_string(), "sparselist(0)/sparselist(1)/sparselist(2)");
    EXPECT_EQ(Format::parse("csf(2,0,1)", 3).to_string(),
              "sparselist(2)/sparselist(0)/sparselist(1)");
    EXPECT_EQ(Format::parse("csr@32", 2).to_string(), "dense(0)@32/sparselist(1)@32");
    EXPECT_EQ(Format::parse("coo@64", 2).to_string(), "coo(0,1)@64");
    EXPECT_EQ(Format::parse("csf(1,0)@64", 2).to_string(), "sparselist(1)@64/sparselist(0)@64");
    EXPECT_EQ(Format::parse("csr/pattern", 2).to_string(), "dense(0)/sparselist(1)/pattern");
    EXPECT_EQ(Format::parse("dense", 0).to_string(), "element");
    EXPECT_EQ(Format::parse("csf", 1).to_string(), "sparselist(0)");

    EXPECT_EQ(Format::parse("csr", 2), Format::csr());
    EXPECT_EQ(Format::parse("csc", 2), Format::csc());
    EXPECT_EQ(Format::parse("dcsr", 2), Format::dcsr());
    EXPECT_EQ(Format::parse("dcsc", 2), Format::dcsc());
    EXPECT_EQ(Format::parse("coo", 4), Format::coo(4));
    EXPECT_EQ(Format::parse("csf(2,0,1)", 3), Format::csf(3, {2, 0, 1}));
    EXPECT_EQ(Format::parse("dense(0)/sparselist(1)/element", 2), Format::csr());
}

TEST(StorageFormat, GeneralSpellingRoundTrips) {
    struct Case {
        const char* spelling;
        int ndims;
    };
    for (Case c : {Case{"dense(0)/sparselist(1)@32/element", 2}, {"d(0)/s(1)", 2},
                   {"compressed(1)/dense(0)@64", 2}, {"coo(1,0)/pattern", 2},
                   {"dense(2)/coo(0,1)@32", 3}, {"s(3)/d(1)/coo(2,0)", 4}, {"element", 0},
                   {"sparselist(0)/pattern", 1}, {" dense(0) / sparselist( 1 ) @64", 2},
                   {"csr", 2}, {"csc@64", 2}, {"coo", 1}, {"csf(2,0,1)@32", 3}}) {
        Format f = Format::parse(c.spelling, c.ndims);
        EXPECT_EQ(f.ndims(), c.ndims) << c.spelling;
        std::string printed = f.to_string();
        EXPECT_EQ(Format::parse(printed, c.ndims), f) << c.spelling << " printed as " << printed;
    }
    Format f = Format::parse("d(0)/s(1)@32", 2);
    EXPECT_EQ(f.to_string(), "dense(0)/sparselist(1)@32");
    EXPECT_EQ(f.levels()[1].kind, "sparselist");
    EXPECT_EQ(f.levels()[1].index_bits, 32);
    EXPECT_EQ(f.levels()[0].index_bits, 0);
    EXPECT_EQ(Format::parse("coo(1,0)/pattern", 2).leaf(), Leaf::Pattern);
}

TEST(StorageFormat, ModeOrderAndWidths) {
    Format f = Format::parse("s(2)/coo(0,3)/d(1)", 4);
    EXPECT_EQ(f.mode_order(), (std::vector<int>{2, 0, 3, 1}));
    EXPECT_EQ(f.ndims(), 4);
    Format w = Format::parse("d(0)@32/s(1)", 2).with_index_bits(64);
    EXPECT_EQ(w.to_string(), "dense(0)@32/sparselist(1)@64");
    EXPECT_TRUE(throws_error([&] { w.with_index_bits(16); }, {"bad index width 16"}));
}

TEST(StorageFormat, ConstructorCanonicalisesAndChecks) {
    Format f({{"s", {1}, 0}, {"d", {0}, 0}}, Leaf::Element);
    EXPECT_EQ(f, Format::parse("s(1)/d(0)", 2));
    EXPECT_EQ(f.levels()[0].kind, "sparselist");
    EXPECT_TRUE(throws_error([] { Format({{"dense", {0, 1}, 0}}, Leaf::Element); },
                             {"dense level stores exactly 1 mode"}));
    EXPECT_TRUE(throws_error([] { Format({{"dense", {1}, 0}}, Leaf::Element); },
                             {"mode 1 is out of range"}));
    EXPECT_TRUE(throws_error([] { Format({{"dense", {0}, 16}}, Leaf::Element); },
                             {"bad index width 16"}));
    EXPECT_TRUE(throws_error([] { Format({{"zigzag", {0}, 0}}, Leaf::Element); },
                             {"unknown level 'zigzag'", "sparselist"}));
}

// One test per kind of bad spelling; every message names the spelling it is about.
struct BadSpelling {
    const char* name;
    const char* spelling;
    int ndims;
    std::vector<std::string> message;
};

void PrintTo(const BadSpelling& b, std::ostream* os) { *os << b.spelling; }

class StorageFormatBad : public ::testing::TestWithParam<BadSpelling> {};

TEST_P(StorageFormatBad, IsAnErrorNamingTheProblem) {
    const BadSpelling& c = GetParam();
    std::vector<std::string> parts = c.message;
    if (*c.spelling) parts.push_back(std::string("format '") + c.spelling + "'");
    EXPECT_TRUE(throws_error([&] { Format::parse(c.spelling, c.ndims); }, parts));
}

INSTANTIATE_TEST_SUITE_P(
    Storage, StorageFormatBad,
    ::testing::Values(
        BadSpelling{"UnknownLevel", "sparse(0)/dense(1)", 2,
                    {"unknown level 'sparse'", "dense (d)", "sparselist (s, compressed)", "coo"}},
        BadSpelling{"RepeatedMode", "dense(0)/dense(0)", 2, {"mode 0 appears twice", "permutation"}},
        BadSpelling{"ModeOutOfRange", "dense(0)/dense(2)", 2, {"mode 2 is out of range"}},
        BadSpelling{"TooFewModes", "dense(0)", 2, {"store 1 mode", "2 dimensions"}},
        BadSpelling{"TooManyModes", "dense(0)/s(1)/s(2)", 2, {"store 3 modes"}},
        BadSpelling{"BadLevelWidth", "dense(0)/sparselist(1)@16", 2,
                    {"bad index width '@16'", "@32 or @64"}},
        BadSpelling{"BadPresetWidth", "csr@128", 2, {"bad index width '@128'"}},
        BadSpelling{"PresetDoesNotFit", "csr", 3, {"preset 'csr'", "2-dimensional", "3"}},
        BadSpelling{"PresetDoesNotFitVector", "dcsc", 1, {"preset 'dcsc'"}},
        BadSpelling{"CsfOrderTooShort", "csf(0,1)", 3, {"csf mode order has 2 modes"}},
        BadSpelling{"CsfOrderRepeats", "csf(0,0,1)", 3, {"appears twice"}},
        BadSpelling{"NonNumericMode", "dense(x)", 1, {"'x' is not a mode number"}},
        BadSpelling{"UnclosedParenthesis", "dense(0", 1, {"missing ')'"}},
        BadSpelling{"TextAfterModes", "dense(0)x", 1, {"unexpected text after ')'"}},
        BadSpelling{"LevelWithoutModes", "sparselist", 1, {"needs its modes", "sparselist(0)"}},
        BadSpelling{"LeafNotLast", "pattern/dense(0)", 1, {"leaf 'pattern' must come last"}},
        BadSpelling{"EmptyLevel", "dense(0)//sparselist(1)", 2, {"empty level"}},
        BadSpelling{"EmptySpelling", "", 2, {"empty format"}},
        BadSpelling{"DenseWithTwoModes", "dense(0,1)", 2, {"dense level stores exactly 1 mode"}},
        BadSpelling{"CooWithoutModes", "coo()", 0, {"coo level stores at least 1 mode"}},
        BadSpelling{"PresetThenLevels", "csr/dense(0)", 2, {"cannot be followed by levels"}},
        BadSpelling{"NoLevelName", "(0)", 1, {"no level name"}},
        BadSpelling{"UnknownLeaf", "dense(0)/values", 1, {"unknown level 'values'",
                                                           "leaves: element, pattern"}}),
    [](const ::testing::TestParamInfo<BadSpelling>& info) { return info.param.name; });
