// Differential fuzzing of the compiler: the input is program text. A program that parses gets
// small random inputs (shape, formats, fills and entries drawn from a hash of the text, so a
// crash replays), runs in the reference evaluator, and — when the reference accepts it — is
// compiled and run; both must give the same outputs. The compiler may refuse a program as
// unsupported or over the JIT's size and time limits; anything else it raises after the
// reference succeeded is a disagreement.
// Numbers in the text are limited to two digits so that loops stay small enough for the
// reference evaluator, which visits every coordinate. A top-level `while` may run forever by
// design, so each one is bounded first (bounded_loops): both engines run the same program, whose
// loops stop after at most kMaxPasses passes, and swap, the driver's kernels between control
// statements and the values outputs carry from pass to pass are compared like the rest.
#include <cctype>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unistd.h>

#include "fuzz_util.hpp"
#include "siskin/compiler.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/reference.hpp"

namespace siskin::fuzz {
namespace {

using Rng = std::mt19937_64;

bool has_long_number(std::string_view text) {
    int run = 0;
    for (char c : text) {
        run = std::isdigit(static_cast<unsigned char>(c)) ? run + 1 : 0;
        if (run > 2) return true;
    }
    return false;
}

/// The number of subscripts each tensor is read or written with (the first access wins; the
/// verifier rejects a tensor used with two ranks).
std::map<std::string, int> ranks_of(const ir::Program& p) {
    std::map<std::string, int> ranks;
    ir::visit(p.body, {}, [&](const ir::Expr& e) {
        if (auto a = e->as<ir::Access>()) ranks.emplace(a->tensor, static_cast<int>(a->indices.size()));
    });
    return ranks;
}

std::string format_for(Rng& rng, int rank) {
    static const std::map<int, std::vector<std::string>> kFormats{
        {0, {"dense"}},
        {1, {"dense", "sparselist(0)", "coo(0)", "runlist(0)", "band(0)", "bytemap(0)"}},
        {2, {"dense", "csr", "csc", "dcsr", "dcsc", "coo", "dense(0)/band(1)", "dense(0)/runlist(1)",
             "dense(0)/bytemap(1)"}},
        {3, {"dense", "csf", "coo", "dense(0)/sparselist(1)/sparselist(2)"}},
    };
    auto it = kFormats.find(rank);
    if (it == kFormats.end()) return rng() % 2 ? "dense" : "coo";
    return it->second[rng() % it->second.size()];
}

/// `declared`: the program's `fill NAME = v`, which the input then has.
Tensor random_input(Rng& rng, int rank, int64_t n, const ir::FillDecl* declared) {
    std::vector<int64_t> shape(static_cast<size_t>(rank), n);
    static const double kFills[] = {0.0, 0.0, 1.0, INFINITY, -INFINITY};
    double fill = kFills[rng() % 5];
    ValueType type = rng() % 4 == 0 ? ValueType::Int64 : ValueType::Float64;
    if (declared) {
        fill = declared->value.as_double();
        type = is_float(declared->value.type()) ? ValueType::Float64 : ValueType::Int64;
    }
    if (type == ValueType::Int64 && !std::isfinite(fill)) fill = 0.0;
    CoordinateList entries;
    entries.ndims = rank;
    int64_t total = 1;
    for (int64_t d : shape) total *= d;
    std::vector<int64_t> c(shape.size(), 0);
    for (int64_t flat = 0; flat < total; ++flat) {
        int64_t rest = flat;
        for (size_t k = shape.size(); k-- > 0;) {
            c[k] = rest % shape[k];
            rest /= shape[k];
        }
        if (rng() % 5 >= 2) continue;
        entries.add(c, Scalar::of(static_cast<int64_t>(rng() % 7) - 3).cast(type));
    }
    return Tensor::from_coordinates(shape, type, Scalar::of(fill).cast(type),
                                    Format::parse(format_for(rng, rank), rank), entries);
}

constexpr int64_t kMaxPasses = 6;

/// A tensor name the program does not use, from `stem`.
std::string unused_name(const ir::Program& p, std::set<std::string>& taken, const std::string& stem) {
    if (taken.empty()) {
        for (const auto& n : p.inputs()) taken.insert(n);
        for (const auto& n : p.outputs()) taken.insert(n);
    }
    std::string name = stem;
    for (int k = 1; taken.count(name); ++k) name = stem + std::to_string(k);
    taken.insert(name);
    return name;
}

/// Every `while c { body }` among `s`'s statements as `n[] = 0; while c && n[] < kMaxPasses
/// { body; n[] += 1 }`, with a fresh int64 scalar n per loop (an inner loop's is reset on every
/// pass of the outer one). The two statements take the while's place in its block, so a while
/// stays where the verifier allows one: at the top level or directly in another while.
ir::Stmt bound_loops(const ir::Program& p, std::set<std::string>& taken, const ir::Stmt& s) {
    auto literal = [](int64_t v) { return ir::Literal::make(Scalar::of(v)); };
    auto bounded = [&](const ir::While& w, std::vector<ir::Stmt>& out) {
        std::string n = unused_name(p, taken, "fuzz_passes");
        auto counter = [&] { return ir::Access::make(n, {}); };
        ir::Expr cond = ir::Call::make("and", {w.cond, ir::Call::make("lt", {counter(), literal(kMaxPasses)})});
        std::vector<ir::Stmt> body;
        ir::Stmt inner = bound_loops(p, taken, w.body);
        if (const auto* b = inner->as<ir::Block>())
            body = b->stmts;
        else
            body.push_back(inner);
        body.push_back(ir::Assign::make(counter(), "add", literal(1)));
        out.push_back(ir::Assign::make(counter(), "", literal(0)));
        out.push_back(ir::While::make(cond, ir::Block::make(body, w.body->pos), w.pos));
    };
    std::vector<ir::Stmt> out;
    if (const auto* w = s->as<ir::While>()) {
        bounded(*w, out);
        return ir::Block::make(out, s->pos);
    }
    const auto* block = s->as<ir::Block>();
    if (!block) return s;
    for (const ir::Stmt& child : block->stmts) {
        if (const auto* w = child->as<ir::While>())
            bounded(*w, out);
        else
            out.push_back(child);
    }
    return ir::Block::make(out, s->pos);
}

ir::Program bounded_loops(const ir::Program& p) {
    std::set<std::string> taken;
    ir::Program out = p;
    out.body = bound_loops(p, taken, p.body);
    return out;
}

bool close(const Scalar& a, const Scalar& b) {
    if (a.same_value(b)) return true;
    double x = a.as_double(), y = b.as_double();
    if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) return false;
    return std::fabs(x - y) <= 1e-9 * (std::fabs(x) + std::fabs(y)) + 1e-12;
}

std::string describe(const ir::Program& p, const std::map<std::string, Tensor>& inputs) {
    std::string out = ir::print(p) + "\n";
    for (const auto& [name, t] : inputs)
        out += name + " (" + t.format().to_string() + ", fill " + t.fill().to_string() + ") = " +
               t.to_string(64) + "\n";
    return out;
}

const CompileOptions& options() {
    static CompileOptions o = [] {
        CompileOptions c;
        auto dir = std::filesystem::temp_directory_path() / ("siskin-fuzz-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        c.jit.cache_dir = dir.string();
        return c;
    }();
    return o;
}

/// The resource limits (SISKIN_LOWERING_BUDGET, SISKIN_MAX_C_BYTES, SISKIN_CC_TIMEOUT) refuse a
/// kernel as the user asked them to; C that does not compile is still a finding.
bool within_limits_refusal(const Error& e) {
    std::string_view m = e.message();
    return m.starts_with("the generated C is ") || m.starts_with("the C compiler was stopped") ||
           m.starts_with("lowering this kernel took more than ");
}

void run_case(std::string_view text) {
    if (has_long_number(text)) return;
    ir::Program p;
    try {
        p = ir::parse_program(text, "<fuzz>");
    } catch (const Error& e) {
        if (e.kind() == Error::Kind::Internal) fail("internal error in the parser", e.what());
        return;
    }
    if (p.has_control()) p = bounded_loops(p);
    Rng rng(std::hash<std::string_view>{}(text));
    int64_t n = 1 + static_cast<int64_t>(rng() % 5);
    std::map<std::string, int> ranks = ranks_of(p);
    std::map<std::string, Tensor> inputs;
    for (const std::string& name : p.inputs()) {
        auto it = ranks.find(name);
        if (it == ranks.end() || it->second > 4) return;
        inputs.emplace(name, random_input(rng, it->second, n, p.declared_fill(name)));
    }
    std::map<std::string, const Tensor*> pointers;
    for (const auto& [name, t] : inputs) pointers.emplace(name, &t);

    std::map<std::string, Tensor> expected;
    try {
        expected = evaluate_reference(p, pointers);
    } catch (const Error& e) {
        if (e.kind() == Error::Kind::Internal) fail("internal error in the reference evaluator", describe(p, inputs) + e.what());
        return; // not a program for these inputs
    }
    std::map<std::string, Tensor> got;
    try {
        got = evaluate_compiled(p, pointers, {}, options());
    } catch (const Error& e) {
        if (e.kind() == Error::Kind::Unsupported || within_limits_refusal(e)) return;
        fail("the compiler raised an error on a program the reference evaluator runs",
             describe(p, inputs) + e.what());
    }
    for (const auto& [name, want] : expected) {
        auto it = got.find(name);
        if (it == got.end()) fail("an output is missing", describe(p, inputs) + name);
        const Tensor& have = it->second;
        if (have.shape() != want.shape() || have.type() != want.type() || !have.fill().same(want.fill()))
            fail("output shape, type or fill differs",
                 describe(p, inputs) + name + ": want " + want.to_string(64) + "\ngot " + have.to_string(64));
        std::vector<Scalar> a = want.to_dense(), b = have.to_dense();
        for (size_t k = 0; k < a.size(); ++k)
            if (!close(a[k], b[k]))
                fail("compiled output differs from the reference",
                     describe(p, inputs) + name + ": want " + want.to_string(64) + "\ngot " + have.to_string(64));
    }
}

} // namespace
} // namespace siskin::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    siskin::fuzz::run_case(siskin::fuzz::text_of(data, size));
    return 0;
}
