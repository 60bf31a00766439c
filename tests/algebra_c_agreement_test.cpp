// The C side of the operators agrees with evaluate(): runtime/siskin_ops.h compiles as C11
// without warnings, and a generated C program computing each operator's c_expression on every
// sample value gives bit-for-bit the results evaluate() gives (any NaN matches any NaN), under
// UBSan where the compiler has it.
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "algebra/samples.hpp"
#include "algebra_test_util.hpp"

using namespace siskin;
using namespace siskin::algebra_test;
namespace fs = std::filesystem;

namespace {

const fs::path kRuntimeDir = fs::path(SISKIN_REPO_DATA_DIR) / ".." / "runtime";

bool have_cc() { return std::system("cc --version > /dev/null 2>&1") == 0; }

// A fresh temporary directory, removed when the test ends.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "siskin_algebra_XXXXXX").string();
        SISKIN_ASSERT(mkdtemp(tmpl.data()) != nullptr, "mkdtemp failed");
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Runs a shell command; returns its exit status and (combined) output.
std::pair<int, std::string> run(const std::string& command) {
    std::string out;
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (!p) return {-1, "popen failed"};
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = pclose(p);
    return {status, out};
}

// The bits a value travels as between the two sides: floats as their IEEE bits, integers as
// their two's complement value in 64 bits.
uint64_t bits_of(const Scalar& s) {
    switch (s.type()) {
    case ValueType::Bool: return s.as_bool() ? 1 : 0;
    case ValueType::Float32: return std::bit_cast<uint32_t>(static_cast<float>(s.as_double()));
    case ValueType::Float64: return std::bit_cast<uint64_t>(s.as_double());
    default: return is_signed_integer(s.type()) ? static_cast<uint64_t>(s.as_int()) : s.as_uint();
    }
}

bool is_nan_bits(ValueType t, uint64_t bits) {
    if (t == ValueType::Float32) return std::isnan(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    if (t == ValueType::Float64) return std::isnan(std::bit_cast<double>(bits));
    return false;
}

// C statements declaring `name` of type t from the uint64_t `bits`.
std::string c_load(ValueType t, const std::string& name, const std::string& bits) {
    std::string ct(c_type_name(t));
    switch (t) {
    case ValueType::Bool: return fmt::format("bool {} = {} != 0;", name, bits);
    case ValueType::Float32:
        return fmt::format("float {0}; {{ uint32_t u = (uint32_t){1}; memcpy(&{0}, &u, 4); }}",
                           name, bits);
    case ValueType::Float64: return fmt::format("double {0}; memcpy(&{0}, &{1}, 8);", name, bits);
    default: return fmt::format("{0} {1} = ({0}){2};", ct, name, bits);
    }
}

// C statements turning `name` of type t into the uint64_t `out`.
std::string c_store(ValueType t, const std::string& name, const std::string& out) {
    switch (t) {
    case ValueType::Bool: return fmt::format("{} = {} ? 1u : 0u;", out, name);
    case ValueType::Float32:
        return fmt::format("{{ uint32_t u; memcpy(&u, &{}, 4); {} = u; }}", name, out);
    case ValueType::Float64: return fmt::format("memcpy(&{}, &{}, 8);", out, name);
    default:
        return is_signed_integer(t) ? fmt::format("{} = (uint64_t)(int64_t){};", out, name)
                                    : fmt::format("{} = (uint64_t){};", out, name);
    }
}

// UBSan flags when the C compiler has the sanitizer: the helpers promise no undefined behaviour
// for any value, and the samples include every edge case.
std::string sanitizer_flags(const fs::path& dir) {
    std::string flags = "-fsanitize=undefined -fno-sanitize-recover=all";
    std::ofstream(dir / "probe.c") << "int main(void) { return 0; }\n";
    auto [status, out] = run(fmt::format("cc {} '{}' -o '{}'", flags, (dir / "probe.c").string(),
                                         (dir / "probe").string()));
    return status == 0 ? flags : "";
}

struct Case {
    const Operator* op;
    std::vector<ValueType> types;
};

// The argument type combinations tried: every single type, every type with itself, and mixed
// pairs and triples that exercise conversions.
std::vector<std::vector<ValueType>> combinations(int arity) {
    using V = ValueType;
    std::vector<std::vector<ValueType>> out;
    for (ValueType t : algebra::all_value_types()) out.push_back(std::vector<ValueType>(arity, t));
    if (arity == 2) {
        for (auto [a, b] : std::initializer_list<std::pair<V, V>>{
                 {V::Int32, V::Float32}, {V::UInt8, V::Int8}, {V::Int64, V::UInt64},
                 {V::Bool, V::Int16}, {V::Float32, V::Float64}, {V::UInt32, V::Int32},
                 {V::Int16, V::Float32}, {V::Float32, V::Int32}, {V::Float64, V::Int64},
                 {V::Int16, V::UInt32}, {V::Float64, V::Bool}, {V::Int8, V::Int64}})
            out.push_back({a, b});
    }
    if (arity == 3) {
        out.push_back({V::Float64, V::Int8, V::Float32});
        out.push_back({V::Int32, V::UInt8, V::Int8});
        out.push_back({V::Bool, V::UInt64, V::Int64});
    }
    return out;
}

} // namespace

TEST(AlgebraCAgreement, HeaderCompilesWarningFreeAsC11) {
    if (!have_cc()) GTEST_SKIP() << "no C compiler 'cc' on PATH";
    fs::path header = kRuntimeDir / "siskin_ops.h";
    ASSERT_TRUE(fs::exists(header)) << header;
    auto [status, out] = run(fmt::format(
        "cc -std=c11 -Wall -Wextra -Wpedantic -Wconversion -Werror -fsyntax-only -x c '{}'",
        header.string()));
    EXPECT_EQ(status, 0) << out;
}

TEST(AlgebraCAgreement, TemplatesComputeWhatEvaluateComputes) {
    if (!have_cc()) GTEST_SKIP() << "no C compiler 'cc' on PATH";
    TempDir dir;

    // One C function per (operator, argument types); the values come from stdin as bits so the
    // C compiler cannot fold them at compile time.
    std::vector<Case> cases;
    std::ostringstream c;
    c << "#include <inttypes.h>\n#include <stdio.h>\n#include <string.h>\n"
         "#include \"siskin_ops.h\"\n";
    for (const std::string& name : operator_names()) {
        const Operator& op = find_operator(name);
        if (name.rfind("test_", 0) == 0 || op.c_template.empty()) continue; // user operators
        for (const auto& types : combinations(op.arity)) {
            ValueType result;
            try {
                result = op.result_type(types);
            } catch (const Error&) {
                continue;
            }
            size_t id = cases.size();
            cases.push_back({&op, types});
            c << "static uint64_t case" << id << "(const uint64_t* in) {\n";
            std::vector<std::string> args;
            for (size_t k = 0; k < types.size(); ++k) {
                std::string arg = "x" + std::to_string(k);
                c << "  " << c_load(types[k], arg, fmt::format("in[{}]", k)) << "\n";
                args.push_back(arg);
            }
            c << "  " << c_type_name(result) << " r = " << c_expression(op, types, args) << ";\n";
            c << "  uint64_t out = 0;\n  " << c_store(result, "r", "out") << "\n  return out;\n}\n";
        }
    }
    c << "int main(void) {\n  unsigned id;\n  uint64_t in[3];\n"
         "  while (scanf(\"%u %\" SCNx64 \" %\" SCNx64 \" %\" SCNx64, &id, &in[0], &in[1], "
         "&in[2]) == 4) {\n    uint64_t r = 0;\n    switch (id) {\n";
    for (size_t id = 0; id < cases.size(); ++id)
        c << "    case " << id << ": r = case" << id << "(in); break;\n";
    c << "    default: return 2;\n    }\n    printf(\"%016\" PRIx64 \"\\n\", r);\n  }\n"
         "  return 0;\n}\n";
    std::ofstream(dir.path / "agree.c") << c.str();

    auto [status, out] =
        run(fmt::format("cc -std=c11 -O2 -Wall -Wextra -Werror {} -I '{}' '{}' -o '{}' -lm",
                        sanitizer_flags(dir.path), kRuntimeDir.string(),
                        (dir.path / "agree.c").string(),
                        (dir.path / "agree").string()));
    ASSERT_EQ(status, 0) << "the generated C did not compile:\n" << out.substr(0, 4000);

    // Every sample tuple of every case, with the result evaluate() expects.
    struct Expect {
        size_t case_id;
        std::vector<Scalar> args;
        Scalar want;
    };
    std::vector<Expect> expects;
    std::ofstream input(dir.path / "in.txt");
    for (size_t id = 0; id < cases.size(); ++id) {
        const Case& cs = cases[id];
        std::vector<std::vector<Scalar>> samples;
        for (ValueType t : cs.types) samples.push_back(algebra::sample_values(t));
        std::vector<Scalar> args(cs.types.size());
        std::function<void(size_t)> each = [&](size_t k) {
            if (k == args.size()) {
                expects.push_back({id, args, cs.op->evaluate(args)});
                input << id;
                for (size_t j = 0; j < 3; ++j)
                    input << fmt::format(" {:x}", j < args.size() ? bits_of(args[j]) : 0);
                input << "\n";
                return;
            }
            for (const Scalar& s : samples[k]) {
                args[k] = s;
                each(k + 1);
            }
        };
        each(0);
    }
    input.close();

    auto [rstatus, results] = run(fmt::format("'{}' < '{}'", (dir.path / "agree").string(),
                                              (dir.path / "in.txt").string()));
    ASSERT_EQ(rstatus, 0) << results.substr(0, 2000);
    std::istringstream lines(results);
    size_t checked = 0, mismatches = 0;
    for (const Expect& e : expects) {
        std::string line;
        ASSERT_TRUE(std::getline(lines, line)) << "the C program stopped early";
        uint64_t got = std::stoull(line, nullptr, 16), want = bits_of(e.want);
        ValueType rt = e.want.type();
        bool same = got == want || (is_nan_bits(rt, got) && is_nan_bits(rt, want));
        ++checked;
        if (!same && ++mismatches <= 20) {
            std::string call;
            for (size_t k = 0; k < e.args.size(); ++k)
                call += (k ? ", " : "") + std::string(type_name(e.args[k].type())) + " " +
                        e.args[k].to_string();
            ADD_FAILURE() << cases[e.case_id].op->name << "(" << call << "): evaluate gives "
                          << type_name(rt) << " " << e.want.to_string() << " (bits "
                          << fmt::format("{:x}", want) << "), C gives bits "
                          << fmt::format("{:x}", got);
        }
    }
    EXPECT_EQ(mismatches, 0u);
    EXPECT_GT(checked, 50000u); // every operator, many types, all sample tuples
}
