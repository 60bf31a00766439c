// docs/syntax.md documents the operator table of src/ir/syntax.cpp; this keeps the two in step.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "ir/syntax.hpp"

using namespace siskin::ir;

namespace {
std::string read_syntax_doc() {
    std::ifstream in(std::string(SISKIN_REPO_DATA_DIR) + "/../docs/syntax.md");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Markdown table cells escape '|'.
std::string cell(std::string_view symbol) {
    std::string out;
    for (char c : symbol) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}
} // namespace

TEST(IrSyntaxDoc, OperatorTableMatchesTheCode) {
    std::string doc = read_syntax_doc();
    ASSERT_FALSE(doc.empty()) << "docs/syntax.md not found";
    for (const auto& b : syntax::binary_symbols()) {
        std::string row = "| `" + cell(b.symbol) + "` | " + std::string(b.op) + " | " +
                          std::to_string(b.precedence) + " |";
        EXPECT_NE(doc.find(row), std::string::npos) << "missing row: " << row;
    }
    for (const auto& u : syntax::unary_symbols()) {
        std::string row = "| unary `" + std::string(u.symbol) + "` | " + std::string(u.op) + " | " +
                          std::to_string(syntax::kUnaryPrecedence) + " |";
        EXPECT_NE(doc.find(row), std::string::npos) << "missing row: " << row;
    }
    for (const auto& a : syntax::assign_symbols()) {
        std::string row = "| `" + cell(a.symbol) + "` | " +
                          (a.op.empty() ? std::string("(none") : std::string(a.op));
        EXPECT_NE(doc.find(row), std::string::npos) << "missing row: " << row;
    }
}
