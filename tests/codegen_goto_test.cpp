// goto and labels in the C AST (the early exit of a reduction nest): how they print, and that
// scalar replacement stores a register back before a goto leaves its loop.
#include <gtest/gtest.h>

#include "codegen/c_ast.hpp"
#include "codegen/c_optimize.hpp"
#include "codegen/c_printer.hpp"

namespace siskin::cast {
namespace {

const Type kBool = Type::of(ValueType::Bool);

TEST(CodegenGoto, PrintsAJumpAndALabelWithItsEmptyStatement) {
    Stmt s = Block::make({If::make(var("done"), Goto::make("siskin_exit")), Label::make("siskin_exit")});
    EXPECT_EQ(print(s), "{\n    if (done) {\n        goto siskin_exit;\n    }\n    siskin_exit:;\n}\n");
}

// for (; p < end; p++) { y[0] = y[0] && v[p]; if (y[0] == false) goto out; }  out:;
TEST(CodegenGoto, ScalarReplacementStoresTheLocalBeforeTheJump) {
    Expr y0 = at(var("y"), i64(0));
    Stmt loop = For::make(
        std::nullopt, bin(BinaryOp::Lt, var("p"), var("end")), Increment::make(var("p")),
        Block::make({assign(y0, bin(BinaryOp::LogAnd, y0, at(var("v"), var("p")))),
                     If::make(bin(BinaryOp::Eq, y0, lit(Scalar::of(false))), Goto::make("out"))}));
    std::string c = print(replace_scalars(Block::make({loop, Label::make("out")}), {{"y", kBool}}));
    // The accumulator is a local, tested in the loop and stored back both before the jump and
    // after the loop.
    EXPECT_NE(c.find("bool y_acc = y[0LL];"), std::string::npos) << c;
    EXPECT_NE(c.find("if (y_acc == false) {\n"), std::string::npos) << c;
    size_t jump = c.find("goto out;");
    ASSERT_NE(jump, std::string::npos) << c;
    size_t store = c.rfind("y[0LL] = y_acc;", jump);
    ASSERT_NE(store, std::string::npos) << c;
    EXPECT_GT(store, c.find("if (y_acc == false)")) << c;
    EXPECT_NE(c.find("y[0LL] = y_acc;", jump), std::string::npos) << c; // after the loop too
    EXPECT_EQ(c.find("y[0LL] = y[0LL]"), std::string::npos) << c;
}

} // namespace
} // namespace siskin::cast
