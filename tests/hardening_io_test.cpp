// Issue 22, the tensor-file cases: each test is named after the case it pins (CaseNN...), and
// checks the mechanism (checked sizes, checked value conversions, refused Matrix Market fills,
// all-or-nothing output files, quoted input in messages), not only the reproducer.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <signal.h>
#include <sys/resource.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "io/checked.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"
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
    // The names in the test's folder: temporaries left behind would show up here.
    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
    fs::path dir_;
};

Tensor sparse_with_fill(double fill) {
    return Tensor::from_coordinates({3, 3}, ValueType::Float64, Scalar::of(fill), Format::csr(),
                                    entries(2, {{{0, 1}, 2.0}, {{2, 2}, 5.0}}));
}

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

// Case 3: a .tns line of 20,000 indices made a 20,000-dimensional tensor, and the program over
// it 20,000 nested loops, through which every pass recursed until the stack ran out. The rank
// is limited (64, or SISKIN_MAX_RANK) where it is first known: in the readers, in every tensor
// built, and in the subscripts of a program; and loops a statement implies count against the
// parser's nesting limit like written ones.
TEST_F(HardeningIo, Case03RankIsLimitedAndLoopsNestWithinTheLimit) {
    auto indices = [](int n, const std::string& each) {
        std::string out;
        for (int k = 0; k < n; ++k) out += (k ? " " : "") + each;
        return out;
    };
    std::string wide = write("wide.tns", indices(20000, "1") + " 1.5\n");
    EXPECT_TRUE(throws_error([&] { read_frostt(wide); },
                             {wide + ":1: ", "20000 dimensions", "rank limit of 64", "SISKIN_MAX_RANK"}));
    std::string comment = write("comment.tns", "# shape: " + indices(65, "2") + "\n");
    EXPECT_TRUE(throws_error([&] { read_frostt(comment); }, {comment + ":1: ", "65 dimensions", "64"}));
    std::string at_limit = write("64.tns", indices(64, "2") + " 1.5\n");
    EXPECT_EQ(read_frostt(at_limit).ndims(), 64);
    std::vector<int64_t> shape(65, 1);
    EXPECT_TRUE(throws_error([&] { Tensor(shape, ValueType::Float64, Scalar::of(0.0), Format::coo(65)); },
                             {"65 dimensions", "rank limit of 64"}));
    // The limit moves with SISKIN_MAX_RANK, and a value that is not a rank is an error.
    ::setenv("SISKIN_MAX_RANK", "100", 1);
    EXPECT_EQ(read_frostt(comment).ndims(), 65);
    ::setenv("SISKIN_MAX_RANK", "many", 1);
    EXPECT_TRUE(throws_error([&] { read_frostt(comment); }, {"SISKIN_MAX_RANK is 'many'"}));
    ::unsetenv("SISKIN_MAX_RANK");
    // Programs: an access past the rank limit, and more loops than the nesting limit, written or
    // implied, are errors at their place, not a stack overflow later.
    std::string subscripts, product, heads;
    for (int k = 0; k < 600; ++k) {
        subscripts += (k ? "," : "") + fmt::format("i{}", k);
        product += (k ? " * " : "") + fmt::format("A[i{}]", k);
        heads += (k ? ", " : "") + fmt::format("i{} in 0:1", k);
    }
    EXPECT_TRUE(throws_error([&] { ir::parse_program("s[] += A[" + subscripts + "]"); },
                             {"access A[...] has 600 dimensions", "rank limit of 64"}));
    EXPECT_TRUE(throws_error([&] { ir::parse_program("s[] += " + product); },
                             {"600 nested loops", "nesting limit of 500"}));
    EXPECT_TRUE(throws_error([&] { ir::parse_program("for " + heads + " { s[] += 1 }"); },
                             {"nests more than 500 levels"}));
}

// Case 4, in the library: storage that follows the shape (a csr's row pointers, a dense
// tensor's values, the row pointers of a transpose into csr) is checked against the machine's
// memory before it is allocated; formats that grow with the entries hold a 2^40-row matrix.
TEST_F(HardeningIo, Case04StorageThatFollowsTheShapeIsCheckedBeforeAllocating) {
    std::string huge = write("huge.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                         "1099511627776 5 3\n1 1 1\n7 2 2\n1099511627776 5 3\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(huge); },
                             {huge, "shape [1099511627776, 5]", "8.0 TiB", "pos array", "coo, dcsr"}));
    ReadOptions dense;
    dense.format = Format::dense(2);
    EXPECT_TRUE(throws_error([&] { read_matrix_market(huge, dense); }, {"40.0 TiB", "its values"}));
    for (const char* spelling : {"coo", "dcsr", "csc"}) {
        ReadOptions o;
        o.format = Format::parse(spelling, 2);
        Tensor t = read_matrix_market(huge, o);
        EXPECT_EQ(t.stored(), 3) << spelling;
        EXPECT_EQ(t.at({6, 1}).as_double(), 2) << spelling;
        EXPECT_EQ(t.at({(int64_t{1} << 40) - 1, 4}).as_double(), 3) << spelling;
        if (std::string(spelling) == "csc") {
            EXPECT_TRUE(throws_error([&] { t.convert(Format::csr()); }, {"8.0 TiB", "coo, dcsr"}));
        }
    }
    EXPECT_EQ(file_type_ndims(huge), 2);
    EXPECT_EQ(file_type_ndims(write("t.tns", "1 1 1 1\n")), std::nullopt);
}

