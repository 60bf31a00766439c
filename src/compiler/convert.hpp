#pragma once
// The program as a lowering tree: every access a root Fiber (level 0, position 0, subscripts in
// storage order), loops with their extents, `=` assignments marked when they may drop writes of
// the fill. Refuses with Error(Unsupported) what the compiler cannot handle yet.
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "compiler/bind.hpp"
#include "ir/affine.hpp"
#include "lowering/lower_ir.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// A dimension that must be at least `at_least` at run time (a literal subscript, or a loop
/// with a given range).
struct DimCheck {
    DimRef dim;
    int64_t at_least = 0;
};

/// A sliced read `T[.., i(lo:hi:st), ..]`: the slice must lie inside dimension `dim` and give
/// as many elements as i takes: the size of `index_dim` (a dimension a plain access ties i to),
/// else the length of i's other slices, and at least `at_least` (a loop with a given range).
struct SliceCheck {
    DimRef dim;
    ir::Slice slice;
    std::string index;
    std::optional<DimRef> index_dim;
    int64_t at_least = 0;
};

/// A compound subscript whose indices the host can size (given ranges, or a plain access of an
/// input): it must stay inside dimension `dim` for every run (an index whose valid range the
/// kernel computes keeps its subscripts inside by construction).
struct AffineCheck {
    DimRef dim;
    ir::Affine affine;
    std::string text; // the subscript as written
    /// Per index: a given range, or the dimension whose size it runs over from 0.
    std::map<std::string, std::variant<std::pair<int64_t, int64_t>, DimRef>> ranges;
};

struct Converted {
    LStmt body; // a Block of the program's top-level statements when it has several
    /// Lifecycle: the sparse outputs to freeze after top-level statement k, their last writer,
    /// because a later statement reads them.
    std::map<size_t, std::vector<std::string>> freeze_after;
    std::vector<DimCheck> checks;
    std::vector<SliceCheck> slice_checks;
    std::vector<AffineCheck> affine_checks;
    /// The accesses through computed subscripts (x[P[i]], bins[floordiv(v[i], 16)]), which the
    /// kernel checks as it goes (SISKIN_ERR_COORDINATE), as the program writes them.
    std::vector<std::string> computed;
};

Converted convert_program(LowerCtx& ctx, const ir::Program& program, const KernelTensors& tensors);

} // namespace siskin::compiler
