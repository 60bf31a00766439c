// The checker: resolves names and operators, types every expression, converts literals to the
// type they are used at, and refuses what C or the interpreter could not run the same way
// (lossy implicit conversions, paths without return, unreachable statements).
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "functions/ast.hpp"
#include "functions/code.hpp"
#include "functions/iteration_space.hpp"
#include "ir/lexer.hpp"
#include "ir/syntax.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::functions {

namespace {

using ir::syntax::type_named;

// An implicit conversion: only along promotion (NumPy's "safe" casting; 64-bit integers to
// float64 round, as NumPy allows).
bool converts(ValueType from, ValueType to) { return from == to || promote(from, to) == to; }

// Plain number literals (`3`, `2.5`) adapt to the type they meet, as NumPy 2 treats Python
// numbers: `x + 1` keeps x's int32.
bool is_weak(const CodeExpr& e) {
    return e.kind == CodeExprKind::Constant &&
           (e.type == ValueType::Int64 || e.type == ValueType::Float64);
}

CodeExpr constant(Scalar v) {
    CodeExpr e{CodeExprKind::Constant, v.type(), v, -1, nullptr, {}, {}};
    return e;
}

CodeExpr convert(CodeExpr e, ValueType to) {
    if (e.type == to) return e;
    if (e.kind == CodeExprKind::Constant) return constant(e.value.cast(to));
    CodeExpr c{CodeExprKind::Convert, to, Scalar(), -1, nullptr, {}, {}};
    c.args.push_back(std::move(e));
    return c;
}

// The C template forms that evaluate lazily; the interpreter does the same for them.
CodeExprKind lazy_kind(const Operator& op) {
    if (op.arity == 2 && op.c_template == "($0 && $1)") return CodeExprKind::And;
    if (op.arity == 2 && op.c_template == "($0 || $1)") return CodeExprKind::Or;
    if (op.arity == 3 && op.c_template == "($0 ? $1 : $2)") return CodeExprKind::Select;
    return CodeExprKind::Call;
}

class Checker {
public:
    explicit Checker(const FunctionDef& def) : def_(def), code_(std::make_shared<Code>()) {}

    std::shared_ptr<const Code> run() {
        check_shape();
        code_->name = def_.name();
        code_->result = def_.result();
        code_->step_limit = def_.steps();
        for (const auto& p : def_.params()) {
            code_->params.push_back(p.type);
            add_slot(p.name, p.type, {});
        }
        check_properties();
        if (const auto& space = def_.space_ast()) {
            code_->space = check_space(def_, *space);
            code_->space_text = ir::print(space->expr);
        }
        const Body& body = *def_.body_ast();
        source_ = body.source.get();
        scopes_.push_back(scope_.size());
        bool returns = block(*body.block, code_->body);
        if (!returns)
            fail(body.block->end, fmt::format("function {} can reach the end of its body "
                                              "without returning a value; add a return",
                                              def_.name()));
        for (const auto& c : def_.cases()) check_case(*c);
        return code_;
    }

private:
    struct Visible {
        std::string name;
        int slot;
        Position pos;
    };

    const FunctionDef& def_;
    std::shared_ptr<Code> code_;
    const Source* source_ = nullptr;
    std::vector<Visible> scope_;
    std::vector<size_t> scopes_;

    [[noreturn]] void fail(Position pos, const std::string& message) const {
        SISKIN_ASSERT(source_, "a check error without source text");
        ir::SourceText{source_->text, source_->name}.fail(pos, message);
    }
    // An error about the definition as a whole (its name, parameters or properties).
    [[noreturn]] void fail_def(const std::string& message) const {
        throw Error(fmt::format("function {}: {}", def_.name(), message), Error::Kind::User,
                    def_.where());
    }

    int add_slot(const std::string& name, ValueType type, Position pos) {
        int slot = static_cast<int>(code_->slot_types.size());
        code_->slot_types.push_back(type);
        code_->slot_names.push_back(name);
        scope_.push_back({name, slot, pos});
        return slot;
    }

