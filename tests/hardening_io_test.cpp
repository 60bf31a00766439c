// Issue 22, the tensor-file cases: each test is named after the case it pins (CaseNN...), and
// checks the mechanism (checked sizes, checked value conversions, refused Matrix Market fills,
// all-or-nothing output files, quoted input in messages), not only the reproducer.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "io/checked.hpp"
#include "siskin/io.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::entries;
using siskin::testing::throws_error;
namespace fs = std::filesystem;

namespace {

class HardeningIo : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::path(::testing::TempDir()) /
               ("siskin-hardening-io-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path(name), std::ios::binary) << text;
        return path(name);
    }
    static std::string contents(const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    // The names in the test's folder: temporaries left behind would show up here.
    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
    fs::path dir_;
};

} // namespace

// Case 1: rows x cols of an array header wrapped around 2^64, the buffer came out small and the
// values overran it. Every size computed from the header is now checked.
TEST_F(HardeningIo, Case01ArrayHeaderWhoseSizeWrapsIsAnError) {
    std::string wraps = write("wraps.mtx", "%%MatrixMarket matrix array real general\n"
                                           "3 6148914691236517206\n1\n2\n3\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(wraps); },
                             {wraps + ":2: ", "3 x 6148914691236517206", "too large"}));
    std::string square = write("square.mtx", "%%MatrixMarket matrix array real symmetric\n"
                                             "4294967296 4294967296\n1\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(square); },
                             {square + ":2: ", "4294967296 x 4294967296", "too large"}));
    // A size that fits 64 bits but not the file is refused before the buffer is allocated.
    std::string big = write("big.mtx", "%%MatrixMarket matrix array real general\n"
                                       "100000 100000\n1\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(big); },
                             {big + ":2: ", "10000000000 values", "only"}));
    std::string skew = write("skew.mtx", "%%MatrixMarket matrix array real skew-symmetric\n"
                                         "3037000500 3037000500\n1\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(skew); }, {skew + ":2: "}));
    // The helper itself.
    EXPECT_FALSE(io::checked_mul(3, 6148914691236517206));
    EXPECT_EQ(io::checked_mul(3, 5), 15);
    EXPECT_FALSE(io::checked_add(INT64_MAX, 1));
    // A valid array still reads.
    std::string ok = write("ok.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n");
    Tensor t = read_matrix_market(ok);
    EXPECT_EQ(t.at({0, 1}).as_double(), 2.0);
    EXPECT_EQ(t.at({1, 1}).as_double(), 3.0);
}

// Case 8: a value read into an integer type is a whole number the type holds, or an error on
// its line naming the value and the type (as an out-of-range integer always was).
TEST_F(HardeningIo, Case08FloatsReadIntoIntegerTypesAreCheckedNotConverted) {
    ReadOptions as_int64;
    as_int64.type = ValueType::Int64;
    auto coordinate = [&](const std::string& value) {
        return write("v.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 " +
                                  value + "\n");
    };
    for (const auto& [value, why] : std::vector<std::pair<std::string, std::string>>{
             {"inf", "not finite"}, {"-inf", "not finite"}, {"nan", "not finite"},
             {"2.5", "not a whole number"}, {"-0.5", "not a whole number"},
             {"1e300", "out of range"}, {"9223372036854775808.0", "out of range"}}) {
        std::string p = coordinate(value);
        EXPECT_TRUE(throws_error([&] { read_matrix_market(p, as_int64); },
                                 {p + ":4: ", "'" + value + "'", why, "int64"}))
            << value;
    }
    // Whole numbers in a float spelling are the integers they name.
    Tensor whole = read_matrix_market(coordinate("-3.0e2"), as_int64);
    EXPECT_EQ(whole.at({1, 1}).as_int(), -300);
    // Narrow types: range by the type, whatever the spelling.
    ReadOptions as_int8;
    as_int8.type = ValueType::Int8;
    std::string p = coordinate("200.0");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(p, as_int8); }, {p + ":4: ", "int8"}));
    ReadOptions as_uint32;
    as_uint32.type = ValueType::UInt32;
    p = coordinate("-1");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(p, as_uint32); }, {p + ":4: ", "uint32"}));
    // Array files and .tns files take the same path.
    std::string array = write("a.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2.5\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(array, as_int64); }, {array + ":4: ", "'2.5'"}));
    std::string tns = write("t.tns", "1 1 4\n2 2 inf\n");
    EXPECT_TRUE(throws_error([&] { read_frostt(tns, as_int64); }, {tns + ":2: ", "'inf'", "int64"}));
    EXPECT_EQ(read_frostt(write("u.tns", "1 1 4.0\n"), as_int64).at({0, 0}).as_int(), 4);
}

// Case 12: bytes from a file are quoted escaped and cut, so that a message stays one short line
// whatever the file holds (escape sequences, a 5 MB banner line).
TEST_F(HardeningIo, Case12FileBytesInMessagesAreEscapedAndCut) {
    EXPECT_EQ(quote_input("abc"), "'abc'");
    EXPECT_EQ(quote_input("a\x1b[31mb\n"), "'a\\x1b[31mb\\x0a'");
    EXPECT_EQ(quote_input("it's a\\b"), "'it\\'s a\\\\b'");
    EXPECT_EQ(quote_input("caf\xc3\xa9"), "'caf\xc3\xa9'");          // UTF-8 text stays
    EXPECT_EQ(quote_input("\xc2\x9b" "x"), "'\\xc2\\x9bx'");         // a C1 control does not
    EXPECT_EQ(quote_input(std::string(100, 'x'), 10), "'xxxxxxxxxx...' (10 of 100 bytes shown)");
    EXPECT_EQ(printable_text("a 'b'\x07", 100), "a 'b'\\x07");

    std::string banner = write("banner.mtx", "%%MatrixMarket \x1b]0;owned\x07" + std::string(5'000'000, 'A') +
                                                 "\n1 1 1\n1 1 1\n");
    try {
        read_matrix_market(banner);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        std::string what = e.what();
        EXPECT_LT(what.size(), 400u) << what.substr(0, 400);
        EXPECT_EQ(what.find('\x1b'), std::string::npos);
        EXPECT_NE(what.find("\\x1b]0;owned\\x07"), std::string::npos) << what;
        EXPECT_NE(what.find("bytes shown"), std::string::npos) << what;
    }
    std::string value = write("value.tns", "1 1 \x1b[2J\n");
    EXPECT_TRUE(throws_error([&] { read_frostt(value); }, {value + ":1: ", "'\\x1b[2J'"}));
}
