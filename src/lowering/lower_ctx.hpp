#pragma once
// The state of lowering one kernel: where C statements go, fresh names, the prover, the C
// helpers operator calls need, and per-level variables of the outputs being assembled.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/c_ast.hpp"
#include "lowering/lower_ir.hpp"
#include "lowering/prove.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/limits.hpp"

namespace siskin::lowering {

/// The output element a reduction nest may stop on, and the value at which it stops
/// (compiler/early_exit.hpp decides when a nest may).
struct ExitCondition {
    const TensorBinding* tensor;
    Scalar value; // of the output's type
};

/// An exit being lowered: assignments of `tensor` jump to `label` when they store `value`.
struct EarlyExit {
    ExitCondition when;
    std::string label;
    bool used = false; // a goto was emitted
};

class LowerCtx {
public:
    LowerCtx();

    /// The most steps lowering may take (siskin::lowering_budget; value 0: no limit, which is
    /// what a LowerCtx starts with).
    void set_budget(Limit budget) { budget_ = std::move(budget); }
    /// One step of lowering work (a looplet case lowered, a statement emitted): throws Error
    /// naming the budget and how to raise it once more steps were taken than it allows, so a
    /// program whose cases multiply stops at once instead of lowering for minutes.
    void step();
    int64_t steps() const { return steps_; }

    // Emission: statements go to the innermost open block; each is a step.
    void emit(cast::Stmt s);
    void emit(const std::vector<cast::Stmt>& stmts);
    /// Runs f and returns what it emitted instead of emitting it.
    std::vector<cast::Stmt> capture(const std::function<void()>& f);

    /// A C identifier not used before in this kernel, starting with base.
    std::string fresh(std::string_view base);
    /// Declares a fresh int64 local initialised to init and returns it.
    cast::Expr local(std::string_view base, const cast::Expr& init, ValueType type = ValueType::Int64);

    Prover& prover() { return prover_; }

    /// The C expression computing op on arguments of the given types (a call of a static
    /// inline helper that instantiates op's C template; helpers are listed by helpers()).
    cast::Expr apply(const Operator& op, const std::vector<ValueType>& types,
                     const std::vector<cast::Expr>& args);
    /// Definitions of the operator helpers used so far, as C text.
    std::string helpers() const;
    /// The helpers of binary operators on floats that the registry declares associative and
    /// commutative, both arguments of the result type: name -> that type (split_accumulators).
    const std::map<std::string, cast::Type>& reassociable_helpers() const { return reassociable_; }

    /// Statements that make room for `need` elements in an output buffer and refresh its data
    /// pointer; the kernel returns SISKIN_ERR_ALLOC when it cannot grow. New elements are zero,
    /// unless `written_first`: the caller writes every element before anything reads it (an
    /// append-only array), so the growth skips the zero-fill (siskin_buffer_grow).
    std::vector<cast::Stmt> reserve(const BufferBinding& b, const cast::Expr& need,
                                    bool written_first = false);
    /// The slots of the output buffers some reserve() asks to be zero: room the host gives them
    /// ahead of the kernel must be zero too; every other buffer is written before it is read.
    const std::set<int>& zeroed_room() const { return zeroed_room_; }
    /// Outputs whose declare clears only what the tensor handed in held before, instead of
    /// needing empty buffers (KernelPlan::recycled_outputs).
    void note_recycled(const std::string& tensor) { recycled_.insert(tensor); }
    const std::set<std::string>& recycled() const { return recycled_; }

    /// A kernel-wide variable of an output level (e.g. its number of positions), by role.
    cast::Expr level_var(const TensorBinding& t, int level, std::string_view role);
    void set_level_var(const TensorBinding& t, int level, std::string_view role, cast::Expr e);
    /// Every level variable of t, in no particular order.
    std::vector<cast::Expr> level_vars(const TensorBinding& t) const;

    /// Records that an append-only output fibre is being written; false when it was before on
    /// this path of execution. Exclusive branches save and restore the claims around each.
    bool claim_fibre(uint64_t id) { return claimed_.insert(id).second; }
    std::set<uint64_t> claims() const { return claimed_; }
    void restore_claims(std::set<uint64_t> saved) { claimed_ = std::move(saved); }

    /// Loop nesting depth of the loop being lowered (0 at program level).
    int depth = 0;

    /// The early exit of the reduction nest being lowered, if any (early_exit.hpp).
    std::optional<EarlyExit> early_exit;

    /// The run-time tests on values that enclose the code being lowered
    /// (compiler/value_specialisation.hpp): the values' C text, each tested once per path.
    std::set<std::string> tested_values;

private:
    std::vector<std::vector<cast::Stmt>> blocks_;
    std::set<std::string> names_;
    // Per stem, the first suffix fresh() has not seen taken: names are never released, so later
    // calls start there instead of probing stem_1, stem_2, ... again (quadratic in a large kernel).
    std::map<std::string, int64_t> next_suffix_;
    Prover prover_;
    std::map<std::string, std::string> helper_names_; // signature -> name
    std::vector<std::string> helper_defs_;
    std::map<std::string, cast::Type> reassociable_;
    std::map<std::string, cast::Expr> level_vars_;
    std::set<uint64_t> claimed_;
    std::set<int> zeroed_room_;
    std::set<std::string> recycled_;
    Limit budget_;
    int64_t steps_ = 0;
};

/// The C expression of a closed scalar expression (is_closed).
cast::Expr c_value(LowerCtx& ctx, const LExpr& e);

} // namespace siskin::lowering