    void check_shape() {
        const std::string& name = def_.name();
        bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                          std::all_of(name.begin(), name.end(), [](char c) {
                              return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                          });
        if (!identifier)
            throw Error(fmt::format("a function name must be an identifier (letters, digits, _), "
                                    "not '{}'",
                                    name));
        if (type_named(name)) fail_def("a type name cannot name a function");
        size_t n = def_.params().size();
        if (n < 1 || n > 3)
            fail_def(fmt::format("it has {} parameters; a function takes 1, 2 or 3", n));
        for (size_t k = 0; k < n; ++k) {
            const std::string& p = def_.params()[k].name;
            if (p.empty() || ir::syntax::is_body_keyword(p) || type_named(p))
                fail_def(fmt::format("'{}' cannot name a parameter", p));
            for (size_t j = 0; j < k; ++j)
                if (def_.params()[j].name == p)
                    fail_def(fmt::format("parameter {} is declared twice", p));
        }
        if (!def_.body_ast()) fail_def("it has no body");
        if (def_.steps() < 1) fail_def("its step limit must be at least 1");
    }

    // The declared value at `position` converted exactly to that parameter's type.
    Scalar declared_at(const DeclaredValue& d, int position, std::string_view property) const {
        const FunctionParam& p = def_.params()[position];
        Scalar v = d.value.cast(p.type);
        if (!v.same_value(d.value))
            fail_def(fmt::format("its {} {} is not a value of type {} (the type of parameter "
                                 "{})",
                                 property, d.value.to_string(), type_name(p.type), p.name));
        return v;
    }

    void check_properties() const {
        const FunctionProperties& p = def_.properties();
        bool any = p.commutative || p.associative || p.idempotent || p.identity || p.annihilator;
        if (any && def_.params().size() != 2)
            fail_def("only a function of two parameters can be commutative, associative, "
                     "idempotent or have an identity or annihilator");
        if (p.annihilator_finite_only && !p.annihilator)
            fail_def("annihilator_finite_only needs an annihilator");
        for (auto [d, property] : {std::pair{&p.identity, "identity"},
                                   std::pair{&p.annihilator, "annihilator"}}) {
            if (!*d) continue;
            const DeclaredValue& v = **d;
            if (v.position && (*v.position < 0 || *v.position > 1))
                fail_def(fmt::format("its {} is for argument position {}, but positions are 0 "
                                     "and 1",
                                     property, *v.position));
            for (int k = 0; k < 2; ++k)
                if (!v.position || *v.position == k) declared_at(v, k, property);
        }
        if (p.annihilator) {
            Scalar z = p.annihilator->value;
            if (!z.cast(def_.result()).same_value(z))
                fail_def(fmt::format("its annihilator {} is not a value of type {} (the result "
                                     "type), so the function cannot return it",
                                     z.to_string(), type_name(def_.result())));
        }
    }

    // ---- statements ----

    void open_scope() { scopes_.push_back(scope_.size()); }
    void close_scope() {
        scope_.resize(scopes_.back());
        scopes_.pop_back();
    }

    const Visible* lookup(std::string_view name) const {
        for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
            if (it->name == name) return &*it;
        return nullptr;
    }

    // Checks the statements of a block into `out`; true when every path through it returns.
    bool block(const Stmt& b, std::vector<CodeStmt>& out) {
        SISKIN_ASSERT(b.kind == StmtKind::Block, "a body that is not a block");
        open_scope();
        bool returns = false;
        for (const auto& s : b.stmts) {
            if (returns)
                fail(s->pos, "this statement is never reached: every path before it returns");
            returns = statement(*s, out);
        }
        close_scope();
        return returns;
    }

    CodeExpr assigned(const Expr& value, ValueType to, const std::string& what) {
        CodeExpr e = expr(value, to);
        if (!converts(e.type, to))
            fail(value->pos, fmt::format("{} is {} but this value is {}, which does not convert "
                                         "to {} without loss; write {}(...) to convert",
                                         what, type_name(to), type_name(e.type), type_name(to),
                                         type_name(to)));
        return convert(std::move(e), to);
    }

