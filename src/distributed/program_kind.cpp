// Which programs the distributed layer runs (include/siskin/distributed.hpp, classify_program).
#include <fmt/format.h>

#include "siskin/distributed.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::distributed {

namespace {

// The plain index names of an access (no slices, protocols or expressions), or nothing.
std::optional<std::vector<std::string>> plain_indices(const ir::Access& a) {
    std::vector<std::string> names;
    for (size_t k = 0; k < a.indices.size(); ++k) {
        const auto* index = a.indices[k]->as<ir::Index>();
        if (!index || index->slice || !a.protocols[k].empty()) return std::nullopt;
        names.push_back(index->name);
    }
    return names;
}

// Whether `e` is an elementwise expression of matrices accessed as [i, j] (literals and
// operator calls over them), collecting the matrices in order of appearance.
bool elementwise_of(const ir::Expr& e, const std::vector<std::string>& ij, std::vector<std::string>& matrices) {
    if (e->as<ir::Literal>()) return true;
    if (const auto* call = e->as<ir::Call>()) {
        for (const auto& arg : call->args)
            if (!elementwise_of(arg, ij, matrices)) return false;
        return true;
    }
    if (const auto* access = e->as<ir::Access>()) {
        auto names = plain_indices(*access);
        if (!names || *names != ij) return false;
        if (std::find(matrices.begin(), matrices.end(), access->tensor) == matrices.end())
            matrices.push_back(access->tensor);
        return true;
    }
    return false;
}

} // namespace

const char* const kSupportedPrograms =
    "SpMV y[i] += A[i,j] * x[j], SpGEMM C[i,j] += A[i,k] * B[k,j], elementwise programs of "
    "same-shaped matrices C[i,j] = f(A[i,j], B[i,j], ...), and reductions of such an expression "
    "with +=, max= or min= into a scalar (s[] += A[i,j]) or per row (r[i] += A[i,j])";

DistributedProgram classify_program(const ir::Program& program) {
    auto refuse = [&](const std::string& why) -> DistributedProgram {
        throw Error(fmt::format("--distributed runs {}; this program is not one of them ({})",
                                kSupportedPrograms, why),
                    Error::Kind::Unsupported);
    };
    // The loop nest around one assignment.
    ir::Stmt s = program.body;
    std::vector<std::string> loops;
    while (const auto* f = s->as<ir::For>()) {
        if (f->lo || f->hi) return refuse("a loop with explicit bounds");
        loops.push_back(f->index);
        s = f->body;
    }
    const auto* assign = s->as<ir::Assign>();
    if (!assign) return refuse("it is not one statement in a loop nest");
    auto out = plain_indices(*assign->lhs);
    if (!out) return refuse("its output is not indexed by plain loop indices");
    DistributedProgram p;
    p.output = assign->lhs->tensor;

    const auto* call = assign->rhs->as<ir::Call>();
    auto access = [](const ir::Expr& e) { return e->as<ir::Access>(); };
    if (assign->op == "add" && call && call->op == "mul" && call->args.size() == 2 &&
        access(call->args[0]) && access(call->args[1])) {
        const ir::Access* a = access(call->args[0]);
        const ir::Access* b = access(call->args[1]);
        auto ai = plain_indices(*a), bi = plain_indices(*b);
        if (ai && bi) {
            if (a->indices.size() == 1 && b->indices.size() == 2) std::swap(a, b), std::swap(ai, bi);
            // y[i] += A[i,j] * x[j]
            if (out->size() == 1 && ai->size() == 2 && bi->size() == 1 && (*ai)[0] == (*out)[0] &&
                (*ai)[1] == (*bi)[0] && (*ai)[0] != (*ai)[1] && a->tensor != b->tensor) {
                p.kind = ProgramKind::Spmv;
                p.matrices = {a->tensor};
                p.vector = b->tensor;
                return p;
            }
            // C[i,j] += A[i,k] * B[k,j], in either order of the factors
            if (out->size() == 2 && ai->size() == 2 && bi->size() == 2) {
                if ((*bi)[0] == (*out)[0]) std::swap(a, b), std::swap(ai, bi);
                const std::string &i = (*out)[0], &j = (*out)[1], &k = (*ai)[1];
                if ((*ai)[0] == i && (*bi)[0] == k && (*bi)[1] == j && i != j && k != i && k != j) {
                    p.kind = ProgramKind::Spgemm;
                    p.matrices = {a->tensor, b->tensor};
                    return p;
                }
            }
        }
    }
    // Elementwise and reductions over [i, j].
    if (loops.size() != 2) return refuse("not a product, and not over two loop indices");
    std::vector<std::string> ij = loops;
    if (!elementwise_of(assign->rhs, ij, p.matrices)) {
        ij = {loops[1], loops[0]};
        p.matrices.clear();
        if (!elementwise_of(assign->rhs, ij, p.matrices))
            return refuse("its right-hand side reads something other than matrices at [i, j]");
    }
    if (p.matrices.empty()) return refuse("it reads no matrix");
    if (std::find(p.matrices.begin(), p.matrices.end(), p.output) != p.matrices.end())
        return refuse("it reads its own output");
    if (assign->op.empty() && *out == ij) {
        p.kind = ProgramKind::Elementwise;
        return p;
    }
    if (assign->op == "add" || assign->op == "max" || assign->op == "min") {
        p.reduction = assign->op;
        if (out->empty()) {
            p.kind = ProgramKind::FullReduction;
            return p;
        }
        if (out->size() == 1 && (*out)[0] == ij[0]) {
            p.kind = ProgramKind::RowReduction;
            return p;
        }
    }
    return refuse("its output is neither C[i,j] = ..., s[] op= ... nor r[i] op= ...");
}

} // namespace siskin::distributed
