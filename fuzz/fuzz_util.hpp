#pragma once
// What every fuzz target shares: bad input may end in siskin::Error and nothing else. Any other
// exception escapes, and libFuzzer reports it as a crash (uncaught exceptions abort).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "siskin/error.hpp"

namespace siskin::fuzz {

inline std::string_view text_of(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// A broken invariant: print it and abort, so libFuzzer keeps the input as a crash.
[[noreturn]] inline void fail(const char* what, std::string_view detail) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n%.*s\n", what, static_cast<int>(detail.size()),
                 detail.data());
    std::abort();
}

/// Runs `body`; a user or unsupported siskin::Error is the expected answer to bad input, and an
/// internal one (a failed invariant of siskin's) is a bug.
template <class Body> void expect_only_siskin_errors(Body&& body) {
    try {
        body();
    } catch (const Error& e) {
        if (e.kind() == Error::Kind::Internal) fail("internal error", e.what());
    }
}

} // namespace siskin::fuzz