    bool statement(const Stmt& s, std::vector<CodeStmt>& out) {
        CodeStmt c;
        switch (s.kind) {
        case StmtKind::Let: {
            if (const Visible* v = lookup(s.name)) {
                if (v->pos.line == 0)
                    fail(s.pos, fmt::format("{} is a parameter; a let cannot declare it again",
                                            s.name));
                fail(s.pos, fmt::format("{} is already declared at {}:{}; names cannot be "
                                        "declared twice or shadowed",
                                        s.name, v->pos.line, v->pos.column));
            }
            CodeExpr value = s.type ? assigned(s.value, *s.type, s.name) : expr(s.value, {});
            c.kind = CodeStmtKind::Set;
            c.declares = true;
            c.slot = add_slot(s.name, value.type, s.pos);
            c.expr = std::move(value);
            out.push_back(std::move(c));
            return false;
        }
        case StmtKind::Assign: {
            const Visible* v = lookup(s.name);
            if (!v) fail(s.pos, unknown_name(s.name, "; declare it with let"));
            c.kind = CodeStmtKind::Set;
            c.slot = v->slot;
            c.expr = assigned(s.value, code_->slot_types[v->slot], s.name);
            out.push_back(std::move(c));
            return false;
        }
        case StmtKind::If: {
            c.kind = CodeStmtKind::If;
            c.expr = expr(s.value, {});
            bool then_returns = block(*s.body, c.body);
            bool else_returns = false;
            if (s.else_body) {
                if (s.else_body->kind == StmtKind::If) {
                    open_scope();
                    else_returns = statement(*s.else_body, c.else_body);
                    close_scope();
                } else {
                    else_returns = block(*s.else_body, c.else_body);
                }
            }
            out.push_back(std::move(c));
            return then_returns && else_returns;
        }
        case StmtKind::While: {
            c.kind = CodeStmtKind::While;
            c.expr = expr(s.value, {});
            block(*s.body, c.body);
            // `while true` leaves only through a return.
            bool forever = c.expr.kind == CodeExprKind::Constant && c.expr.value.as_bool();
            out.push_back(std::move(c));
            return forever;
        }
        case StmtKind::Return: {
            c.kind = CodeStmtKind::Return;
            c.expr = assigned(s.value, code_->result, fmt::format("the result of {}", def_.name()));
            out.push_back(std::move(c));
            return true;
        }
        case StmtKind::Block: {
            c.kind = CodeStmtKind::Block;
            bool returns = block(s, c.body);
            out.push_back(std::move(c));
            return returns;
        }
        }
        SISKIN_ASSERT(false, "unknown statement kind");
    }

    // ---- expressions ----

    std::string unknown_name(std::string_view name, std::string_view hint) const {
        std::string names;
        for (const auto& v : scope_) names += (names.empty() ? "" : ", ") + v.name;
        return fmt::format("unknown name '{}'{}{}", name,
                           names.empty() ? "" : fmt::format(" (the names here are {})", names),
                           hint);
    }

    CodeExpr expr(const Expr& e, std::optional<ValueType> hint) {
        switch (e->kind) {
        case ir::ExprKind::Literal: return literal(*e->as<ir::Literal>(), hint);
        case ir::ExprKind::Variable: {
            const auto& name = e->as<ir::Variable>()->name;
            const Visible* v = lookup(name);
            if (!v) fail(e->pos, unknown_name(name, ""));
            CodeExpr c{CodeExprKind::Slot, code_->slot_types[v->slot], Scalar(), v->slot,
                       nullptr, {}, {}};
            return c;
        }
        case ir::ExprKind::Call: return call(*e->as<ir::Call>());
        case ir::ExprKind::Index:
        case ir::ExprKind::Access: break;
        }
        fail(e->pos, "a function body works on scalars: it cannot use an index or a tensor");
    }

    CodeExpr literal(const ir::Literal& lit, std::optional<ValueType> hint) const {
        CodeExpr c = constant(lit.value);
        if (!hint || !is_weak(c) || *hint == c.type) return c;
        const Scalar& v = lit.value;
        if (v.type() == ValueType::Int64 && is_integer(*hint)) {
            Scalar t = v.cast(*hint);
            if (!t.same_value(v))
                fail(lit.pos, fmt::format("the constant {} does not fit {}, the type it is used "
                                          "at here",
                                          v.to_string(), type_name(*hint)));
            return constant(t);
        }
        if (v.type() == ValueType::Int64 && is_float(*hint)) return constant(v.cast(*hint));
        if (v.type() == ValueType::Float64 && *hint == ValueType::Float32)
            return constant(v.cast(*hint));
        return c;
    }

