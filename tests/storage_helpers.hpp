#pragma once
// Shared helpers of the storage tests.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "siskin/error.hpp"
#include "siskin/tensor.hpp"

namespace siskin::testing {

/// Runs fn, expecting a siskin::Error whose what() contains every one of `parts`.
inline ::testing::AssertionResult throws_error(const std::function<void()>& fn,
                                               const std::vector<std::string>& parts) {
    try {
        fn();
    } catch (const Error& e) {
        std::string what = e.what();
        for (const std::string& p : parts)
            if (what.find(p) == std::string::npos)
                return ::testing::AssertionFailure()
                       << "error '" << what << "' does not contain '" << p << "'";
        return ::testing::AssertionSuccess();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw a non-siskin exception: " << e.what();
    }
    return ::testing::AssertionFailure() << "no error was thrown";
}

/// The contents of an index or value buffer as int64 (values as doubles below).
inline std::vector<int64_t> ints(const Buffer& b) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).as_int());
    return out;
}

inline std::vector<double> doubles(const Buffer& b) {
    std::vector<double> out;
    for (int64_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).as_double());
    return out;
}

/// A coordinate list of float64 entries: {{i, j, ...}, value}.
inline CoordinateList entries(int ndims,
                              std::initializer_list<std::pair<std::vector<int64_t>, double>> list) {
    CoordinateList out;
    out.ndims = ndims;
    for (const auto& [c, v] : list) out.add(c, Scalar::of(v));
    return out;
}

} // namespace siskin::testing
