// Matrix Market and FROSTT files: round trips, the bundled real matrices, and one test per kind
// of malformed input (each must name the file and the line).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include "siskin/io.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::doubles;
using siskin::testing::entries;
using siskin::testing::ints;
using siskin::testing::throws_error;
using V = std::vector<int64_t>;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// A directory for this test's files, emptied when a test first asks for it.
std::string temp_dir() {
    static std::string current_test;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "." + info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("siskin_" + name);
    if (current_test != name) {
        current_test = name;
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    return dir.string();
}

std::string write_text(const std::string& name, const std::string& text) {
    std::string path = temp_dir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::string data(const std::string& name) { return std::string(SISKIN_REPO_DATA_DIR) + "/" + name; }

// Expects reading `text` as file `name` to fail on `line` with a message containing `part`.
::testing::AssertionResult bad_file(const std::string& name, const std::string& text, int line,
                                    const std::string& part, const ReadOptions& options = {}) {
    std::string path = write_text(name, text);
    return throws_error([&] { read_tensor(path, options); },
                        {path + ":" + std::to_string(line) + ": ", part});
}

Tensor round_trip(const Tensor& t, const std::string& name, ReadOptions options = {},
                  WriteOptions write = {}) {
    std::string path = temp_dir() + "/" + name;
    write_tensor(t, path, write);
    return read_tensor(path, options);
}

std::vector<Scalar> scalars(std::initializer_list<double> values) {
    std::vector<Scalar> out;
    for (double v : values) out.push_back(Scalar::of(v));
    return out;
}

} // namespace

TEST(StorageIo, BundledPatternSymmetricKarate) {
    Tensor t = read_matrix_market(data("karate.mtx"));
    EXPECT_EQ(t.shape(), (V{34, 34}));
    EXPECT_EQ(t.type(), ValueType::Bool);
    EXPECT_EQ(t.format().leaf(), Leaf::Pattern);
    EXPECT_EQ(t.stored(), 156);
    // "2 1" and "32 1" are in the file; the mirror entries come from the symmetry.
    EXPECT_TRUE(t.at({1, 0}).as_bool());
    EXPECT_TRUE(t.at({0, 1}).as_bool());
    EXPECT_TRUE(t.at({31, 0}).as_bool());
    EXPECT_TRUE(t.at({0, 31}).as_bool());
    EXPECT_FALSE(t.at({0, 0}).as_bool());
    EXPECT_FALSE(t.at({0, 9}).as_bool()); // "10 1" is not in the file
    // Row 0 has the 16 neighbours listed in column 1 of the file.
    EXPECT_EQ(ints(t.level(1).buffer("pos"))[1], 16);
    // Read as values, for arithmetic.
    ReadOptions as_float;
    as_float.type = ValueType::Float64;
    Tensor f = read_matrix_market(data("karate.mtx"), as_float);
    EXPECT_EQ(f.format().leaf(), Leaf::Element);
    EXPECT_EQ(f.at({31, 0}).as_double(), 1.0);
    EXPECT_EQ(f.stored(), 156);
}

TEST(StorageIo, BundledSymmetric1138Bus) {
    Tensor t = read_matrix_market(data("1138_bus.mtx"));
    EXPECT_EQ(t.shape(), (V{1138, 1138}));
    EXPECT_EQ(t.type(), ValueType::Float64);
    EXPECT_EQ(t.stored(), 4054);
    EXPECT_EQ(t.at({0, 0}).as_double(), 1474.779);
    EXPECT_EQ(t.at({4, 0}).as_double(), -9.017133);
    EXPECT_EQ(t.at({0, 4}).as_double(), -9.017133);
    EXPECT_EQ(t.at({562, 0}).as_double(), -5.730659);
    EXPECT_EQ(t.at({0, 562}).as_double(), -5.730659);
    EXPECT_EQ(t.at({1, 0}).as_double(), 0.0);
}

TEST(StorageIo, BundledGeneralOlm1000) {
    Tensor t = read_matrix_market(data("olm1000.mtx"));
    EXPECT_EQ(t.shape(), (V{1000, 1000}));
    EXPECT_EQ(t.stored(), 3996);
    EXPECT_EQ(t.at({0, 0}).as_double(), -5081.64368);
    EXPECT_EQ(t.at({1, 0}).as_double(), 0.5); // written ".5" in the file
    EXPECT_EQ(t.at({0, 1}).as_double(), -45777.0931);
    EXPECT_EQ(t.at({2, 0}).as_double(), 2543.17184);
    ReadOptions csc;
    csc.format = Format::csc();
    EXPECT_TRUE(read_matrix_market(data("olm1000.mtx"), csc).equals(t));
}

TEST(StorageIo, MatrixMarketRealCoordinateRoundTrip) {
    Tensor t = Tensor::from_coordinates(
        {3, 5}, ValueType::Float64, Scalar::of(0.0), Format::csr(),
        entries(2, {{{0, 4}, 0.1}, {{2, 0}, -1e-300}, {{1, 1}, 123456789.123456789},
                    {{2, 3}, kInf}, {{0, 0}, kNaN}, {{1, 2}, 0.0}}));
    Tensor back = round_trip(t, "real.mtx");
    EXPECT_TRUE(back.equals(t));
    EXPECT_EQ(back.stored(), 6); // the explicit zero is kept
    EXPECT_EQ(back.at({0, 4}).as_double(), 0.1);
}

// Asked for (WriteOptions::fill_comment): a sparse tensor's fill is refused otherwise, since
// other readers take unstored entries as 0 (tests/hardening_io_test.cpp).
TEST(StorageIo, MatrixMarketNonZeroFillTravelsInAComment) {
    Tensor t = Tensor::from_coordinates({2, 2}, ValueType::Float64, Scalar::of(kInf),
                                        Format::dcsr(), entries(2, {{{1, 0}, 3}}));
    WriteOptions keep_fill;
    keep_fill.fill_comment = true;
    Tensor back = round_trip(t, "fill.mtx", {}, keep_fill);
    EXPECT_TRUE(back.fill().same(Scalar::of(kInf)));
    EXPECT_TRUE(back.equals(t));
    ReadOptions zero;
    zero.fill = Scalar::of(0.0);
    EXPECT_EQ(round_trip(t, "fill.mtx", zero, keep_fill).at({0, 0}).as_double(), 0.0);
}

TEST(StorageIo, MatrixMarketIntegerFloat32AndPatternRoundTrips) {
    Tensor ints32 = Tensor::from_coordinates({2, 3}, ValueType::Int32, Scalar::of(int32_t{0}),
                                             Format::coo(2), entries(2, {{{0, 2}, -7}, {{1, 1}, 2147483647}}));
    ReadOptions as_int32;
    as_int32.type = ValueType::Int32;
    EXPECT_TRUE(round_trip(ints32, "int.mtx", as_int32).equals(ints32));
    Tensor as_default = round_trip(ints32, "int.mtx");
    EXPECT_EQ(as_default.type(), ValueType::Int64);
    EXPECT_EQ(as_default.at({1, 1}).as_int(), 2147483647);

    std::vector<Scalar> floats;
    for (float f : {0.1f, 1e-40f, 3.4028235e38f, -2.5f}) floats.push_back(Scalar::of(f));
    Tensor f32 = Tensor::from_dense({4}, ValueType::Float32, Scalar::of(0.0f), Format::csf(1), floats);
    ReadOptions vector32;
    vector32.type = ValueType::Float32;
    vector32.ndims = 1;
    EXPECT_TRUE(round_trip(f32, "f32.mtx", vector32).equals(f32));

    CoordinateList p;
    p.ndims = 2;
    p.add(V{0, 1}, Scalar::of(true));
    p.add(V{2, 0}, Scalar::of(true));
    Tensor pattern = Tensor::from_coordinates({3, 3}, ValueType::Bool, Scalar::of(false),
                                              Format::parse("csr/pattern", 2), p);
    std::string path = temp_dir() + "/pattern.mtx";
    write_matrix_market(pattern, path);
    std::ifstream in(path);
    std::string banner;
    std::getline(in, banner);
    EXPECT_EQ(banner, "%%MatrixMarket matrix coordinate pattern general");
    Tensor back = read_matrix_market(path);
    EXPECT_EQ(back.format().leaf(), Leaf::Pattern);
    EXPECT_TRUE(back.equals(pattern));

    // A bool tensor with values is written as integers 0/1.
    Tensor flags = Tensor::from_dense({2}, ValueType::Bool, Scalar::of(false), Format::dense(1),
                                      std::vector{Scalar::of(true), Scalar::of(false)});
    ReadOptions as_bool;
    as_bool.type = ValueType::Bool;
    as_bool.ndims = 1;
    EXPECT_TRUE(round_trip(flags, "flags.mtx", as_bool).equals(flags));
}

TEST(StorageIo, MatrixMarketDenseTensorsUseColumnMajorArrays) {
    Tensor t = Tensor::from_dense({2, 3}, ValueType::Float64, Scalar::of(0.0), Format::dense(2),
                                  scalars({1, 2, 3, 4, 5, 6}));
    std::string path = temp_dir() + "/dense.mtx";
    write_matrix_market(t, path);
    Tensor back = read_matrix_market(path);
    EXPECT_TRUE(back.equals(t));
    EXPECT_EQ(back.format().to_string(), "dense(0)@32/dense(1)@32");
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("2 3\n1\n4\n2\n5\n3\n6\n"), std::string::npos) << text.str();

    // A 1-D tensor is an n x 1 matrix; read back as a vector or as a matrix.
    Tensor v = Tensor::from_dense({3}, ValueType::Float64, Scalar::of(0.0), Format::dense(1),
                                  scalars({1.5, 0, -2}));
    std::string vpath = temp_dir() + "/v.mtx";
    write_matrix_market(v, vpath);
    ReadOptions vector;
    vector.ndims = 1;
    EXPECT_TRUE(read_matrix_market(vpath, vector).equals(v));
    Tensor matrix = read_matrix_market(vpath);
    EXPECT_EQ(matrix.shape(), (V{3, 1}));
    EXPECT_EQ(matrix.at({2, 0}).as_double(), -2);
    // A sparse vector is written as coordinates of an n x 1 matrix.
    Tensor sv = v.convert(Format::csf(1));
    EXPECT_TRUE(round_trip(sv, "sv.mtx", vector).equals(v));
    EXPECT_EQ(round_trip(sv, "sv.mtx", vector).format().to_string(), "sparselist(0)@32");
    // A 1 x n matrix reads as a vector too.
    std::string row = write_text("row.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "1 4 1\n1 3 9\n");
    Tensor r = read_matrix_market(row, vector);
    EXPECT_EQ(r.shape(), (V{4}));
    EXPECT_EQ(r.at({2}).as_double(), 9);
    // An array file read into a sparse format keeps only elements other than the fill.
    ReadOptions as_csr;
    as_csr.format = Format::csr();
    EXPECT_EQ(read_matrix_market(vpath, [] {
                  ReadOptions o;
                  o.ndims = 1;
                  o.format = Format::csf(1);
                  return o;
              }()).stored(),
              2);
    EXPECT_EQ(read_matrix_market(path, as_csr).stored(), 6);
}

TEST(StorageIo, MatrixMarketSymmetricAndSkewExpand) {
    std::string sym = write_text("sym.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n"
                                            "% a comment\n\n"
                                            "3 3 3\n1 1 5\n3 1 -2\n3 2 7\n");
    Tensor s = read_matrix_market(sym);
    EXPECT_EQ(s.type(), ValueType::Int64);
    std::vector<int64_t> expected = {5, 0, -2, 0, 0, 7, -2, 7, 0};
    std::vector<int64_t> got;
    for (const Scalar& v : s.to_dense()) got.push_back(v.as_int());
    EXPECT_EQ(got, expected);
    EXPECT_EQ(s.stored(), 5);

    std::string skew = write_text("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                              "3 3 2\n2 1 1.5\n3 2 -4\n");
    std::vector<double> dense;
    for (const Scalar& v : read_matrix_market(skew).to_dense()) dense.push_back(v.as_double());
    EXPECT_EQ(dense, (std::vector<double>{0, -1.5, 0, 1.5, 0, 4, 0, -4, 0}));

    // Array forms store the lower triangle column by column.
    std::string asym = write_text("asym.mtx", "%%MatrixMarket matrix array real symmetric\n"
                                              "2 2\n1\n2\n3\n");
    dense.clear();
    for (const Scalar& v : read_matrix_market(asym).to_dense()) dense.push_back(v.as_double());
    EXPECT_EQ(dense, (std::vector<double>{1, 2, 2, 3}));
    std::string askew = write_text("askew.mtx", "%%MatrixMarket matrix array real skew-symmetric\n"
                                                "3 3\n1\n2\n3\n");
    dense.clear();
    for (const Scalar& v : read_matrix_market(askew).to_dense()) dense.push_back(v.as_double());
    EXPECT_EQ(dense, (std::vector<double>{0, -1, -2, 1, 0, -3, 2, 3, 0}));

    // CRLF line ends and a banner in another case are accepted.
    std::string crlf = write_text("crlf.mtx", "%%MatrixMarket MATRIX Coordinate Real General\r\n"
                                              "2 2 1\r\n2 2 4.5\r\n");
    EXPECT_EQ(read_matrix_market(crlf).at({1, 1}).as_double(), 4.5);
}

TEST(StorageIo, StreamsAndDispatch) {
    std::istringstream in("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3\n");
    Tensor t = read_matrix_market(in, "memory.mtx");
    EXPECT_EQ(t.at({0, 1}).as_double(), 3);
    std::istringstream bad("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 3\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market(bad, "memory.mtx"); },
                             {"memory.mtx:3: ", "column index 3 is out of range 1..2"}));
    std::istringstream tns("1 1 2.5\n2 3 1\n");
    EXPECT_EQ(read_frostt(tns, "memory.tns").shape(), (V{2, 3}));

    EXPECT_TRUE(throws_error([] { read_tensor("matrix.csv"); },
                             {"unknown tensor file extension '.csv'"}));
    EXPECT_TRUE(throws_error([&] { write_tensor(t, temp_dir() + "/x.npy"); }, {"'.npy'"}));
    EXPECT_TRUE(throws_error([] { read_tensor("/nonexistent/dir/m.mtx"); },
                             {"cannot open '/nonexistent/dir/m.mtx'"}));
    EXPECT_TRUE(throws_error([&] { write_tensor(t, "/nonexistent/dir/m.mtx"); },
                             {"cannot create"}));
    Tensor cube({2, 2, 2}, ValueType::Float64, Scalar::of(0.0), Format::coo(3));
    EXPECT_TRUE(throws_error([&] { write_matrix_market(cube, temp_dir() + "/c.mtx"); },
                             {"1-D and 2-D", "3-D"}));
    ReadOptions three;
    three.ndims = 3;
    EXPECT_TRUE(throws_error([&] { read_matrix_market(data("karate.mtx"), three); },
                             {"1 or 2 dimensions"}));
}

TEST(StorageIo, FrosttRoundTrips) {
    CoordinateList list = entries(3, {{{0, 2, 1}, 1.25}, {{1, 0, 0}, -3}, {{1, 2, 3}, 1e100}});
    Tensor t = Tensor::from_coordinates({2, 4, 5}, ValueType::Float64, Scalar::of(0.0),
                                        Format::csf(3, {1, 2, 0}), list);
    std::string path = temp_dir() + "/t.tns";
    write_frostt(t, path);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    // The shape header, then entries in storage order (mode order 1, 2, 0), 1-based.
    EXPECT_EQ(text.str(), "# shape: 2 4 5\n2 1 1 -3\n1 3 2 1.25\n2 3 4 1e+100\n");
    Tensor back = read_frostt(path);
    EXPECT_EQ(back.shape(), (V{2, 4, 5}));
    EXPECT_EQ(back.format(), Format::coo(3).with_index_bits(32));
    EXPECT_TRUE(back.equals(t));

    // Without the header: the shape comes from the options, else the largest coordinates.
    std::string bare = write_text("bare.tns", "1 3 2 1.25\n2 1 1 -3\n");
    EXPECT_EQ(read_frostt(bare).shape(), (V{2, 3, 2}));
    ReadOptions shaped;
    shaped.shape = V{4, 4, 4};
    EXPECT_EQ(read_frostt(bare, shaped).shape(), (V{4, 4, 4}));

    // Integer values, a non-zero fill, one dimension, zero dimensions.
    Tensor ints = Tensor::from_coordinates({6}, ValueType::Int64, Scalar::of(int64_t{-1}),
                                           Format::csf(1), entries(1, {{{5}, 4}, {{0}, 9}}));
    ReadOptions as_int;
    as_int.type = ValueType::Int64;
    Tensor ints_back = round_trip(ints, "ints.tns", as_int);
    EXPECT_TRUE(ints_back.equals(ints));
    EXPECT_TRUE(ints_back.fill().same(Scalar::of(int64_t{-1})));
    Tensor scalar = Tensor::from_dense({}, ValueType::Float64, Scalar::of(0.0), Format::dense(0),
                                       scalars({2.5}));
    EXPECT_TRUE(round_trip(scalar, "scalar.tns").equals(scalar));
    EXPECT_EQ(round_trip(scalar, "scalar.tns").ndims(), 0);
    Tensor empty({3, 0, 2}, ValueType::Float64, Scalar::of(0.0), Format::coo(3));
    EXPECT_TRUE(round_trip(empty, "empty.tns").equals(empty));
}

// One test per kind of malformed input: each must name the file and the line.
struct Malformed {
    const char* name; // test name; also the file's stem
    const char* extension;
    std::string text;
    int line;
    std::string message;
    ReadOptions options = {};
};

void PrintTo(const Malformed& m, std::ostream* os) { *os << m.name; }

class StorageIoMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(StorageIoMalformed, NamesFileAndLine) {
    const Malformed& m = GetParam();
    EXPECT_TRUE(bad_file(std::string(m.name) + m.extension, m.text, m.line, m.message, m.options));
}

namespace {

const std::string kReal = "%%MatrixMarket matrix coordinate real general\n";

ReadOptions vector_options() {
    ReadOptions o;
    o.ndims = 1;
    return o;
}
ReadOptions shape_options(std::vector<int64_t> shape) {
    ReadOptions o;
    o.shape = std::move(shape);
    return o;
}
ReadOptions type_options(ValueType t) {
    ReadOptions o;
    o.type = t;
    return o;
}

std::string case_name(const ::testing::TestParamInfo<Malformed>& info) { return info.param.name; }

} // namespace

INSTANTIATE_TEST_SUITE_P(
    StorageMatrixMarket, StorageIoMalformed,
    ::testing::Values(
        Malformed{"BadBanner", ".mtx", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1,
                  "bad banner"},
        Malformed{"NoBanner", ".mtx", "3 3 1\n1 1 1\n", 1, "bad banner"},
        Malformed{"EmptyFile", ".mtx", "", 1, "empty file"},
        Malformed{"BannerObject", ".mtx", "%%MatrixMarket vector coordinate real general\n", 1,
                  "object 'vector'"},
        Malformed{"BannerFormat", ".mtx", "%%MatrixMarket matrix sparse real general\n", 1,
                  "format 'sparse'"},
        Malformed{"ComplexField", ".mtx", "%%MatrixMarket matrix coordinate complex general\n", 1,
                  "complex Matrix Market files are not supported"},
        Malformed{"HermitianSymmetry", ".mtx",
                  "%%MatrixMarket matrix coordinate real hermitian\n", 1, "hermitian"},
        Malformed{"UnknownField", ".mtx", "%%MatrixMarket matrix coordinate text general\n", 1,
                  "field 'text'"},
        Malformed{"UnknownSymmetry", ".mtx", "%%MatrixMarket matrix coordinate real upper\n", 1,
                  "symmetry 'upper'"},
        Malformed{"BannerTrailingText", ".mtx",
                  "%%MatrixMarket matrix coordinate real general extra\n", 1,
                  "unexpected text after 'general'"},
        Malformed{"PatternArray", ".mtx", "%%MatrixMarket matrix array pattern general\n", 1,
                  "pattern matrix must use the coordinate format"},
        Malformed{"PatternSkew", ".mtx",
                  "%%MatrixMarket matrix coordinate pattern skew-symmetric\n", 1,
                  "pattern matrix cannot be skew-symmetric"},
        Malformed{"MissingSizeLine", ".mtx", kReal + "% only comments\n\n", 4,
                  "missing size line"},
        Malformed{"ShortSizeLine", ".mtx", kReal + "3 3\n", 2, "size line must be"},
        Malformed{"LongSizeLine", ".mtx", kReal + "3 3 1 7\n1 1 1\n", 2, "size line must be"},
        Malformed{"NegativeRows", ".mtx", kReal + "-3 3 1\n1 1 1\n", 2, "negative row count -3"},
        Malformed{"NegativeEntries", ".mtx", kReal + "3 3 -1\n", 2, "negative entry count"},
        Malformed{"NonNumericSize", ".mtx", kReal + "3 three 1\n", 2,
                  "column count 'three' is not an integer"},
        Malformed{"FewerEntries", ".mtx", kReal + "3 3 3\n1 1 1\n2 2 2\n", 5,
                  "ends after 2 of the 3 entries"},
        Malformed{"MoreEntries", ".mtx", kReal + "3 3 1\n1 1 1\n2 2 2\n", 4,
                  "more entries than the 1 declared"},
        Malformed{"NonNumericIndex", ".mtx", kReal + "3 3 1\n1 x 1\n", 3,
                  "column index 'x' is not an integer"},
        Malformed{"NonNumericValue", ".mtx", kReal + "3 3 1\n1 1 1.0e\n", 3,
                  "value '1.0e' is not a number"},
        Malformed{"IndexOutOfRange", ".mtx", kReal + "3 3 2\n1 1 1\n4 1 1\n", 4,
                  "row index 4 is out of range 1..3"},
        Malformed{"ZeroIndex", ".mtx", kReal + "3 3 1\n0 1 1\n", 3, "row index 0"},
        Malformed{"NegativeIndex", ".mtx", kReal + "3 3 1\n1 -2 1\n", 3,
                  "column index -2 is out of range"},
        Malformed{"TruncatedLine", ".mtx", kReal + "3 3 2\n1 1 1\n2", 4, "missing column index"},
        Malformed{"MissingValue", ".mtx", kReal + "3 3 1\n1 2\n", 3, "missing value"},
        Malformed{"ExtraToken", ".mtx", kReal + "3 3 1\n1 2 3 4\n", 3, "unexpected '4'"},
        Malformed{"ValueOnPatternLine", ".mtx",
                  "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 3.0\n", 3,
                  "unexpected value '3.0' on a line of a pattern file"},
        Malformed{"RealInIntegerFile", ".mtx",
                  "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", 3,
                  "value '1.5' is not a whole number, so type int64 cannot hold it"},
        Malformed{"SkewDiagonal", ".mtx",
                  "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n", 4,
                  "on the diagonal of a skew-symmetric matrix"},
        Malformed{"SymmetricUpperTriangle", ".mtx",
                  "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1\n", 3,
                  "above the diagonal"},
        Malformed{"SymmetricNotSquare", ".mtx",
                  "%%MatrixMarket matrix coordinate real symmetric\n3 2 0\n", 2, "must be square"},
        Malformed{"ArrayFewerValues", ".mtx",
                  "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 6,
                  "ends after 3 of the 4 values"},
        Malformed{"ArrayMoreValues", ".mtx",
                  "%%MatrixMarket matrix array real general\n1 1\n1\n2\n", 4,
                  "more values than the 1"},
        Malformed{"ArrayTwoValuesOnALine", ".mtx",
                  "%%MatrixMarket matrix array real general\n2 1\n1 2\n", 3, "one value per line"},
        Malformed{"NotAVector", ".mtx", kReal + "3 3 0\n", 2, "not a vector", vector_options()},
        Malformed{"BadFillComment", ".mtx", kReal + "% fill: lots\n1 1 0\n", 2,
                  "fill comment: 'lots' is not a float64 value"}),
    case_name);

INSTANTIATE_TEST_SUITE_P(
    StorageFrostt, StorageIoMalformed,
    ::testing::Values(
        Malformed{"ZeroIndex", ".tns", "1 1 1\n1 0 2\n", 2, "index 0 in mode 1"},
        Malformed{"IndexOutOfRange", ".tns", "# shape: 2 2\n1 1 1\n3 1 2\n", 3,
                  "index 3 in mode 0 is out of range 1..2"},
        Malformed{"IndexOutsideGivenShape", ".tns", "1 1 1\n1 4 2\n", 2,
                  "index 4 in mode 1 is out of range 1..3", shape_options({3, 3})},
        Malformed{"NegativeIndex", ".tns", "1 -1 2\n", 1, "negative index -1"},
        Malformed{"MissingValue", ".tns", "# shape: 2 2\n1 1\n", 2, "missing value"},
        Malformed{"WrongFieldCount", ".tns", "1 1 1\n1 2 1 1\n", 2,
                  "expected 2 indices and a value, found 4 fields"},
        Malformed{"NonNumericIndex", ".tns", "1 1 1\n1 y 1\n", 2, "index 'y' is not an integer"},
        Malformed{"NonNumericValue", ".tns", "1 1 abc\n", 1, "value 'abc' is not a number"},
        Malformed{"NoEntriesNoShape", ".tns", "# just a comment\n", 2, "no entries and no shape"},
        Malformed{"NonNumericShape", ".tns", "# shape: 2 x\n", 1, "'x' is not an integer"},
        Malformed{"NegativeShape", ".tns", "# shape: 2 -2\n", 1, "negative extent -2"},
        Malformed{"ShapeAfterEntries", ".tns", "1 1 1\n# shape: 2 2\n", 2,
                  "must come before the entries"},
        Malformed{"ShapeDiffersFromOptions", ".tns", "# shape: 2 2\n", 1,
                  "differs from the requested shape", shape_options({3, 3})},
        Malformed{"RealValueForIntegerType", ".tns", "1 1 2.5\n", 1,
                  "value '2.5' is not a whole number, so type int32 cannot hold it",
                  type_options(ValueType::Int32)},
        Malformed{"TruncatedEntry", ".tns", "# shape: 4 4 4\n1 2 3 1\n4 4", 3,
                  "expected 3 indices and a value, found 2 fields"}),
    case_name);

TEST(StorageIo, RejectedDuplicatesNameTheFile) {
    ReadOptions reject;
    reject.duplicates = Duplicates::Reject;
    std::string dup = write_text("dup.mtx", kReal + "3 3 2\n2 3 1\n2 3 1\n");
    EXPECT_TRUE(throws_error([&] { read_tensor(dup, reject); },
                             {dup + ": ", "duplicate entry at coordinate (1, 2)"}));
    EXPECT_EQ(read_tensor(dup).at({1, 2}).as_double(), 2);
}
