// `siskin check-function FILE` and `siskin run --functions FILE` end to end: exit statuses,
// reports and results.
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>

#include <sys/wait.h>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"

#include "siskin/io.hpp"
#include "siskin/tensor.hpp"

using namespace siskin;

namespace {

using Result = test::CommandResult;
using test::siskin_cli;

const char* kGood = R"(# Euclid's algorithm, with the special case of the paper
def gcd(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
case gcd(x, 0) = abs(x)

def lcm(a: int64, b: int64) -> int64 [commutative] {
    let g = gcd(a, b)
    if g == 0 { return 0 }
    return abs(floordiv(a, g) * b)
}
)";

class FunctionsCli : public test::CliScratch {
protected:
    std::string write(const std::string& name, const std::string& text) {
        std::string p = path(name);
        std::ofstream(p) << text;
        return p;
    }
};

} // namespace

TEST_F(FunctionsCli, CheckFunctionReportsHoldingClaims) {
    Result r = siskin_cli("check-function " + write("good.sk", kGood));
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output, "gcd: ok: commutative, associative, annihilator 1, 1 case hold\n"
                        "lcm: ok: commutative holds\n");
}

// A declared space: one that holds is reported; a body that is not constant outside fails.
TEST_F(FunctionsCli, CheckFunctionChecksADeclaredSpace) {
    Result ok = siskin_cli("check-function " +
                           write("space.sk", "def cli_keep(x: float64, y: float64) -> float64 "
                                             "[space(x & !y)] {\n"
                                             "    if y == 0 { return x * x + 1 }\n"
                                             "    return 1\n}\n"));
    EXPECT_EQ(ok.status, 0) << ok.output;
    EXPECT_EQ(ok.output, "cli_keep: ok: space holds\n");
    Result bad = siskin_cli("check-function " +
                            write("bad_space.sk", "def cli_sum(x: float64, y: float64) -> float64 "
                                                  "[space(x)] { return x + y }\n"));
    EXPECT_EQ(bad.status, 1) << bad.output;
    EXPECT_NE(bad.output.find("cli_sum: space does not hold: cli_sum(float64 0, float64 1) is "
                              "outside the space x, where cli_sum is float64 0"),
              std::string::npos)
        << bad.output;
}

TEST_F(FunctionsCli, CheckFunctionReportsCounterexamplesAndFails) {
    std::string file = write("bad.sk", R"(def minus(a: int32, b: int32) -> int32 [commutative] {
    return a - b
}
def half(x: float64) -> float64 { return x / 2 }
case half(2) = 2.0
)");
    Result r = siskin_cli("check-function " + file);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("minus: commutative does not hold: minus(bool false, bool true) = "
                            "int32 -1 but minus(bool true, bool false) = int32 1\n"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("half: case does not hold: case half(2) = 2.0: at half(float64 2) the "
                            "case gives float64 2 but the body gives float64 1\n"),
              std::string::npos)
        << r.output;
    // Three counterexamples for minus, one for half's case.
    EXPECT_NE(
        r.output.find("siskin: error: 4 counterexamples to declared properties in '" + file + "'"),
        std::string::npos)
        << r.output;
}

TEST_F(FunctionsCli, CheckFunctionErrors) {
    Result r = siskin_cli("check-function " + write("syntax.sk", "def f(a: int64) -> int64 {\n"
                                                                 "    return a +\n}\n"));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(
        r.output.rfind("siskin: error: " + path("syntax.sk") + ":3:1: expected an expression", 0),
        0u)
        << r.output;
    r = siskin_cli("check-function " + write("type.sk", "def f(a: int64) -> int32 { return a }\n"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("type.sk:1:35: the result of f is int32 but this value is int64"),
              std::string::npos)
        << r.output;
    r = siskin_cli("check-function " + path("missing.sk"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("cannot read functions file"), std::string::npos) << r.output;
    r = siskin_cli("check-function " + write("empty.sk", "# nothing\n"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("defines no function"), std::string::npos) << r.output;
}

TEST_F(FunctionsCli, RunLoadsFunctionsFromAFile) {
    std::vector<int64_t> a = {12, 0, 9, 0, 7}, b = {18, 5, 6, 0, 0};
    auto vector_file = [&](const std::string& name, const std::vector<int64_t>& v) {
        std::vector<Scalar> s;
        for (int64_t x : v) s.push_back(Scalar::of(x));
        Tensor t = Tensor::from_dense({static_cast<int64_t>(v.size())}, ValueType::Int64,
                                      Scalar::of(int64_t{0}), Format::dense(1), s);
        write_matrix_market(t, path(name));
        return path(name);
    };
    std::string A = vector_file("a.mtx", a), B = vector_file("b.mtx", b);
    Result r = siskin_cli("run 'C[i] = lcm(A[i], B[i]) + gcd(A[i], B[i])' --functions " +
                          write("f.sk", kGood) + " -i A=" + A + " -i B=" + B +
                          " -o C=" + path("c.mtx") + " --type A=int64 --type B=int64");
    ASSERT_EQ(r.status, 0) << r.output;
    ReadOptions as_vector;
    as_vector.ndims = 1;
    as_vector.type = ValueType::Int64;
    Tensor C = read_matrix_market(path("c.mtx"), as_vector);
    for (int64_t k = 0; k < 5; ++k)
        EXPECT_EQ(C.at({k}).as_int(), std::lcm(a[k], b[k]) + std::gcd(a[k], b[k])) << k;
    // Without the file the functions are unknown.
    r = siskin_cli("run 'C[i] = gcd(A[i], B[i])' -i A=" + A + " -i B=" + B + " --print C");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.output.find("unknown operator 'gcd'"), std::string::npos) << r.output;
    // Definitions may also start the program text itself.
    r = siskin_cli("run @" + write("prog.sk", std::string(kGood) + "C[i] = gcd(A[i], B[i])\n") +
                   " -i A=" + A + " -i B=" + B + " --type A=int64 --type B=int64 --print C");
    EXPECT_EQ(r.status, 0) << r.output;
}
