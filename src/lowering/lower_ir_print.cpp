// The lowering tree as text, for the pass dump: the program as convert hands it to the looplet
// lowerer. A tensor access reads `A@0(0)[i, j]`: the tensor, the level it has reached, its fibre
// there (positions, as C) and the subscripts it has not consumed yet; a write is marked `&`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/c_printer.hpp"
#include "lowering/index_wrapper.hpp"
#include "lowering/lower_ir.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/operators.hpp"

namespace siskin::lowering {

namespace {

std::string c_list(const std::vector<cast::Expr>& es) {
    std::vector<std::string> out;
    for (const auto& e : es) out.push_back(cast::print(e));
    return fmt::format("{}", fmt::join(out, ", "));
}

std::string indent(int depth) { return std::string(static_cast<size_t>(depth) * 4, ' '); }

std::string print_stmt(const LStmt& s, int depth) {
    std::string pad = indent(depth);
    switch (s->kind) {
    case StmtKind::For: {
        const auto& f = *s->as<For>();
        return fmt::format("{}for {} in {}:{} {{\n{}{}}}\n", pad, f.index, print(f.lo), print(f.hi),
                           print_stmt(f.body, depth + 1), pad);
    }
    case StmtKind::Assign: {
        const auto& a = *s->as<Assign>();
        std::string op = a.op ? fmt::format("<<{}>>=", a.op->name) : "=";
        return fmt::format("{}{} {} {}\n", pad, print(a.lhs), op, print(a.rhs));
    }
    case StmtKind::If: {
        const auto& i = *s->as<If>();
        std::string out = fmt::format("{}if {} {{\n{}{}}}", pad, print(i.cond),
                                      print_stmt(i.then_body, depth + 1), pad);
        if (i.else_body) out += fmt::format(" else {{\n{}{}}}", print_stmt(i.else_body, depth + 1), pad);
        return out + "\n";
    }
    case StmtKind::Let: {
        const auto& l = *s->as<Let>();
        return fmt::format("{}let {} = {}\n{}", pad, l.name, print(l.value), print_stmt(l.body, depth));
    }
    case StmtKind::Block: {
        std::string out;
        for (const auto& t : s->as<Block>()->stmts) out += print_stmt(t, depth);
        return out;
    }
    }
    return pad + "?\n";
}

} // namespace

std::string print(const LExpr& e) {
    switch (e->kind) {
    case NodeKind::Literal: return e->as<Literal>()->value.to_string();
    case NodeKind::CValue: return "`" + cast::print(e->as<CValue>()->expr) + "`";
    case NodeKind::Index: {
        const auto& i = *e->as<Index>();
        return i.wrapper ? fmt::format("{}@<{}>", i.name, i.wrapper->key()) : i.name;
    }
    case NodeKind::Variable: return e->as<Variable>()->name;
    case NodeKind::Call: {
        const auto& c = *e->as<Call>();
        std::vector<std::string> args;
        for (const auto& a : c.args) args.push_back(print(a));
        return fmt::format("{}({})", c.op->name, fmt::join(args, ", "));
    }
    case NodeKind::Fiber: {
        const auto& f = *e->as<Fiber>();
        std::vector<std::string> subs;
        for (const auto& s : f.subscripts) subs.push_back(print(s));
        return fmt::format("{}{}@{}({})[{}]", f.write ? "&" : "", f.tensor->name, f.level,
                           c_list(f.pos), fmt::join(subs, ", "));
    }
    case NodeKind::Unfurled: {
        const auto& u = *e->as<Unfurled>();
        return fmt::format("{}looplet({})", u.write ? "&" : "", u.tensor ? u.tensor->name : "");
    }
    case NodeKind::Hoist: return "hoist(" + print(e->as<Hoist>()->inner) + ")";
    case NodeKind::Select: {
        std::vector<std::string> cases;
        for (const auto& c : e->as<Select>()->cases)
            cases.push_back(c.cond ? fmt::format("`{}` ? {}", cast::print(*c.cond), print(c.value))
                                   : print(c.value));
        return fmt::format("select({})", fmt::join(cases, " : "));
    }
    case NodeKind::Slot: return "&`" + cast::print(e->as<Slot>()->target) + "`";
    }
    return "?";
}

std::string print(const LStmt& s) { return print_stmt(s, 0); }

} // namespace siskin::lowering
