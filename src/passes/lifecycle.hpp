#pragma once
// The lifecycle pass (Finch §5.5, notes/finch.md §1.3): read and update modes of the outputs.
//
// An output is in **update** mode while statements assign it and in **read** mode while they
// read it. Every output is declared (update mode) when the program starts, except one that
// starts as an existing tensor (OutputSpec::start, TensorSignature::keep_contents), which starts
// frozen (read mode) like an input. The program's scope declares them all, so its statements
// (the top-level ones, and those of a while body, which run as whole statements too) are the
// ones classified: each reads a tensor, updates it, or neither. A statement that both reads and
// updates one tensor (`for i { x[i] += x[i] }`) is an error, whatever the tensor's format: its
// reads would see the tensor half written. Between statements the pass puts `@freeze(T)` where
// a statement reads T in update mode and `@thaw(T)` where one updates T in read mode; at the end
// every output still in update mode is frozen. A while's condition reads its scalars in read
// mode, before the first pass and after each; a swap exchanges two frozen tensors.
//
//   Lifecycle l = plan_lifecycle(program, {"x"});   // x starts as an existing tensor
//   print_lifecycle(program, l);                    // the program with @freeze/@thaw lines
//
// resolve_program (both engines) and the compiler's first stage run it; the compiled code
// realises the freezes (convert.cpp: a sparse output read by a later statement is frozen after
// its last writer; a dense one needs nothing) and refuses what it cannot yet realise (a thaw of
// a sparse output).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"

namespace siskin {

struct LifecycleOp {
    enum class Kind { Freeze, Thaw };
    Kind kind;
    std::string tensor;
    bool operator==(const LifecycleOp&) const = default;
};

struct Lifecycle {
    /// The operations that run right before a statement (a plain one, a while or a swap).
    std::map<const ir::StmtNode*, std::vector<LifecycleOp>> before;
    /// The operations at the end of a while's body, before its condition is tested again: they
    /// bring every tensor back to the mode the body starts in.
    std::map<const ir::StmtNode*, std::vector<LifecycleOp>> end_of_body;
    /// The freezes at the end of the program, of the outputs still in update mode.
    std::vector<LifecycleOp> at_end;
};

/// The modes of `program`'s outputs; `started`: the outputs that start as existing tensors.
/// Throws Error (User) naming the tensor and the statement where one statement both reads and
/// updates a tensor.
Lifecycle plan_lifecycle(const ir::Program& program, const std::set<std::string>& started = {});

/// The program's statements with the lifecycle's operations on lines of their own
/// (`@freeze(y)`, `@thaw(x)`), indented as the statements they precede.
std::string print_lifecycle(const ir::Program& program, const Lifecycle& lifecycle);

} // namespace siskin
