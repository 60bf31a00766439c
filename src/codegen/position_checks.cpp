// Position checks (c_optimize.hpp): the kernel counts an output level's positions in int64, and
// a level with 32-bit indices stores them narrowed. Each such store is preceded by a test that
// stops the kernel (SISKIN_ERR_INDEX_OVERFLOW) before a position that does not fit is stored,
// so a truncated position is never written, let alone followed.
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"
#include "siskin/error.hpp"

namespace siskin::cast {

namespace {

class Checker {
public:
    Checker(const std::set<std::string>& pointers, int64_t limit)
        : pointers_(pointers), limit_(limit) {}

    Stmt stmt(const Stmt& s) {
        if (s.kind() == StmtKind::Block) return block(s);
        if (s.kind() == StmtKind::For) {
            const auto& f = s.as<For>();
            SISKIN_ASSERT(!(f.init && stored_position(*f.init)) && !(f.step && stored_position(*f.step)),
                          "a position store in a for header");
        }
        // A store is checked by the block that holds it.
        return map_bodies(s, [&](const Stmt& body) { return stmt(body); });
    }

private:
    Stmt block(const Stmt& b) {
        std::vector<Stmt> out;
        for (const auto& c : b.as<Block>().stmts) {
            if (auto value = stored_position(c)) {
                SISKIN_ASSERT(is_pure(*value), "a position store whose value has effects");
                out.push_back(If::make(bin(BinaryOp::Gt, *value, i64(limit_)),
                                       Return::make(var("SISKIN_ERR_INDEX_OVERFLOW"))));
            }
            out.push_back(stmt(c));
        }
        return Block::make(std::move(out));
    }

    bool is_position_array(const Expr& e) const {
        if (e.kind() != ExprKind::Index) return false;
        const Expr& base = e.as<Index>().base;
        return base.kind() == ExprKind::Var && pointers_.count(base.as<Var>().name) > 0;
    }

    // The value a statement stores into a position array, when it may exceed the limit.
    std::optional<Expr> stored_position(const Stmt& s) const {
        if (s.kind() == StmtKind::Increment) {
            const auto& n = s.as<Increment>();
            if (!is_position_array(n.target) || n.decrement) return std::nullopt;
            return bin(BinaryOp::Add, n.target, i64(1));
        }
        if (s.kind() != StmtKind::Assign) return std::nullopt;
        const auto& a = s.as<Assign>();
        if (!is_position_array(a.target)) return std::nullopt;
        if (a.op == AssignOp::Add) return bin(BinaryOp::Add, a.target, a.value);
        SISKIN_ASSERT(a.op == AssignOp::Set, "a position array updated by an unexpected operator");
        // A copy of a stored position was checked when it was stored.
        if (is_position_array(a.value)) return std::nullopt;
        if (a.value.kind() == ExprKind::Literal) {
            const Scalar& v = a.value.as<Literal>().value;
            if (is_signed_integer(v.type()) && v.as_int() <= limit_) return std::nullopt;
        }
        return a.value;
    }

    const std::set<std::string>& pointers_;
    int64_t limit_;
};

} // namespace

Stmt check_position_stores(const Stmt& body, const std::set<std::string>& pointers,
                           int64_t limit) {
    if (pointers.empty()) return body;
    return Checker(pointers, limit).stmt(body);
}

} // namespace siskin::cast
