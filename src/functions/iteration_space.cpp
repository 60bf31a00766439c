// Declared iteration spaces: the check of `space(...)` against the parameters, its
// three-valued evaluation, and the witness point outside it whose value the function has
// everywhere outside.
#include "functions/iteration_space.hpp"

#include <fmt/format.h>

#include "functions/interpreter.hpp"
#include "ir/lexer.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::functions {

namespace {

class SpaceChecker {
public:
    SpaceChecker(const FunctionDef& def, const Space& space)
        : def_(def), src_{space.source->text, space.source->name} {}

    SpaceNode node(const Expr& e) {
        if (const auto* v = e->as<ir::Variable>()) return differs(param(v->name, v->pos),
                                                                   Scalar::of(int64_t{0}), v->pos);
        const auto* call = e->as<ir::Call>();
        if (!call) fail(e->pos);
        const std::string& op = call->op;
        using Kind = SpaceNode::Kind;
        if (op == "not" && call->args.size() == 1) {
            SpaceNode n{Kind::Not, -1, Scalar(), {}};
            n.args.push_back(node(call->args[0]));
            return n;
        }
        Kind kind;
        if (op == "and" || op == "bitwise_and") kind = Kind::And;
        else if (op == "or" || op == "bitwise_or") kind = Kind::Or;
        else if (op == "bitwise_xor") kind = Kind::Xor;
        else if (op == "ne" || op == "eq") return comparison(*call);
        else fail(e->pos);
        SpaceNode n{kind, -1, Scalar(), {}};
        for (const auto& a : call->args) n.args.push_back(node(a));
        return n;
    }

private:
    const FunctionDef& def_;
    ir::SourceText src_;

    [[noreturn]] void fail(ir::Position pos) const {
        src_.fail(pos, "a space is built from parameters (x means x != 0), x != c and x == c "
                       "for a constant c, and | & ^ ! (union, intersection, symmetric "
                       "difference, complement)");
    }

    int param(const std::string& name, ir::Position pos) const {
        const auto& params = def_.params();
        std::string names;
        for (size_t k = 0; k < params.size(); ++k) {
            if (params[k].name == name) return static_cast<int>(k);
            names += (k ? ", " : "") + params[k].name;
        }
        src_.fail(pos, fmt::format("{} is not a parameter of {}; a space names its parameters "
                                   "({})",
                                   name, def_.name(), names));
    }

    SpaceNode differs(int k, const Scalar& c, ir::Position pos) const {
        const FunctionParam& p = def_.params()[static_cast<size_t>(k)];
        Scalar v = c.cast(p.type);
        if (!v.same_value(c))
            src_.fail(pos, fmt::format("{} is not a value of type {} (the type of parameter {})",
                                       c.to_string(), type_name(p.type), p.name));
        return SpaceNode{SpaceNode::Kind::Differs, k, v, {}};
    }

    // `x != c`, `c != x`, `x == c`, `c == x`.
    SpaceNode comparison(const ir::Call& call) const {
        const ir::Variable* var = nullptr;
        const ir::Literal* lit = nullptr;
        for (const auto& a : call.args) {
            if (const auto* v = a->as<ir::Variable>()) var = var ? var : v;
            if (const auto* l = a->as<ir::Literal>()) lit = l;
        }
        if (!var || !lit) {
            src_.fail(call.pos, fmt::format("a comparison in a space is a parameter {} a "
                                            "constant, as in x {} 0",
                                            call.op == "ne" ? "!=" : "==",
                                            call.op == "ne" ? "!=" : "=="));
        }
        SpaceNode atom = differs(param(var->name, var->pos), lit->value, lit->pos);
        if (call.op == "ne") return atom;
        SpaceNode n{SpaceNode::Kind::Not, -1, Scalar(), {}};
        n.args.push_back(std::move(atom));
        return n;
    }
};

void collect(const SpaceNode& s, int param, std::vector<Scalar>& out) {
    if (s.kind == SpaceNode::Kind::Differs) {
        if (s.param != param) return;
        for (const Scalar& c : out)
            if (c.same_value(s.value)) return;
        out.push_back(s.value);
        return;
    }
    for (const auto& a : s.args) collect(a, param, out);
}

// A value of type t that differs from every constant in `taken`, if the type has one.
std::optional<Scalar> another_value(ValueType t, const std::vector<Scalar>& taken) {
    std::vector<Scalar> tries;
    if (t == ValueType::Bool) tries = {Scalar::of(true), Scalar::of(false)};
    else
        for (int64_t v : {1, 2, -1, 3, 0, 7, 100}) tries.push_back(Scalar::of(v));
    for (const Scalar& candidate : tries) {
        Scalar v = candidate.cast(t);
        if (!v.same_value(candidate)) continue;
        bool fresh = true;
        for (const Scalar& c : taken) fresh = fresh && !c.same_value(v);
        if (fresh) return v;
    }
    return std::nullopt;
}

std::string call_text(const Code& code, const std::vector<Scalar>& args) {
    std::string s = code.name + "(";
    for (size_t k = 0; k < args.size(); ++k)
        s += (k ? ", " : "") + ir::print(ir::Literal::make(args[k]));
    return s + ")";
}

} // namespace

