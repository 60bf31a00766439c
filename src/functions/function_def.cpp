// FunctionDef: the builder and the program-text printer (to_string), whose output parses back
// to an equal definition.
#include <fmt/format.h>

#include "functions/ast.hpp"
#include "functions/parser.hpp"
#include "siskin/functions.hpp"
#include "siskin/ir/text.hpp"

namespace siskin {

namespace {

using functions::Stmt;
using functions::StmtKind;

std::string constant_text(const Scalar& v) { return ir::print(ir::Literal::make(v)); }

std::string pad(int depth) { return std::string(4 * depth, ' '); }

void print_stmt(const Stmt& s, int depth, std::string& out);

// `{`, the statements one per line, `}` (without a newline after it).
void print_block(const Stmt& b, int depth, std::string& out) {
    if (b.stmts.empty()) {
        out += "{}";
        return;
    }
    out += "{\n";
    for (const auto& s : b.stmts) {
        out += pad(depth + 1);
        print_stmt(*s, depth + 1, out);
        out += "\n";
    }
    out += pad(depth) + "}";
}

void print_stmt(const Stmt& s, int depth, std::string& out) {
    switch (s.kind) {
    case StmtKind::Let:
        out += fmt::format("let {}{} = {}", s.name,
                           s.type ? fmt::format(": {}", type_name(*s.type)) : "",
                           ir::print(s.value));
        return;
    case StmtKind::Assign: out += fmt::format("{} = {}", s.name, ir::print(s.value)); return;
    case StmtKind::If:
        out += fmt::format("if {} ", ir::print(s.value));
        print_block(*s.body, depth, out);
        if (s.else_body) {
            out += " else ";
            if (s.else_body->kind == StmtKind::If) print_stmt(*s.else_body, depth, out);
            else print_block(*s.else_body, depth, out);
        }
        return;
    case StmtKind::While:
        out += fmt::format("while {} ", ir::print(s.value));
        print_block(*s.body, depth, out);
        return;
    case StmtKind::Return: out += "return " + ir::print(s.value); return;
    case StmtKind::Block: print_block(s, depth, out); return;
    }
}

} // namespace

FunctionDef::FunctionDef(std::string name) : name_(std::move(name)) {}

FunctionDef& FunctionDef::param(std::string name, ValueType type) {
    params_.push_back({std::move(name), type});
    return *this;
}

FunctionDef& FunctionDef::returns(ValueType type) {
    result_ = type;
    return *this;
}

FunctionDef& FunctionDef::body(std::string_view statements) {
    body_ = functions::parse_body(statements, fmt::format("<function {}>", name_));
    return *this;
}

FunctionDef& FunctionDef::commutative(bool on) {
    properties_.commutative = on;
    return *this;
}

FunctionDef& FunctionDef::associative(bool on) {
    properties_.associative = on;
    return *this;
}

FunctionDef& FunctionDef::idempotent(bool on) {
    properties_.idempotent = on;
    return *this;
}

FunctionDef& FunctionDef::identity(Scalar value, std::optional<int> position) {
    properties_.identity = DeclaredValue{value, position};
    return *this;
}

FunctionDef& FunctionDef::annihilator(Scalar value, std::optional<int> position,
                                      bool finite_only) {
    properties_.annihilator = DeclaredValue{value, position};
    properties_.annihilator_finite_only = finite_only;
    return *this;
}

FunctionDef& FunctionDef::space(std::string_view set_expression) {
    space_ = functions::parse_space(set_expression, fmt::format("<space of {}>", name_));
    return *this;
}

FunctionDef& FunctionDef::special_case(std::string_view text) {
    cases_.push_back(functions::parse_case(text, fmt::format("<case of {}>", name_)));
    return *this;
}

FunctionDef& FunctionDef::step_limit(int64_t steps) {
    step_limit_ = steps;
    return *this;
}

std::string FunctionDef::to_string() const {
    std::string out = "def " + name_ + "(";
    for (size_t k = 0; k < params_.size(); ++k)
        out += fmt::format("{}{}: {}", k ? ", " : "", params_[k].name, type_name(params_[k].type));
    out += fmt::format(") -> {}", type_name(result_));

    std::vector<std::string> props;
    const FunctionProperties& p = properties_;
    if (p.commutative) props.emplace_back("commutative");
    if (p.associative) props.emplace_back("associative");
    if (p.idempotent) props.emplace_back("idempotent");
    auto declared = [&](std::string_view word, const DeclaredValue& d) {
        std::string at;
        if (d.position) {
            int k = *d.position;
            bool known = k >= 0 && static_cast<size_t>(k) < params_.size();
            // An out-of-range position is refused when the definition is checked; print it as
            // a name that cannot be a parameter so the text fails the same way.
            at = ", " + (known ? params_[k].name : fmt::format("position_{}", k));
        }
        props.push_back(fmt::format("{}({}{})", word, constant_text(d.value), at));
    };
    if (p.identity) declared("identity", *p.identity);
    if (p.annihilator) declared("annihilator", *p.annihilator);
    if (p.annihilator_finite_only) props.emplace_back("annihilator_finite_only");
    if (space_) props.push_back("space(" + ir::print(space_->expr) + ")");
    if (!props.empty()) {
        out += " [";
        for (size_t k = 0; k < props.size(); ++k) out += (k ? ", " : "") + props[k];
        out += "]";
    }
    out += " ";
    if (body_) print_block(*body_->block, 0, out);
    else out += "{}";
    out += "\n";
    for (const auto& c : cases_) {
        out += "case " + c->function + "(";
        for (size_t k = 0; k < c->patterns.size(); ++k) {
            const auto& pat = c->patterns[k];
            out += (k ? ", " : "") + (pat.name ? *pat.name : constant_text(*pat.value));
        }
        out += ") = " + ir::print(c->result) + "\n";
    }
    return out;
}

} // namespace siskin
