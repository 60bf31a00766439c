#include "passes/lifecycle.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin {

namespace {

enum class Mode { Read, Update };
using Modes = std::map<std::string, Mode>; // every output's

std::vector<ir::Stmt> statements_of(const ir::Stmt& s) {
    if (const auto* b = s->as<ir::Block>()) return b->stmts;
    return {s};
}

// A statement on one line, for messages: its lines joined (`for i { x[i] += 1; y[i] += 1 }`).
std::string one_line(const ir::Stmt& s) {
    std::istringstream in(ir::print(s));
    std::string out, line;
    while (std::getline(in, line)) {
        line.erase(0, line.find_first_not_of(' '));
        if (line.empty()) continue;
        bool glue = out.empty() || out.back() == '{' || line.front() == '}';
        out += (out.empty() ? "" : glue ? " " : "; ") + line;
    }
    return out;
}

// What one plain statement reads and updates, in order of appearance: the assigned tensors are
// updated, every other access (subscripts of an assigned access included) is a read.
struct Uses {
    std::vector<const ir::Access*> reads;
    std::vector<std::string> updates;

    void read(const ir::Expr& e) {
        ir::visit(e, [&](const ir::Expr& x) {
            if (const auto* a = x->as<ir::Access>()) reads.push_back(a);
        });
    }
    void collect(const ir::Stmt& s) {
        switch (s->kind) {
        case ir::StmtKind::For: {
            const auto* f = s->as<ir::For>();
            if (f->lo) read(f->lo);
            if (f->hi) read(f->hi);
            return collect(f->body);
        }
        case ir::StmtKind::Assign: {
            const auto* a = s->as<ir::Assign>();
            if (std::find(updates.begin(), updates.end(), a->lhs->tensor) == updates.end())
                updates.push_back(a->lhs->tensor);
            for (const auto& i : a->lhs->indices) read(i);
            return read(a->rhs);
        }
        case ir::StmtKind::If: {
            const auto* i = s->as<ir::If>();
            read(i->cond);
            collect(i->then_body);
            if (i->else_body) collect(i->else_body);
            return;
        }
        case ir::StmtKind::Let: {
            const auto* l = s->as<ir::Let>();
            read(l->value);
            return collect(l->body);
        }
        case ir::StmtKind::Block:
            for (const auto& x : s->as<ir::Block>()->stmts) collect(x);
            return;
        case ir::StmtKind::While:
        case ir::StmtKind::Swap: return; // only where statements are sequenced (the verifier)
        }
    }
};

class Planner {
public:
    Planner(const ir::Program& program, const std::set<std::string>& started)
        : outputs_(program.outputs()) {
        for (const auto& name : outputs_) modes_[name] = started.count(name) ? Mode::Read : Mode::Update;
    }

    Lifecycle run(const ir::Program& program) {
        statement(program.body, modes_, true);
        for (const auto& name : outputs_)
            if (modes_.at(name) == Mode::Update) out_.at_end.push_back({LifecycleOp::Kind::Freeze, name});
        return std::move(out_);
    }

private:
    static void bring(Modes& m, const std::string& tensor, Mode want, std::vector<LifecycleOp>* ops) {
        auto it = m.find(tensor);
        if (it == m.end() || it->second == want) return; // an input, or already there
        it->second = want;
        if (ops) ops->push_back({want == Mode::Read ? LifecycleOp::Kind::Freeze : LifecycleOp::Kind::Thaw, tensor});
    }

    // From m to want, tensor by tensor in the program's order of outputs.
    void bring_all(Modes& m, const Modes& want, std::vector<LifecycleOp>* ops) const {
        for (const auto& name : outputs_) bring(m, name, want.at(name), ops);
    }

    std::vector<LifecycleOp>* ops_at(std::map<const ir::StmtNode*, std::vector<LifecycleOp>>& where,
                                     const ir::Stmt& s, bool record) {
        return record ? &where[s.get()] : nullptr;
    }