SpaceNode check_space(const FunctionDef& def, const Space& space) {
    return SpaceChecker(def, space).node(space.expr);
}

std::optional<bool> space_contains(const SpaceNode& s,
                                   std::span<const std::optional<Scalar>> args) {
    using Kind = SpaceNode::Kind;
    switch (s.kind) {
    case Kind::Differs: {
        const auto& a = args[static_cast<size_t>(s.param)];
        if (!a) return std::nullopt;
        return !a->same_value(s.value);
    }
    case Kind::Not: {
        auto v = space_contains(s.args[0], args);
        if (!v) return std::nullopt;
        return !*v;
    }
    case Kind::And:
    case Kind::Or: {
        // The value that decides (false for &, true for |) wins over unknowns.
        bool decisive = s.kind == Kind::Or;
        bool unknown = false;
        for (const auto& a : s.args) {
            auto v = space_contains(a, args);
            if (!v) unknown = true;
            else if (*v == decisive) return decisive;
        }
        if (unknown) return std::nullopt;
        return !decisive;
    }
    case Kind::Xor: {
        auto l = space_contains(s.args[0], args);
        auto r = space_contains(s.args[1], args);
        if (!l || !r) return std::nullopt;
        return *l != *r;
    }
    }
    return std::nullopt;
}

std::vector<Scalar> space_constants(const SpaceNode& space, int param) {
    std::vector<Scalar> out;
    collect(space, param, out);
    return out;
}

std::optional<Outside> outside_value(const Code& code) {
    if (!code.space) return std::nullopt;
    const SpaceNode& space = *code.space;
    // Per parameter: the constants the space names, then one value that differs from them
    // all (an unnamed parameter takes 0: the space does not depend on it).
    std::vector<std::vector<Scalar>> choices;
    for (size_t k = 0; k < code.params.size(); ++k) {
        std::vector<Scalar> c = space_constants(space, static_cast<int>(k));
        if (c.empty()) {
            choices.push_back({Scalar::of(int64_t{0}).cast(code.params[k])});
            continue;
        }
        if (auto other = another_value(code.params[k], c)) c.push_back(*other);
        choices.push_back(std::move(c));
    }
    std::vector<size_t> at(choices.size(), 0);
    for (;;) {
        std::vector<std::optional<Scalar>> known;
        std::vector<Scalar> point;
        for (size_t k = 0; k < choices.size(); ++k) {
            point.push_back(choices[k][at[k]]);
            known.emplace_back(point.back());
        }
        if (space_contains(space, known) == false) {
            try {
                return Outside{point, interpret(code, point)};
            } catch (const Error& e) {
                throw Error(fmt::format("function {}: it fails at {}, a point outside its space "
                                        "{}: {}",
                                        code.name, call_text(code, point), code.space_text,
                                        e.message()));
            }
        }
        // The next point, the last parameter fastest.
        size_t k = choices.size();
        while (k > 0 && ++at[k - 1] == choices[k - 1].size()) at[--k] = 0;
        if (k == 0) return std::nullopt;
    }
}

} // namespace siskin::functions