// Case 4, the reader's own buffers: a size line claiming 71 million entries over a file that
// holds none reserved gigabytes for them (found by the Matrix Market fuzzer). What the reader
// reserves is bounded by the bytes left in the file, so under an address-space limit of 1 GiB
// above what the process maps now it still reports the missing entries.
TEST_F(HardeningIo, Case04DeclaredEntryCountsDoNotReserveMemory) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: no address-space limit";
#else
    std::string claim = write("claim.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                           "34 34 71111113\n2 1\n");
    int64_t mapped_kib = 0;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmSize:", 0) == 0) mapped_kib = std::stoll(line.substr(7));
    if (mapped_kib == 0) GTEST_SKIP() << "no /proc/self/status";
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
    rlimit limited = saved;
    limited.rlim_cur = static_cast<rlim_t>(mapped_kib + (int64_t{1} << 20)) * 1024;
    if (saved.rlim_max != RLIM_INFINITY && limited.rlim_cur > saved.rlim_max) GTEST_SKIP();
    ASSERT_EQ(setrlimit(RLIMIT_AS, &limited), 0);
    ::testing::AssertionResult reported = throws_error([&] { read_matrix_market(claim); },
                                 {claim, "the file ends after 1 of the 71111113 entries"});
    setrlimit(RLIMIT_AS, &saved);
    EXPECT_TRUE(reported);
#endif
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

// Case 8, for bool: a number read into bool follows the integer rule (a whole number the type
// holds, 0 or 1 in any spelling) instead of every non-zero float becoming true; and the mirror
// of a skew-symmetric entry must be a value of the type too (-1 is no uint8, and no bool).
TEST_F(HardeningIo, Case08FloatsReadIntoBoolFollowTheIntegerRule) {
    ReadOptions as_bool;
    as_bool.type = ValueType::Bool;
    auto coordinate = [&](const std::string& value) {
        return write("b.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 " +
                                  value + "\n");
    };
    for (const auto& [value, why] : std::vector<std::pair<std::string, std::string>>{
             {"inf", "not finite"}, {"nan", "not finite"}, {"2.5", "not a whole number"},
             {"0.5", "not a whole number"}, {"2", "out of range"}, {"-1", "out of range"},
             {"2.0", "out of range"}, {"yes", "not a bool"}}) {
        std::string p = coordinate(value);
        EXPECT_TRUE(throws_error([&] { read_matrix_market(p, as_bool); }, {p + ":4: ", "'" + value + "'", why}))
            << value;
    }
    for (const auto& [value, want] : std::vector<std::pair<std::string, bool>>{
             {"1.0", true}, {"0.0", false}, {"1e0", true}, {"-0.0", false}, {"true", true}, {"0", false}}) {
        Tensor t = read_matrix_market(coordinate(value), as_bool);
        EXPECT_EQ(t.at({1, 1}).as_bool(), want) << value;
        EXPECT_TRUE(t.at({0, 0}).as_bool()) << value;
    }
    std::string tns = write("t.tns", "1 1 1\n2 2 2.5\n");
    EXPECT_TRUE(throws_error([&] { read_frostt(tns, as_bool); }, {tns + ":2: ", "'2.5'", "bool"}));
    // Skew-symmetric mirrors: -1 for int8, an error for uint8 and bool.
    std::string skew = write("s.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 1\n");
    ReadOptions as_int8;
    as_int8.type = ValueType::Int8;
    EXPECT_EQ(read_matrix_market(skew, as_int8).at({0, 1}).as_int(), -1);
    ReadOptions as_uint8;
    as_uint8.type = ValueType::UInt8;
    EXPECT_TRUE(throws_error([&] { read_matrix_market(skew, as_uint8); }, {skew + ":3: ", "uint8"}));
    EXPECT_TRUE(throws_error([&] { read_matrix_market(skew, as_bool); }, {skew + ":3: ", "bool"}));
    std::string most_negative = write("m.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                                               "2 2 1\n2 1 -128\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(most_negative, as_int8); }, {most_negative + ":3: ", "int8"}));
}

