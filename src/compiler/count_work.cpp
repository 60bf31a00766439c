#include "compiler/count_work.hpp"

#include <vector>
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

cast::Expr counter() { return cast::var(kWorkCounterSymbol); }

cast::Stmt instrument(const cast::Stmt& s);

// A loop body with the increment in front.
cast::Stmt counted(const cast::Stmt& body) {
    std::vector<cast::Stmt> stmts{cast::Increment::make(counter())};
    cast::Stmt inner = instrument(body);
    if (inner.kind() == cast::StmtKind::Block) {
        for (const auto& c : inner.as<cast::Block>().stmts) stmts.push_back(c);
    } else {
        stmts.push_back(inner);
    }
    return cast::Block::make(std::move(stmts));
}

cast::Stmt instrument(const cast::Stmt& s) {
    switch (s.kind()) {
    case cast::StmtKind::Block: {
        std::vector<cast::Stmt> stmts;
        for (const auto& c : s.as<cast::Block>().stmts) stmts.push_back(instrument(c));
        return cast::Block::make(std::move(stmts));
    }
    case cast::StmtKind::If: {
        const auto& n = s.as<cast::If>();
        std::optional<cast::Stmt> otherwise;
        if (n.else_body) otherwise = instrument(*n.else_body);
        return cast::If::make(n.cond, instrument(n.then_body), otherwise);
    }
    case cast::StmtKind::For: {
        const auto& n = s.as<cast::For>();
        return cast::For::make(n.init, n.cond, n.step, counted(n.body));
    }
    case cast::StmtKind::While: {
        const auto& n = s.as<cast::While>();
        return cast::While::make(n.cond, counted(n.body));
    }
    default: return s;
    }
}

} // namespace

const char* work_counter_definition() {
    return "__attribute__((visibility(\"default\"))) int64_t siskin_work_count = 0;\n";
}

cast::Stmt count_loop_bodies(const cast::Stmt& body) {
    std::vector<cast::Stmt> stmts{cast::assign(counter(), cast::i64(0))};
    cast::Stmt inner = instrument(body);
    for (const auto& c : inner.as<cast::Block>().stmts) stmts.push_back(c);
    return cast::Block::make(std::move(stmts));
}

} // namespace siskin::compiler
