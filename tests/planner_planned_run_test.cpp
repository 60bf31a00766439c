// Programs run through the planner outside `siskin run`: evaluate_planned / compile_planned in
// C++ and the lazy arrays' compute() plan the way the command does (the cheapest estimate by
// default, the program as written on request), and an input stored against the program's
// order (csc into a row-order program) gets its by-columns plan and the reference's answer.
#include <gtest/gtest.h>

#include "array_test_util.hpp"
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"
#include "siskin/codegen/jit.hpp"
#include "siskin/error.hpp"
#include "siskin/planner.hpp"

namespace siskin::testing {
namespace {

// Small whole numbers: every summation order gives the same bits.
Tensor whole_numbers(int64_t m, int64_t n, double density, const std::string& format, uint64_t seed) {
    return random_matrix_of(m, n, density, format, seed, 0.0, [](double u) { return static_cast<double>(int(u * 7)) + 1; });
}

Tensor ones(int64_t n) {
    return random_tensor_of({n}, "dense", 1.0, Scalar::of(0.0), 0, [](auto&) { return Scalar::of(2.0); });
}

int64_t jit_lookups() {
    const codegen::JitCounts c = codegen::jit_counts();
    return c.compiled + c.loaded_from_disk;
}

TEST(PlannerPlannedRun, ACscMatrixIntoARowOrderProgramIsReadByColumns) {
    Tensor a = whole_numbers(60, 50, 0.05, "csc", 1), x = ones(50);
    const std::map<std::string, const Tensor*> inputs{{"A", &a}, {"x", &x}};
    const ir::Program program = ir::parse_program("y[i] += A[i,j] * x[j]");
    const Tensor want = evaluate_reference(program, inputs).at("y");

    PlannedProgram planned = compile_planned(program, inputs, {}, test_options());
    EXPECT_EQ(planned.chosen.description, "loops j, i; outer products");
    EXPECT_EQ(planned.compiled.kernel->inputs(), (std::vector<std::string>{"A", "x"})) << "no transposed copy";
    const auto got = planned.run(inputs);
    EXPECT_EQ(got.size(), 1u);
    EXPECT_TRUE(got.at("y").equals(want)) << got.at("y").to_string();

    PlanChoice written;
    written.as_written = true;
    PlannedProgram as_written = compile_planned(program, inputs, {}, test_options(), written);
    EXPECT_EQ(as_written.chosen.description, "as written");
    EXPECT_TRUE(ir::equal(as_written.chosen.program, program));
    EXPECT_TRUE(as_written.run(inputs).at("y").equals(want));
    EXPECT_TRUE(evaluate_planned(program, inputs, {}, test_options()).at("y").equals(want));
}

TEST(PlannerPlannedRun, AChoiceOutsideThePlansIsAClearError) {
    Tensor a = whole_numbers(6, 5, 0.3, "csc", 4), x = ones(5);
    const std::map<std::string, const Tensor*> inputs{{"A", &a}, {"x", &x}};
    const ir::Program program = ir::parse_program("y[i] += A[i,j] * x[j]");
    const Plan plan = plan_program(program, inputs);
    PlanChoice past;
    past.candidate = plan.candidates.size();
    try {
        choose_plan(plan, program, past);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the planner weighed " + std::to_string(plan.candidates.size())),
                  std::string::npos)
            << e.what();
    }
    PlanChoice both;
    both.candidate = 0;
    both.as_written = true;
    EXPECT_THROW(choose_plan(plan, program, both), Error);
}

TEST(PlannerPlannedRun, LazyArraysComputeThePlannersCheapestPlan) {
    auto a = std::make_shared<const Tensor>(whole_numbers(60, 50, 0.05, "csc", 5));
    auto x = std::make_shared<const Tensor>(ones(50));
    const Array y = matmul(Array(a, "A"), Array(x, "x"));
    const Tensor want = y.compute(interpreted());

    // The plan compute() weighs: its loops are the array layer's, so they may be reordered.
    const ArrayProgram p = y.lower();
    PlanOptions free_loops;
    free_loops.loops_are_free = true;
    PlannedProgram planned = compile_planned(p.program, p.input_pointers(), p.outputs, test_options(), {}, free_loops);
    EXPECT_NE(planned.chosen.description.find("outer products"), std::string::npos) << planned.chosen.description;
    EXPECT_EQ(planned.chosen.description.find("transposed"), std::string::npos) << planned.chosen.description;

    // compute() runs exactly that kernel: compiled above, it is neither compiled nor loaded again.
    const int64_t lookups = jit_lookups();
    const Tensor got = y.compute(compiled());
    EXPECT_EQ(jit_lookups(), lookups) << "compute() ran another kernel than plan 0's";
    EXPECT_TRUE(got.equals(want)) << got.to_string();

    ComputeOptions written = compiled();
    written.plan.as_written = true;
    EXPECT_TRUE(y.compute(written).equals(want));
}

TEST(PlannerPlannedRun, LazySumsOfMixedOrdersMatchTheReferenceInEveryResultFormat) {
    auto a = std::make_shared<const Tensor>(whole_numbers(8, 9, 0.3, "csc", 6));
    auto b = std::make_shared<const Tensor>(whole_numbers(8, 9, 0.3, "csr", 7));
    const Array sum = Array(a, "A") + Array(b, "B");
    for (const std::string format : {"csr", "csc", "dense"}) {
        ComputeOptions o = compiled();
        o.format = Format::parse(format, 2);
        ComputeOptions reference = interpreted();
        reference.format = o.format;
        EXPECT_TRUE(same_output(sum.compute(reference), sum.compute(o))) << format;
    }
}

} // namespace
} // namespace siskin::testing
