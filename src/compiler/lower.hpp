#pragma once
// The looplet lowerer: turns the lowering tree into C statements, loop by loop.
//
// lower_body lowers statements at a point where every loop index outside is bound: it first
// hoists the Hoist and Select leaves that substitution left (set-up code, run-time choices),
// then emits assignments, ifs and lets, and hands loops to lower_for. lower_for unfurls every
// access whose next subscript is the loop's index into its level's looplets; lower_extent then
// picks the kind with the highest priority (looplet_priority.hpp) and calls that kind's lowerer
// (one file each, lower_<kind>.cpp), which splits the extent, truncates the other looplets,
// substitutes leaves and recurses through lower_extent on the parts.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lowering/lower_ctx.hpp"
#include "lowering/lower_ir.hpp"
#include "looplets/looplet.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

void lower_body(LowerCtx& ctx, const LStmt& s);
void lower_for(LowerCtx& ctx, const For& loop);
void lower_extent(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);

// One lowerer per looplet kind. Each gets the loop's index, its current extent, and a body in
// which at least one access of the index is an Unfurled looplet of that kind.
void lower_lookup(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
void lower_run(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
void lower_spike(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
void lower_sequence(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
void lower_stepper(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
void lower_jumper(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
void lower_switch(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
void lower_thunk(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
void lower_shift(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
/// The k-way merge of many sequences and steppers (lower_merge.cpp); false, emitting nothing,
/// where the specialised lowering stays (few operands, or chunks that are not values).
bool lower_merge(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
/// The steppers' steps over ext (lower_stepper without its other styles): the two-finger merge
/// of two sorted lists. `seeked`: the steppers were moved to ext.lo already.
void lower_steps(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                 bool seeked = false);
/// Two sorted lists whose body does nothing where either holds its fill (lower_intersection.cpp):
/// the merge when their lengths are alike, else the shorter walked and the longer galloped,
/// chosen at run time; false, emitting nothing, where that does not apply.
bool lower_intersection(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);
/// No looplet left: a plain loop that binds the index, or the collapsed body.
void lower_plain(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body);

// Helpers the lowerers share.

/// The distinct Unfurled accesses of `index` in body, in order of appearance; of one kind only
/// when given.
std::vector<const Unfurled*> unfurled_of(const LStmt& body, const std::string& index,
                                         std::optional<LoopletKind> kind = std::nullopt);
/// Replaces Unfurled accesses by identity.
LStmt replace_unfurled(const LStmt& body, const std::map<const Node*, LExpr>& by);
/// Truncates every Unfurled access of `index` not in `skip` from extent `from` to `to`.
LStmt truncate_all(LowerCtx& ctx, const LStmt& body, const std::string& index, const Extent& from,
                   const Extent& to, const std::set<const Node*>& skip = {});
/// Lowers body over a sub-extent, emitting nothing when the prover shows it empty and guarding
/// the code with `if (lo < hi)` unless the prover shows it non-empty.
/// `guard`: a test equivalent to ext.lo < ext.hi to use instead of it (Phase::nonempty).
void lower_range(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                 const std::optional<cast::Expr>& guard = std::nullopt);
/// Emits an if/else-if chain; branches must not all be empty. A trailing empty else is dropped.
void emit_chain(LowerCtx& ctx, const std::vector<std::pair<std::optional<cast::Expr>, std::vector<cast::Stmt>>>& branches);

} // namespace siskin::compiler