    // Walks s from the modes m (updated); `record` notes the operations (a while's body is
    // walked once more without, to find the modes a pass leaves).
    void statement(const ir::Stmt& s, Modes& m, bool record) {
        switch (s->kind) {
        case ir::StmtKind::Block:
            for (const auto& x : s->as<ir::Block>()->stmts) statement(x, m, record);
            return;
        case ir::StmtKind::While: return loop(s, *s->as<ir::While>(), m, record);
        case ir::StmtKind::Swap: {
            const auto* w = s->as<ir::Swap>();
            auto* ops = ops_at(out_.before, s, record);
            bring(m, w->first, Mode::Read, ops);
            bring(m, w->second, Mode::Read, ops);
            return;
        }
        default: return plain(s, m, record);
        }
    }

    void plain(const ir::Stmt& s, Modes& m, bool record) {
        Uses uses;
        uses.collect(s);
        for (const auto* a : uses.reads)
            if (std::find(uses.updates.begin(), uses.updates.end(), a->tensor) != uses.updates.end())
                throw Error(fmt::format("{} is read and updated in one statement ({}): a statement "
                                        "reads a tensor or updates it, never both, as its reads "
                                        "would see {} partly updated (Finch's read and update "
                                        "modes); read {} in a statement of its own, e.g. a copy "
                                        "made before this one",
                                        a->tensor, one_line(s), a->tensor, a->tensor),
                            Error::Kind::User,
                            a->pos.line > 0 ? std::optional<SourceLocation>(SourceLocation{
                                                  "<program>", a->pos.line, a->pos.column})
                                            : std::nullopt);
        auto* ops = ops_at(out_.before, s, record);
        for (const auto* a : uses.reads) bring(m, a->tensor, Mode::Read, ops);
        for (const auto& name : uses.updates) bring(m, name, Mode::Update, ops);
    }

    // A while's passes all start in the modes one pass leaves (the tensors the body does not
    // touch keep theirs), with the condition's tensors frozen: the loop is entered in them, and
    // the end of the body returns to them.
    void loop(const ir::Stmt& s, const ir::While& w, Modes& m, bool record) {
        Modes entry = m;
        statement(w.body, entry, false);
        ir::visit(w.cond, [&](const ir::Expr& x) {
            if (const auto* a = x->as<ir::Access>(); a && entry.count(a->tensor)) entry[a->tensor] = Mode::Read;
        });
        bring_all(m, entry, ops_at(out_.before, s, record));
        Modes pass = entry;
        statement(w.body, pass, record);
        bring_all(pass, entry, ops_at(out_.end_of_body, s, record));
    }

    std::vector<std::string> outputs_;
    Modes modes_;
    Lifecycle out_;
};

std::string pad(int indent) { return std::string(4 * static_cast<size_t>(indent), ' '); }

void print_ops(std::string& out, const std::vector<LifecycleOp>& ops, int indent) {
    for (const auto& op : ops)
        out += fmt::format("{}@{}({})\n", pad(indent), op.kind == LifecycleOp::Kind::Freeze ? "freeze" : "thaw",
                           op.tensor);
}

void print_sequence(std::string& out, const std::vector<ir::Stmt>& stmts, const Lifecycle& l, int indent) {
    auto ops = [&](const auto& where, const ir::Stmt& s) {
        if (auto it = where.find(s.get()); it != where.end()) print_ops(out, it->second, indent);
    };
    for (const auto& s : stmts) {
        if (const auto* b = s->as<ir::Block>()) {
            print_sequence(out, b->stmts, l, indent);
            continue;
        }
        ops(l.before, s);
        if (const auto* w = s->as<ir::While>()) {
            out += fmt::format("{}while {} {{\n", pad(indent), ir::print(w->cond));
            print_sequence(out, statements_of(w->body), l, indent + 1);
            if (auto it = l.end_of_body.find(s.get()); it != l.end_of_body.end())
                print_ops(out, it->second, indent + 1);
            out += pad(indent) + "}\n";
            continue;
        }
        std::istringstream in(ir::print(s));
        for (std::string line; std::getline(in, line);) out += pad(indent) + line + "\n";
    }
}

} // namespace

Lifecycle plan_lifecycle(const ir::Program& program, const std::set<std::string>& started) {
    SISKIN_ASSERT(program.body, "a program needs a body");
    return Planner(program, started).run(program);
}

std::string print_lifecycle(const ir::Program& program, const Lifecycle& lifecycle) {
    std::string out;
    print_sequence(out, statements_of(program.body), lifecycle, 0);
    print_ops(out, lifecycle.at_end, 0);
    return out;
}

} // namespace siskin
