// Reads of one fibre with the same subscripts and protocol, in several statements of one loop
// body, share one looplet (lower_loop.cpp): the fibre is walked once, not merged with itself.
// Every program is checked against the reference evaluator; the C is checked for the walk count.
#include <string>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// A 5x5 matrix with rows of several entries, blocks and runs of equal values.
Tensor matrix(const std::string& format) {
    return make({5, 5}, format, {{{0, 0}, 2}, {{0, 1}, 2}, {{0, 3}, -1}, {{1, 1}, 3}, {{1, 2}, 3},
                                 {{2, 0}, 4}, {{2, 2}, 1}, {{2, 3}, 1}, {{2, 4}, 5}, {{4, 1}, -2},
                                 {{4, 2}, 7}, {{4, 4}, 7}});
}

Tensor vector5() {
    return make({5}, "dense", {{{0}, 1}, {{1}, -2}, {{2}, 3}, {{3}, 0.5}, {{4}, 4}});
}

// Two statements read A[i, j], one under a mask: in every row format the result is the
// reference's, and in csr each row is started once (one position walks it).
TEST(CompilerSharedReads, TwoStatementsReadingOneAccessWalkItOnce) {
    const std::string text = "for i, j {\n  u[i] += A[i, j] * x[j]\n  if i != j { v[j] += A[i, j] * x[i] }\n}\n";
    Tensor x = vector5();
    for (const std::string format : {"csr", "dense(0)/sparseband(1)", "dense(0)/sparseblocklist(1)",
                                     "dense(0)/sparserunlist(1)", "dense(0)/dense(1)"}) {
        SCOPED_TRACE(format);
        Tensor A = matrix(format);
        std::string c;
        counted(text, {{"A", &A}, {"x", &x}}, {}, &c);
        if (format == "csr") EXPECT_EQ(occurrences(c, "= A_pos[i];"), 1u) << c;
    }
}

// The same tensor read at other subscripts (A[j, i], A[i, i]) or with another protocol is not the
// same walk: the reads stay apart and the results are the reference's.
TEST(CompilerSharedReads, OtherSubscriptsOrProtocolsStayApart) {
    Tensor A = matrix("csr");
    Tensor x = vector5();
    counted("for i, j { u[i] += A[i, j] * x[j] \n w[i] += A[i, j] * A[i, i] }", {{"A", &A}, {"x", &x}});
    std::string c;
    counted("for i, j { u[i] += A[i, j] * x[j] \n w[i] += A[i, gallop(j)] }", {{"A", &A}, {"x", &x}}, {}, &c);
    EXPECT_EQ(occurrences(c, "= A_pos[i];"), 2u) << c;
    Tensor S = make({5, 5}, "dense", {{{0, 0}, 1}, {{0, 2}, 2}, {{2, 0}, 3}, {{3, 4}, 4}, {{4, 3}, 5}});
    counted("for i, j { u[i] += S[i, j] * S[j, i] \n w[j] += S[i, j] }", {{"S", &S}});
}

} // namespace
} // namespace siskin::testing
