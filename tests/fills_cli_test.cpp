// `siskin run` and `siskin c` on programs that declare fills in their text: inputs are read
// with the declared fill (as --fill would), outputs get theirs, and a --fill that contradicts
// the text is a one-line error naming both.
#include <cmath>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "siskin/io.hpp"

using namespace siskin;

namespace {

class FillsCli : public test::CliScratch {
protected:
    std::string write_program(const std::string& text) {
        std::ofstream(path("prog.sk")) << text;
        return "@" + path("prog.sk");
    }
    // A 3x4 matrix and a 4-vector written with fill 0 (the files say nothing of a fill).
    void write_inputs() {
        CoordinateList a;
        a.ndims = 2;
        a.add(std::vector<int64_t>{0, 0}, Scalar::of(1.0));
        a.add(std::vector<int64_t>{0, 2}, Scalar::of(4.0));
        a.add(std::vector<int64_t>{1, 1}, Scalar::of(2.0));
        a.add(std::vector<int64_t>{2, 3}, Scalar::of(0.5));
        write_matrix_market(Tensor::from_coordinates({3, 4}, ValueType::Float64, Scalar::of(0.0),
                                                     Format::csr(), a),
                            path("A.mtx"));
        CoordinateList x;
        x.ndims = 1;
        x.add(std::vector<int64_t>{0}, Scalar::of(10.0));
        x.add(std::vector<int64_t>{2}, Scalar::of(1.0));
        x.add(std::vector<int64_t>{3}, Scalar::of(7.0));
        write_matrix_market(Tensor::from_coordinates({4}, ValueType::Float64, Scalar::of(0.0),
                                                     Format::parse("sparselist(0)", 1), x),
                            path("x.mtx"));
    }
    std::vector<double> read_vector(const std::string& name) {
        ReadOptions as_vector;
        as_vector.ndims = 1;
        std::vector<double> out;
        for (const Scalar& s : read_matrix_market(path(name), as_vector).to_dense())
            out.push_back(s.as_double());
        return out;
    }
};

const std::string kMinPlus = "fill A = inf   # no edge\n"
                             "fill x = inf\n"
                             "y[i] min= A[i,j] + x[j]\n";

TEST_F(FillsCli, RunReadsInputsWithTheDeclaredFill) {
    write_inputs();
    std::string prog = write_program(kMinPlus);
    for (const char* engine : {"", "--interpret"}) {
        auto r = cli("run " + prog + " -i A=" + path("A.mtx") + " -i x=" + path("x.mtx") +
                     " -o y=" + path("y.mtx") + ":dense " + engine);
        ASSERT_EQ(r.status, 0) << r.output;
        // Read with fill 0, row 1 would be 2 + 0 and row 0 min(1 + 10, 0 + 0, ...) = 0. With
        // fill inf: row 0 min(1 + 10, 4 + 1) = 5, row 1 2 + inf, row 2 0.5 + 7.
        EXPECT_EQ(read_vector("y.mtx"), (std::vector<double>{5, INFINITY, 7.5})) << engine;
    }
    // A --fill that agrees with the text is accepted.
    auto agree = cli("run " + prog + " -i A=" + path("A.mtx") + " -i x=" + path("x.mtx") +
                     " --fill A=inf -o y=" + path("y.mtx") + ":dense");
    ASSERT_EQ(agree.status, 0) << agree.output;
    EXPECT_EQ(read_vector("y.mtx"), (std::vector<double>{5, INFINITY, 7.5}));
}

TEST_F(FillsCli, DeclaredOutputFillIsRequested) {
    write_inputs();
    // `fill y = 3` on a sparse y: the program gives y inf where the inputs are fill, so a
    // sparse y cannot have fill 3; a dense one can (and stores every element anyway).
    std::string prog = write_program("fill A = inf\nfill x = inf\nfill z = 3\n"
                                     "z[i] = min(x[i], 5)\n");
    auto bad = cli("run " + prog + " -i x=" + path("x.mtx") + " -o 'z=" + path("z.mtx") +
                   ":sparselist(0)'");
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.output.find("fill declared for A, which the program does not read or write"),
              std::string::npos)
        << bad.output;
    prog = write_program("fill x = inf\nfill z = 3\nz[i] = min(x[i], 5)\n");
    bad = cli("run " + prog + " -i x=" + path("x.mtx") + " -o 'z=" + path("z.mtx") +
              ":sparselist(0)'");
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.output.find("output z cannot have fill 3: where every input holds its fill "
                              "the program gives it 5"),
              std::string::npos)
        << bad.output;
    prog = write_program("fill x = inf\nfill z = 5\nz[i] = min(x[i], 5)\n");
    auto ok = cli("run " + prog + " -i x=" + path("x.mtx") + " -o 'z=" + path("z.mtx") +
                  ":sparselist(0)' --fill-comment");
    ASSERT_EQ(ok.status, 0) << ok.output;
    // x = [10, inf, 1, 7]: min with 5 is [5, 5, 1, 5], with fill 5.
    EXPECT_EQ(read_vector("z.mtx"), (std::vector<double>{5, 5, 1, 5}));
}

TEST_F(FillsCli, ContradictingFillOptionIsAnError) {
    write_inputs();
    std::string prog = write_program(kMinPlus);
    auto r = cli("run " + prog + " -i A=" + path("A.mtx") + " -i x=" + path("x.mtx") +
                 " --fill A=0 -o y=" + path("y.mtx"));
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.output.find("siskin: error: --fill A=0 contradicts the program's declaration "
                            "fill A = inf (line 1)"),
              std::string::npos)
        << r.output;
    auto c = cli("c " + prog + " -f A=csr --fill x=-inf");
    EXPECT_NE(c.status, 0);
    EXPECT_NE(c.output.find("--fill x=-inf contradicts the program's declaration fill x = inf "
                            "(line 2)"),
              std::string::npos)
        << c.output;
}

TEST_F(FillsCli, ParseErrorsNameLineAndColumn) {
    std::string prog = write_program("fill A = inf\nfill x = 1 +\n  2\ny[i] min= A[i,j] + x[j]\n");
    auto r = cli("run " + prog + " -i A=a.mtx -i x=x.mtx");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.output.find(":2:10: the fill of x must be a constant"), std::string::npos)
        << r.output;
}

TEST_F(FillsCli, CPrintsTheSameKernelAsFillOptions) {
    std::string prog = write_program(kMinPlus);
    auto declared = cli("c " + prog + " -f A=csr -f 'x=sparselist(0)'");
    ASSERT_EQ(declared.status, 0) << declared.output;
    auto options = cli("c 'y[i] min= A[i,j] + x[j]' -f A=csr -f 'x=sparselist(0)' --fill A=inf "
                       "--fill x=inf");
    ASSERT_EQ(options.status, 0) << options.output;
    EXPECT_EQ(declared.output, options.output);
    auto zero = cli("c 'y[i] min= A[i,j] + x[j]' -f A=csr -f 'x=sparselist(0)'");
    EXPECT_NE(declared.output, zero.output); // the fills change the kernel
    // A declared fill that the type given with --type cannot hold.
    auto typed = cli("c " + prog + " -f A=csr --type A=int64");
    EXPECT_NE(typed.status, 0);
    EXPECT_NE(typed.output.find("the fill inf of A is not a value of its type int64"),
              std::string::npos)
        << typed.output;
}

} // namespace
