#pragma once
// Shorthands for the function tests: definitions from text and calls of their operators. The
// operator registry is process-wide, so every test names its functions uniquely (the tests of
// one binary share it) or defines them with Redefinition::Replace.
#include <initializer_list>
#include <string_view>
#include <vector>

#include "algebra_test_util.hpp"
#include "siskin/functions.hpp"

namespace siskin::functions_test {

using namespace siskin::algebra_test;

/// Defines every function of `text` (replacing same-named ones); returns the last one's operator.
inline const Operator& define(std::string_view text) {
    const Operator* last = nullptr;
    for (const FunctionDef& d : parse_functions(text, "<test>"))
        last = &define_function(d, Redefinition::Replace);
    SISKIN_ASSERT(last, "define: no function in the text");
    return *last;
}

inline Scalar call(const Operator& op, std::initializer_list<Scalar> args) {
    std::vector<Scalar> v(args);
    return op.evaluate(v);
}

/// Runs f; succeeds when it throws siskin::Error at line:column with `needle` in the message.
template <class F>
::testing::AssertionResult ThrowsAt(F&& f, int64_t line, int64_t column, std::string_view needle) {
    try {
        f();
    } catch (const Error& e) {
        std::string what = e.what();
        if (what.find(needle) == std::string::npos)
            return ::testing::AssertionFailure()
                   << "message '" << what << "' lacks '" << needle << "'";
        if (!e.where() || e.where()->line != line || e.where()->column != column)
            return ::testing::AssertionFailure()
                   << "message '" << what << "' is at "
                   << (e.where() ? std::to_string(e.where()->line) + ":" +
                                       std::to_string(e.where()->column)
                                 : std::string("no position"))
                   << ", not " << line << ":" << column;
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "no siskin::Error thrown";
}

} // namespace siskin::functions_test
