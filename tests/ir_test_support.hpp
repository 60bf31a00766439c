#pragma once
// Shorthands for building expected IR by hand, and for checking thrown errors.
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "siskin/error.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::ir::test {

inline Expr I(std::string n) { return Index::make(std::move(n)); }
inline Expr V(std::string n) { return Variable::make(std::move(n)); }
inline Expr L(int64_t v) { return Literal::make(Scalar::of(v)); }
inline Expr F(double v) { return Literal::make(Scalar::of(v)); }
inline Expr B(bool v) { return Literal::make(Scalar::of(v)); }
inline std::shared_ptr<const Access> A(std::string t, std::vector<Expr> idx,
                                       std::vector<std::string> protos = {}) {
    return Access::make(std::move(t), std::move(idx), std::move(protos));
}
inline Expr C(std::string op, std::vector<Expr> args) {
    return Call::make(std::move(op), std::move(args));
}
inline Stmt For_(std::string i, Stmt body) { return For::make(std::move(i), std::move(body)); }
inline Stmt ForIn(std::string i, int64_t lo, int64_t hi, Stmt body) {
    return For::make(std::move(i), std::move(body), L(lo), L(hi));
}
inline Stmt Set(std::shared_ptr<const Access> lhs, std::string op, Expr rhs) {
    return Assign::make(std::move(lhs), std::move(op), std::move(rhs));
}
inline Stmt Blk(std::vector<Stmt> s) { return Block::make(std::move(s)); }

// Both programs printed on failure, so a mismatch shows where they differ.
#define EXPECT_IR_EQ(actual, expected)                                                         \
    EXPECT_TRUE(::siskin::ir::equal((actual), (expected)))                                     \
        << "actual:\n"                                                                       \
        << ::siskin::ir::print(actual) << "expected:\n"                                      \
        << ::siskin::ir::print(expected)

/// Runs f, expects a siskin::Error whose message contains `part`, and returns it.
inline Error expect_error(const std::function<void()>& f, const std::string& part) {
    try {
        f();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
            << "message: " << e.what() << "\nexpected to contain: " << part;
        return e;
    }
    ADD_FAILURE() << "no error thrown; expected one containing: " << part;
    return Error("(none)");
}

} // namespace siskin::ir::test
