#include "lowering/lower_ctx.hpp"

#include <cctype>

#include <fmt/format.h>

#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin::lowering {

LowerCtx::LowerCtx() {
    blocks_.emplace_back();
    names_ = {"buffers", "dims"}; // the kernel's parameters
}

void LowerCtx::step() {
    if (++steps_ <= budget_.value || budget_.value == 0) return;
    throw Error(fmt::format("lowering this kernel took more than {} steps, the lowering budget ({}): "
                            "its loops split into more cases than that (each looplet case lowered "
                            "and each C statement emitted is a step), into megabytes of C. Set "
                            "SISKIN_LOWERING_BUDGET (or --lowering-budget) to more "
                            "steps, or to 0 for no limit",
                            budget_.value, budget_.origin));
}

void LowerCtx::emit(cast::Stmt s) {
    step();
    blocks_.back().push_back(std::move(s));
}

void LowerCtx::emit(const std::vector<cast::Stmt>& stmts) {
    for (const auto& s : stmts) emit(s);
}

std::vector<cast::Stmt> LowerCtx::capture(const std::function<void()>& f) {
    blocks_.emplace_back();
    try {
        f();
    } catch (...) {
        blocks_.pop_back();
        throw;
    }
    std::vector<cast::Stmt> out = std::move(blocks_.back());
    blocks_.pop_back();
    return out;
}

std::string LowerCtx::fresh(std::string_view base) {
    std::string stem;
    for (char c : base) stem += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (stem.empty() || std::isdigit(static_cast<unsigned char>(stem[0]))) stem = "v" + stem;
    int64_t& k = next_suffix_[stem]; // 0: the stem itself
    std::string name = k == 0 ? stem : fmt::format("{}_{}", stem, k);
    while (names_.count(name) || !cast::is_identifier(name)) name = fmt::format("{}_{}", stem, ++k);
    names_.insert(name);
    return name;
}

cast::Expr LowerCtx::local(std::string_view base, const cast::Expr& init, ValueType type) {
    std::string name = fresh(base);
    emit(cast::Decl::make(cast::Type::of(type), name, init));
    return cast::var(name);
}

cast::Expr LowerCtx::apply(const Operator& op, const std::vector<ValueType>& types,
                           const std::vector<cast::Expr>& args) {
    std::string signature = op.name;
    for (ValueType t : types) signature += fmt::format("_{}", type_name(t));
    auto it = helper_names_.find(signature);
    if (it == helper_names_.end()) {
        std::string name = fresh("siskin_op_" + signature);
        std::vector<std::string> params;
        std::string decl;
        for (size_t k = 0; k < types.size(); ++k) {
            params.push_back(fmt::format("a{}", k));
            decl += fmt::format("{}{} a{}", k ? ", " : "", c_type_name(types[k]), k);
        }
        ValueType result = op.result_type(types);
        std::string body = c_expression(op, types, params);
        // The helper's arguments are evaluated before the call, so and/or of two bools need no
        // short circuit: & and | give the same value with one branch fewer where it is tested.
        bool bools = types.size() == 2 && types[0] == ValueType::Bool && types[1] == ValueType::Bool;
        if (bools && (op.name == "and" || op.name == "or") && op.c_definition.empty())
            body = fmt::format("(a0 {} a1)", op.name == "and" ? "&" : "|");
        // A user function's C definition must precede the helper that calls it; it carries its
        // own include guard, so emitting it once per signature is harmless.
        if (!op.c_definition.empty()) helper_defs_.push_back(op.c_definition + "\n");
        helper_defs_.push_back(fmt::format("static inline {} {}({}) {{ return {}; }}\n",
                                           c_type_name(result), name, decl, body));
        it = helper_names_.emplace(signature, name).first;
        if (op.arity == 2 && op.commutative && op.associative && is_float(result) &&
            types.size() == 2 && types[0] == result && types[1] == result)
            reassociable_.emplace(name, cast::Type::of(result));
    }
    return cast::call(it->second, args);
}

std::string LowerCtx::helpers() const {
    std::string out;
    for (const auto& d : helper_defs_) out += d;
    return out;
}

