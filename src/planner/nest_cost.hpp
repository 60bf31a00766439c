#pragma once
// The cost model of one einsum statement run as a perfect nest in a given loop order (the
// planner's loop-order candidates, loop_order.cpp). src/planner/README.md gives the formula.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"
#include "siskin/planner.hpp"

namespace siskin::planner {

/// One read of the statement: its access, the index of each dimension and the tensor's data.
struct Read {
    const ir::Access* access = nullptr;
    std::vector<std::string> index;
    const Tensor* tensor = nullptr;
    std::shared_ptr<const TensorStatistics> stats;
    bool sparse = false; // some level stores coordinates
};

/// How a candidate reads a tensor whose levels the loops reach out of order: in order (nothing
/// to do), through a copy transposed into loop order, or by a binary search (`follow`).
enum class ReadRoute { InOrder, Transposed, Searched };
/// How the output is written: a dense output at random, a sparse one appended in order, through
/// a row workspace (a reduction loop runs between its last two indices), or through a dense
/// temporary of its shape or a hashed one (sparsehash levels: any order, room for the entries
/// only) converted after the loops.
enum class WriteRoute { Dense, InOrder, Workspace, DenseTemporary, HashTemporary };

struct Statement {
    std::vector<Read> reads;
    /// The rhs as a union of products: each term lists the sparse reads that must all be stored
    /// for it to contribute (a product intersects, any other operation unites).
    std::vector<std::vector<size_t>> terms;
    std::map<std::string, int64_t> extent;
    std::vector<std::string> output_index; // in the output's storage order
};

struct NestCost {
    double loops = 0, bodies = 0, searches = 0, transposes = 0, output = 0;
    double total() const { return loops + bodies + searches + transposes + output; }
    std::string formula() const;
};

NestCost estimate_nest(const Statement& s, const std::vector<std::string>& order, const std::vector<ReadRoute>& routes,
                       WriteRoute write);

} // namespace siskin::planner