// Case 9: Matrix Market has no fill, so a sparse tensor whose fill is not zero would read back
// (in scipy.io.mmread) with zeros where siskin holds the fill. Refused unless asked for.
TEST_F(HardeningIo, Case09SparseMatrixMarketOutputWithNonZeroFillIsRefused) {
    Tensor t = sparse_with_fill(INFINITY);
    std::string p = path("c.mtx");
    EXPECT_TRUE(throws_error([&] { write_matrix_market(t, p); },
                             {"c.mtx", "fill inf", ".tns", "dense", "--fill-comment"}));
    EXPECT_TRUE(throws_error([&] { write_tensor(t, p); }, {"fill inf"}));
    EXPECT_FALSE(fs::exists(p));
    // Asked for: the fill travels in a comment, which siskin reads back.
    WriteOptions comment;
    comment.fill_comment = true;
    write_tensor(t, p, comment);
    Tensor back = read_tensor(p);
    EXPECT_TRUE(back.equals(t));
    EXPECT_NE(test::file_contents(p).find("% fill: inf"), std::string::npos);
    // A dense tensor is written whole, and .tns keeps the fill: both stay allowed.
    write_tensor(t.convert(Format::dense(2)), path("d.mtx"));
    EXPECT_TRUE(read_tensor(path("d.mtx")).equals(t));
    write_tensor(t, path("c.tns"));
    EXPECT_TRUE(read_tensor(path("c.tns")).equals(t));
    // A zero fill is what every reader assumes.
    write_tensor(sparse_with_fill(0.0), path("z.mtx"));
}

// Case 10: outputs were written in place. Now every file of a batch is a temporary beside its
// destination until all were written; a failure leaves the destinations as they were.
TEST_F(HardeningIo, Case10OutputsAreWrittenAllOrNothing) {
    std::string first = path("first.tns"), old = path("old.mtx");
    std::ofstream(old) << "the old contents\n";
    {
        OutputFiles files;
        files.write_tensor(sparse_with_fill(0.0), first);
        files.write_tensor(sparse_with_fill(0.0), old);
        EXPECT_TRUE(throws_error([&] { files.write_text(path("missing/dir/stats.json"), "{}"); },
                                 {"missing/dir/stats.json", "No such file or directory"}));
        // Not committed: the destructor removes the temporaries.
    }
    EXPECT_FALSE(fs::exists(first));
    EXPECT_EQ(test::file_contents(old), "the old contents\n");
    EXPECT_EQ(listing(), (std::vector<std::string>{"old.mtx"}));
    // A failing second output (here the refused fill) leaves the first unwritten too.
    {
        OutputFiles files;
        files.write_tensor(sparse_with_fill(0.0), first);
        EXPECT_TRUE(throws_error([&] { files.write_tensor(sparse_with_fill(1.0), path("c.mtx")); },
                                 {"fill 1"}));
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{"old.mtx"}));
    // Committed: every file is in place, and no temporary is left; a replaced file keeps its
    // permissions.
    fs::permissions(old, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read,
                    fs::perm_options::replace);
    {
        OutputFiles files;
        files.write_tensor(sparse_with_fill(0.0), first);
        files.write_tensor(sparse_with_fill(0.0), old);
        files.commit();
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{"first.tns", "old.mtx"}));
    EXPECT_TRUE(read_tensor(old).equals(sparse_with_fill(0.0)));
    EXPECT_EQ(fs::status(old).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    // One path twice in a batch is an error, not a silent overwrite.
    OutputFiles twice;
    twice.write_text(path("x.json"), "1");
    EXPECT_TRUE(throws_error([&] { twice.write_text(path("x.json"), "2"); }, {"written twice"}));
}

// Case 10: a write that fails part-way (here: past the file size limit, EFBIG) used to leave a
// truncated file that read back as a valid tensor, and reported whatever errno was left over.
TEST_F(HardeningIo, Case10FailedWriteLeavesTheOldFileAndNamesItsOwnErrno) {
    std::string p = path("big.tns");
    std::ofstream(p) << "# shape: 1\n1 7\n";
    std::vector<std::pair<std::vector<int64_t>, double>> many;
    for (int64_t i = 0; i < 20000; ++i) many.push_back({{i}, 1.5});
    CoordinateList list;
    list.ndims = 1;
    for (const auto& [c, v] : many) list.add(c, Scalar::of(v));
    Tensor t = Tensor::from_coordinates({20000}, ValueType::Float64, Scalar::of(0.0),
                                        Format::coo(1), list);
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit small = saved;
    small.rlim_cur = 4096;
    auto old_handler = signal(SIGXFSZ, SIG_IGN);
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    errno = EACCES; // stale: must not show up in the message
    bool threw = throws_error([&] { write_tensor(t, p); }, {"big.tns", std::strerror(EFBIG)});
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    EXPECT_TRUE(threw);
    EXPECT_EQ(test::file_contents(p), "# shape: 1\n1 7\n");
    EXPECT_EQ(listing(), (std::vector<std::string>{"big.tns"}));
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
