// The C spelling of literals, checked by a C compiler: each literal must have the intended C type
// (a _Generic static assertion) and, stored into a variable of its siskin type, the exact value,
// -0.0 and nan included.
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codegen/c_literal.hpp"
#include "codegen_test_util.hpp"
#include "siskin/codegen/jit.hpp"

namespace siskin::cast {
namespace {

// The C types a literal of each siskin type may have. Types narrower than int are spelled as int
// literals (C promotes them to int in any expression), bool as the stdbool.h macros (int).
std::string_view allowed_c_types(ValueType t) {
    switch (t) {
    case ValueType::Int64: return "long: 1, long long: 1";
    case ValueType::UInt64: return "unsigned long: 1, unsigned long long: 1";
    case ValueType::UInt32: return "unsigned int: 1";
    case ValueType::Float32: return "float: 1";
    case ValueType::Float64: return "double: 1";
    default: return "int: 1";
    }
}

TEST(CodegenLiteral, CompilerReadsBackTypeAndValue) {
    using L = std::numeric_limits<double>;
    using LF = std::numeric_limits<float>;
    const std::vector<Scalar> values = {
        Scalar::of(true),
        Scalar::of(false),
        Scalar::of(int8_t{-128}),
        Scalar::of(int8_t{127}),
        Scalar::of(int16_t{-32768}),
        Scalar::of(uint8_t{255}),
        Scalar::of(uint16_t{65535}),
        Scalar::of(std::numeric_limits<int32_t>::min()),
        Scalar::of(std::numeric_limits<int32_t>::max()),
        Scalar::of(int32_t{-1}),
        Scalar::of(std::numeric_limits<int64_t>::min()),
        Scalar::of(std::numeric_limits<int64_t>::max()),
        Scalar::of(int64_t{-1}),
        Scalar::of(int64_t{5000000000}),
        Scalar::of(std::numeric_limits<uint32_t>::max()),
        Scalar::of(std::numeric_limits<uint64_t>::max()),
        Scalar::of(0.1),
        Scalar::of(1.0),
        Scalar::of(-0.0),
        Scalar::of(L::min()),
        Scalar::of(L::denorm_min()),
        Scalar::of(L::max()),
        Scalar::of(L::lowest()),
        Scalar::of(L::infinity()),
        Scalar::of(-L::infinity()),
        Scalar::of(L::quiet_NaN()),
        Scalar::of(1.0 / 3),
        Scalar::of(0.1f),
        Scalar::of(-0.0f),
        Scalar::of(LF::denorm_min()),
        Scalar::of(LF::max()),
        Scalar::of(LF::infinity()),
        Scalar::of(-LF::infinity()),
        Scalar::of(LF::quiet_NaN()),
        Scalar::of(1.0f / 3),
    };
    std::string src = "#include \"siskin_prelude.h\"\n";
    for (size_t k = 0; k < values.size(); ++k) {
        std::string lit = c_literal(values[k]);
        src += fmt::format("_Static_assert(_Generic(({}), {}, default: 0), \"type of {}\");\n", lit,
                           allowed_c_types(values[k].type()), lit);
    }
    src += "void store(unsigned char *out) {\n";
    size_t offset = 0;
    for (const Scalar& v : values) {
        src += fmt::format("    {{ {} v = {}; memcpy(out + {}, &v, sizeof v); }}\n",
                           c_type_name(v.type()), c_literal(v), offset);
        offset += type_size(v.type());
    }
    src += "}\n";

    codegen_test::TempDir cache;
    codegen::JitOptions options;
    options.cache_dir = cache.path();
    auto r = codegen::jit_compile(src, options);
    std::vector<unsigned char> out(offset);
    r.library->function<void(unsigned char*)>("store")(out.data());

    offset = 0;
    for (const Scalar& v : values) {
        Scalar got = Scalar::load(v.type(), out.data() + offset);
        offset += type_size(v.type());
        EXPECT_TRUE(got.same(v)) << c_literal(v) << " read back as " << got.to_string();
        if (is_float(v.type()) && !v.is_nan()) {
            EXPECT_EQ(std::signbit(got.as_double()), std::signbit(v.as_double())) << c_literal(v);
        }
    }
}

} // namespace
} // namespace siskin::cast