namespace {

bool has_product(const cast::Expr& e) {
    if (e.kind() != cast::ExprKind::Binary) return false;
    const auto* bin = &e.as<cast::Binary>();
    if (bin->op == cast::BinaryOp::Mul && !c_constant(e)) return true;
    return (bin->op == cast::BinaryOp::Add || bin->op == cast::BinaryOp::Mul) &&
           (has_product(bin->lhs) || has_product(bin->rhs));
}

// `e` with each product and sum of sizes in it computed by siskin_size_mul / siskin_size_add,
// which give -1 when a step does not fit an int64_t.
cast::Expr checked_size(const cast::Expr& e) {
    if (!has_product(e)) return e;
    const auto* bin = &e.as<cast::Binary>();
    if (bin->op == cast::BinaryOp::Mul)
        return cast::call("siskin_size_mul", {checked_size(bin->lhs), checked_size(bin->rhs)});
    return cast::call("siskin_size_add", {checked_size(bin->lhs), checked_size(bin->rhs)});
}

} // namespace

std::vector<cast::Stmt> LowerCtx::reserve(const BufferBinding& b, const cast::Expr& need_in,
                                          bool written_first) {
    SISKIN_ASSERT(b.output, "reserve on an input buffer");
    // A need that multiplies extents (dense levels: dim0 * dim1) can wrap past 2^63 on a large
    // shape, to a small room that the writes then overrun: it is computed checked, and the kernel
    // stops with SISKIN_ERR_SIZE instead.
    std::vector<cast::Stmt> checks;
    cast::Expr need = need_in;
    if (has_product(need_in)) {
        std::string name = fresh("size");
        checks.push_back(cast::Decl::make(cast::Type::of(ValueType::Int64), name, checked_size(need_in)));
        need = cast::var(name);
        checks.push_back(cast::If::make(cast::bin(cast::BinaryOp::Lt, need, c_int(0)),
                                        cast::Return::make(cast::var("SISKIN_ERR_SIZE"))));
    }
    if (!written_first) zeroed_room_.insert(b.slot);
    cast::Expr cap = cast::Field::make(b.raw_var(), "capacity");
    cast::Expr grow = cast::call(written_first ? "siskin_buffer_grow" : "siskin_buffer_reserve",
                                 {b.raw_var(), need, c_int(static_cast<int64_t>(type_size(b.type)))});
    cast::Stmt fail = cast::If::make(cast::bin(cast::BinaryOp::Ne, grow, cast::var("SISKIN_OK")),
                                     cast::Return::make(cast::var("SISKIN_ERR_ALLOC")));
    cast::Stmt refresh = cast::assign(
        b.data_var(),
        cast::Cast::make(cast::Type::of(b.type).pointer(), cast::Field::make(b.raw_var(), "data")));
    checks.push_back(cast::If::make(cast::bin(cast::BinaryOp::Gt, need, cap),
                                    cast::Block::make({fail, refresh})));
    return checks;
}

cast::Expr LowerCtx::level_var(const TensorBinding& t, int level, std::string_view role) {
    auto key = fmt::format("{}/{}/{}", t.name, level, role);
    auto it = level_vars_.find(key);
    SISKIN_ASSERT(it != level_vars_.end(), "level variable " + key + " was never declared");
    return it->second;
}

void LowerCtx::set_level_var(const TensorBinding& t, int level, std::string_view role,
                             cast::Expr e) {
    level_vars_.insert_or_assign(fmt::format("{}/{}/{}", t.name, level, role), std::move(e));
}

std::vector<cast::Expr> LowerCtx::level_vars(const TensorBinding& t) const {
    std::vector<cast::Expr> out;
    std::string prefix = t.name + "/";
    for (auto it = level_vars_.lower_bound(prefix); it != level_vars_.end() && it->first.starts_with(prefix); ++it)
        out.push_back(it->second);
    return out;
}

cast::Expr c_value(LowerCtx& ctx, const LExpr& e) {
    switch (e->kind) {
    case NodeKind::Literal: return cast::lit(e->as<Literal>()->value);
    case NodeKind::CValue: return e->as<CValue>()->expr;
    case NodeKind::Call: {
        const auto& c = *e->as<Call>();
        std::vector<ValueType> types;
        std::vector<cast::Expr> args;
        for (const auto& a : c.args) {
            types.push_back(a->type);
            args.push_back(c_value(ctx, a));
        }
        return ctx.apply(*c.op, types, args);
    }
    default: break;
    }
    SISKIN_ASSERT(false, "an expression reached code generation before it was lowered");
}

} // namespace siskin::lowering
