// The order of a chain of three matrix products, `D[i,l] += A[i,j] * B[j,k] * C[k,l]`: as one
// fused nest (which the compiler runs as loops i, j, k, l, D through a row workspace), A*B
// first, or B*C first, each product through a CSR temporary. Costed from row and column counts
// (TensorStatistics) and one walk over B.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"
#include "planner/candidates.hpp"

namespace siskin::planner {

namespace {

struct Factor {
    std::string tensor, row, col; // X[row, col]
};

// The chain `out[a,d] += X[a,b] * Y[b,c] * Z[c,d]`, or nothing.
struct Chain {
    std::string output, a, d;
    Factor x, y, z;
};

std::optional<Factor> factor(const ir::Expr& e) {
    const auto* access = e->as<ir::Access>();
    if (!access || access->indices.size() != 2) return std::nullopt;
    const auto* r = access->indices[0]->as<ir::Index>();
    const auto* c = access->indices[1]->as<ir::Index>();
    if (!r || !c || r->slice || c->slice) return std::nullopt;
    for (const auto& p : access->protocols)
        if (!p.empty()) return std::nullopt; // the user's protocols win
    return Factor{access->tensor, r->name, c->name};
}

std::optional<Chain> chain_of(const ir::Program& program) {
    if (!program.functions.empty() || !program.fills.empty()) return std::nullopt;
    ir::Stmt s = program.body;
    std::vector<std::string> loops;
    for (;;) {
        if (const auto* b = s->as<ir::Block>(); b && b->stmts.size() == 1) s = b->stmts.front();
        else if (const auto* f = s->as<ir::For>(); f && !f->lo) {
            loops.push_back(f->index);
            s = f->body;
        } else break;
    }
    const auto* assign = s->as<ir::Assign>();
    if (!assign || assign->op != "add" || assign->lhs->indices.size() != 2) return std::nullopt;
    auto out = factor(assign->lhs);
    const auto* outer = assign->rhs->as<ir::Call>();
    if (!out || !outer || outer->op != "mul" || outer->args.size() != 2) return std::nullopt;
    const auto* inner = outer->args[0]->as<ir::Call>();
    if (!inner || inner->op != "mul" || inner->args.size() != 2) return std::nullopt;
    auto x = factor(inner->args[0]), y = factor(inner->args[1]), z = factor(outer->args[1]);
    if (!x || !y || !z) return std::nullopt;
    std::vector<std::string> names{x->row, x->col, y->col, z->col};
    std::sort(names.begin(), names.end());
    if (std::adjacent_find(names.begin(), names.end()) != names.end()) return std::nullopt;
    if (x->col != y->row || y->col != z->row || out->row != x->row || out->col != z->col) return std::nullopt;
    // Loops written in another order than the implied one are the user's: kept.
    if (loops != std::vector<std::string>{x->row, z->col, x->col, y->col}) return std::nullopt;
    return Chain{out->tensor, x->row, z->col, *x, *y, *z};
}

std::string access(const std::string& t, const std::string& r, const std::string& c) {
    return fmt::format("{}[{},{}]", t, r, c);
}

} // namespace

std::optional<std::vector<PlanCandidate>> chain_candidates(const ir::Program& program,
                                                           const std::map<std::string, const Tensor*>& inputs) {
    Plan plan;
    plan.candidates.push_back({"as written", program, {}, 0, "not estimated"});
    auto chain = chain_of(program);
    if (!chain) return std::nullopt;
    const Tensor* tx = inputs.count(chain->x.tensor) ? inputs.at(chain->x.tensor) : nullptr;
    const Tensor* ty = inputs.count(chain->y.tensor) ? inputs.at(chain->y.tensor) : nullptr;
    const Tensor* tz = inputs.count(chain->z.tensor) ? inputs.at(chain->z.tensor) : nullptr;
    if (!tx || !ty || !tz || tx->ndims() != 2 || ty->ndims() != 2 || tz->ndims() != 2) return std::nullopt;
    for (const Tensor* t : {tx, ty, tz})
        if (!t->fill().same_value(Scalar::zero(t->type()))) return std::nullopt; // products skip zeros only

    const TensorStatistics &sx = *statistics_of(*tx), &sy = *statistics_of(*ty), &sz = *statistics_of(*tz);
    if (!sx.counted() || !sy.counted() || !sz.counted()) return std::nullopt;
    const auto& col_x = sx.per_coordinate[1];
    const auto& row_y = sy.per_coordinate[0];
    const auto& col_y = sy.per_coordinate[1];
    const auto& row_z = sz.per_coordinate[0];
    const double rows = static_cast<double>(sx.shape[0]), cols = static_cast<double>(sz.shape[1]);
    if (col_x.size() != row_y.size() || col_y.size() != row_z.size()) return std::nullopt;
    // One walk over Y: the work below each (a, b) of the fused nest, and column counts of X*Y.
    std::vector<double> below(row_y.size(), 0), col_xy(col_y.size(), 0);
    ty->for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (v.same(ty->fill())) return;
        below[static_cast<size_t>(c[0])] += static_cast<double>(row_z[static_cast<size_t>(c[1])]);
        col_xy[static_cast<size_t>(c[1])] += static_cast<double>(col_x[static_cast<size_t>(c[0])]);
    });
    // xy_z counts each entry of X*Y once (duplicates summed in the temporary); xyz each product
    // X[a,b] * Y[b,c] once, as the fused nest meets them.
    double xy = 0, yz = 0, xy_entries = 0, xy_z = 0, xyz = 0, yz_entries = 0, x_yz = 0;
    for (size_t b = 0; b < row_y.size(); ++b) xy += static_cast<double>(col_x[b]) * static_cast<double>(row_y[b]);
    for (size_t c = 0; c < col_y.size(); ++c) {
        yz += static_cast<double>(col_y[c]) * static_cast<double>(row_z[c]);
        double n = std::min(rows, col_xy[c]);
        xy_entries += n;
        xy_z += n * static_cast<double>(row_z[c]);
        xyz += col_xy[c] * static_cast<double>(row_z[c]);
    }
    for (size_t b = 0; b < row_y.size(); ++b) {
        double n = std::min(cols, below[b]);
        yz_entries += n;
        x_yz += static_cast<double>(col_x[b]) * n;
    }
    // A product through a row workspace (as loop_order.cpp costs one): each multiply-add a loop
    // step and a body, then 3 per entry (scatter, sort, copy) and one per row. D's entries are
    // taken as the same in every plan (at most its elements, at most its products).
    double d_entries = std::min(rows * cols, xy_z);
    auto through_workspace = [](double products, double entries, double out_rows) {
        return 2 * products + 3 * entries + out_rows;
    };
    // The fused nest: each product X[a,b] * Y[b,c] (a finite one: a run-time test, where it
    // overflows C's row is walked whole) meets Z's row c.
    plan.candidates.front().cost = xy + through_workspace(xyz, d_entries, rows);
    plan.candidates.front().formula =
        fmt::format("{:.3g} + {:.3g} multiply-adds + {:.3g} output entries", xy, xyz, d_entries);
    plan.candidates.front().description =
        fmt::format("one fused nest, which the compiler runs as loops {}, {}, {}, {}; {} through a row workspace",
                    chain->a, chain->x.col, chain->y.col, chain->d, chain->output);

    std::set<std::string> names;
    ir::visit(program.body, {}, [&](const ir::Expr& e) {
        if (const auto* a = e->as<ir::Access>()) names.insert(a->tensor);
    });
    std::string t = "T";
    while (names.count(t)) t += "_";
    OutputSpec csr;
    csr.format = Format::csr();
    const Factor &x = chain->x, &y = chain->y, &z = chain->z;
    // Each product in Gustavson's order: output row, the shared index, output column.
    auto product = [](const std::string& out, const std::string& a, const std::string& b, const std::string& c,
                      const std::string& left, const std::string& right) {
        return fmt::format("for {}, {}, {} {{ {} += {} * {} }}", a, b, c, access(out, a, c), access(left, a, b),
                           access(right, b, c));
    };
    std::string left = product(t, x.row, x.col, y.col, x.tensor, y.tensor) + "\n" +
                       product(chain->output, x.row, y.col, z.col, t, z.tensor);
    std::string right = product(t, y.row, y.col, z.col, y.tensor, z.tensor) + "\n" +
                        product(chain->output, x.row, x.col, z.col, x.tensor, t);
    // The temporary is written by the kernel, so its values are not known finite. A*B first:
    // each entry of T is tested finite once (a run-time test) and then meets C's row only. B*C
    // first: where A holds zeros, 0 * T[j,l] is still computed (T's rows are fibres there, not
    // one value to test), so each row of A walks every row of T it does not hold, and fills
    // its row of D whole (touched, sorted, copied: 3 per element).
    double right_dense = rows * yz_entries + 3 * rows * cols;
    plan.candidates.push_back({fmt::format("{} = {}*{} first, then {}*{}", t, x.tensor, y.tensor, t, z.tensor),
                               ir::parse_program(left), {{t, csr}},
                               through_workspace(xy, xy_entries, rows) + through_workspace(xy_z, d_entries, rows),
                               fmt::format("{:.3g} + {:.3g} multiply-adds + {:.3g} temporary entries + {:.3g} output "
                                           "entries",
                                           xy, xy_z, xy_entries, d_entries)});
    plan.candidates.push_back({fmt::format("{} = {}*{} first, then {}*{}", t, y.tensor, z.tensor, x.tensor, t),
                               ir::parse_program(right), {{t, csr}},
                               through_workspace(yz, yz_entries, rows) + through_workspace(x_yz, d_entries, rows) +
                                   right_dense,
                               fmt::format("{:.3g} + {:.3g} multiply-adds + {:.3g} temporary entries + {:.3g} output "
                                           "entries + {:.3g} steps over A's zeros",
                                           yz, x_yz, yz_entries, d_entries, right_dense)});
    return plan.candidates;
}

} // namespace siskin::planner