    CodeExpr call(const ir::Call& call) {
        if (auto to = type_named(call.op)) {
            if (call.args.size() != 1)
                fail(call.pos, fmt::format("the conversion {}(...) takes one value, not {}",
                                           call.op, call.args.size()));
            CodeExpr arg = expr(call.args[0], to);
            return convert(std::move(arg), *to);
        }
        if (call.op == def_.name())
            fail(call.pos, fmt::format("{} calls itself; recursion is not supported (use a while "
                                       "loop)",
                                       call.op));
        const Operator* op = lookup_operator(call.op);
        if (!op) {
            try {
                find_operator(call.op);
            } catch (const Error& e) {
                fail(call.pos, e.message());
            }
        }
        std::shared_ptr<const FunctionDef> user = find_function(call.op);
        if (call.args.size() != static_cast<size_t>(op->arity))
            fail(call.pos, fmt::format("{} '{}' takes {} argument{}, not {}",
                                       user ? "function" : "operator", call.op, op->arity,
                                       op->arity == 1 ? "" : "s", call.args.size()));

        // Arguments that are not plain literals first: they decide what the literals become.
        size_t n = call.args.size();
        std::vector<std::optional<CodeExpr>> args(n);
        std::vector<ValueType> strong;
        for (size_t k = 0; k < n; ++k) {
            if (call.args[k]->kind == ir::ExprKind::Literal) {
                CodeExpr c = constant(call.args[k]->as<ir::Literal>()->value);
                if (is_weak(c)) continue;
            }
            args[k] = expr(call.args[k], std::nullopt);
            strong.push_back(args[k]->type);
        }
        std::vector<CodeExpr> adapted, plain;
        for (size_t k = 0; k < n; ++k) {
            if (args[k]) {
                adapted.push_back(*args[k]);
                plain.push_back(*args[k]);
                continue;
            }
            std::optional<ValueType> h;
            if (user) h = user->params()[k].type;
            else if (!strong.empty()) {
                h = strong[0];
                for (ValueType t : strong) h = promote(*h, t);
            }
            adapted.push_back(expr(call.args[k], h));
            plain.push_back(expr(call.args[k], std::nullopt));
        }
        // The adapted literals, unless the operator refuses them (ldexp(x, 3) on float32 keeps
        // the exponent an integer).
        auto types_of = [](const std::vector<CodeExpr>& v) {
            std::vector<ValueType> t;
            for (const auto& e : v) t.push_back(e.type);
            return t;
        };
        std::vector<CodeExpr>* chosen = &adapted;
        std::vector<ValueType> types = types_of(adapted);
        ValueType result = ValueType::Bool;
        try {
            result = op->result_type(types);
        } catch (const Error&) {
            chosen = &plain;
            types = types_of(plain);
            try {
                result = op->result_type(types);
            } catch (const Error& e) {
                fail(call.pos, e.message());
            }
        }
        CodeExpr c{lazy_kind(*op), result, Scalar(), -1, op, {}, std::move(*chosen)};
        c.operand_types = op->operand_types ? op->operand_types(types) : types;
        if (user && std::find(code_->calls.begin(), code_->calls.end(), op) == code_->calls.end())
            code_->calls.push_back(op);
        return c;
    }

    // ---- cases ----

    void check_case(const Case& c) {
        source_ = c.source.get();
        size_t n = def_.params().size();
        if (c.function != def_.name())
            fail(c.pos, fmt::format("this case is for {}, not for {}", c.function, def_.name()));
        if (c.patterns.size() != n)
            fail(c.pos, fmt::format("{} takes {} argument{}, but the case gives {}", def_.name(),
                                    n, n == 1 ? "" : "s", c.patterns.size()));
        CodeCase out;
        scope_.clear();
        scopes_.clear();
        bool any_fixed = false;
        for (size_t k = 0; k < n; ++k) {
            const Case::Pattern& p = c.patterns[k];
            const FunctionParam& param = def_.params()[k];
            if (p.name) {
                scope_.push_back({*p.name, static_cast<int>(k), p.pos});
                out.fixed.push_back(std::nullopt);
                continue;
            }
            Scalar v = p.value->cast(param.type);
            if (!v.same_value(*p.value))
                fail(p.pos, fmt::format("{} is not a value of type {} (the type of parameter {})",
                                        p.value->to_string(), type_name(param.type), param.name));
            out.fixed.push_back(v);
            any_fixed = true;
        }
        if (!any_fixed)
            fail(c.pos, "a case fixes at least one argument to a constant, as in gcd(x, 0)");
        out.result =
            assigned(c.result, def_.result(), fmt::format("the result of {}", def_.name()));
        out.text = case_text(c);
        code_->cases.push_back(std::move(out));
        scope_.clear();
    }

    std::string case_text(const Case& c) const {
        std::string s = c.function + "(";
        for (size_t k = 0; k < c.patterns.size(); ++k) {
            const auto& p = c.patterns[k];
            s += (k ? ", " : "") + (p.name ? *p.name : ir::print(ir::Literal::make(*p.value)));
        }
        return s + ") = " + ir::print(c.result);
    }
};

} // namespace

std::shared_ptr<const Code> compile(const FunctionDef& def) { return Checker(def).run(); }

} // namespace siskin::functions
