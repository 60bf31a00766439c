#pragma once
// Cleanups of a kernel's C AST that the looplet lowerer leaves to a pass over the finished code,
// each in its own file. They keep the meaning of the C exactly, and the C compiler could not
// always do them itself: it does not know that an output buffer is reached through one pointer
// only. The one exception is split_accumulators, which reassociates float reductions of
// operators the registry declares associative and commutative.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/c_ast.hpp"

namespace siskin::cast {

/// Removes the scalar locals whose value is never read: their declaration and every statement
/// that only stores into them (when what is stored has no effect), repeated until none is left
/// (a cursor like `j_start` that no later code reads, then a bound only it used). An `if` left
/// with an empty body and a pure condition goes too.
Stmt remove_dead_locals(const Stmt& body);

/// Scalar replacement of output elements in loops. `arrays` maps the name of each output data pointer to its element
/// type. In a `for` or `while` loop that writes X[e] where
///   - e is built from variables and constants only, and none of its variables is assigned in
///     the loop,
///   - every other use of X in the loop is the same element X[e], and X itself (the pointer,
///     which moves when its buffer grows) is not assigned in the loop,
///   - the loop holds no return, and either its first top-level statement that uses X stores
///     into X[e] with no break or continue before it, or the code before the loop stored X[e]
///     at the same address (in the loop's block, or before the ifs with pure conditions around
///     it), so touching X[e] is safe even if the loop only reaches it on some iterations:
///     `s[0] = inf; if (p < e) for (...) { if (...) s[0] = min(s[0], ...) }`,
/// the element lives in a fresh local for the loop: loaded once before it (not loaded when
/// every iteration's first use is a store that does not read it), stored once after. The loop is guarded by its own
/// condition (reusing an enclosing `if` with that condition), so X[e] is only touched when the
/// first iteration would have touched it (`for (T j = a; j < n; j++)` is guarded by `a < n`).
/// A `goto` in the loop (an early exit past its end) stores the local back before it jumps.
Stmt replace_scalars(const Stmt& body, const std::map<std::string, Type>& arrays);

/// A constant set into every element of a dense output by one loop, followed by a loop over the
/// same range whose iteration i reaches the array only at [i] and always runs to its end:
/// `for (k = 0; k < n; k++) X[k] = c; for (i = 0; i < n; i++) B` becomes
/// `for (i = 0; i < n; i++) { T X_row = c; B with X[i] as X_row; X[i] = X_row; }`. Iteration i is
/// the first to touch X[i], and its final stores cover what the first loop set. A set over n*m
/// elements followed by a loop over n whose iteration i reaches X only at X[i*m + j], j the
/// counter of a `for (j = 0; j < m; j++)` inside it (a row-major row), moves into that loop: its
/// iteration first sets its own row. Run before replace_scalars. `arrays`: as for replace_scalars.
Stmt fuse_constant_init(const Stmt& body, const std::map<std::string, Type>& arrays);

/// `if (c) { if (c) S }` (no else on either, c pure) becomes `if (c) S`: a looplet's phase guard
/// and the guard of the run it collapsed often test the same condition.
Stmt merge_nested_ifs(const Stmt& body);

/// Marks `restrict` the declarations of the pointers in `names` (output data pointers, each the
/// only way the kernel reaches its buffer) that are used only as `p[...]`, and whose every
/// assignment after the declaration comes before any access and outside every loop (so a
/// buffer that grows while the kernel writes it keeps a plain pointer).
Stmt restrict_pointers(const Stmt& body, const std::set<std::string>& names);

/// `X[e] = a; X[e] = b;` in a row, X one of `arrays` (output data pointers, the only way the
/// kernel reaches their buffers), e not reading X, a and b pure and b not reading X: the first
/// store goes (a slot opened with the fill, then given its value).
Stmt remove_overwritten_stores(const Stmt& body, const std::map<std::string, Type>& arrays);

/// `if (c) { S; X[e] = f; } X[e] = g;` (no else; X one of `arrays`, output data pointers; e not
/// reading X; f, g and the stores pure; every read of X in g is X[e]) becomes
/// `if (c) { S; X[e] = g with X[e] as f; } else { X[e] = g; }`: a workspace slot opened with the
/// fill on first touch is stored once, not stored, loaded back and stored again.
Stmt fold_opened_slot_updates(const Stmt& body, const std::map<std::string, Type>& arrays);

/// In `for (init; v < e; v++)` loops (v, e and the start unchanged by the body, no label in it),
/// the growth checks `if (c + 1 > B->capacity) { grow B to c + 1 ...; P = B->data; }` that run
/// before the only `c++` of the body (outside its nested loops; c written nowhere else in it):
/// c grows by at most one per iteration, so one check for `c + (e - start)` before the loop
/// covers them all, and they go. A sparse output's append then costs no check per entry.
Stmt hoist_growth_checks(const Stmt& body);

/// Before every store into `pointers` (the data pointers of output buffers with 32-bit indices
/// that hold positions), unless the value stored is a constant within `limit` or a copy of an
/// element of those buffers: `if (v > limit) return SISKIN_ERR_INDEX_OVERFLOW;`. Positions are
/// counted in int64; this keeps one that outgrew 32 bits from ever being stored truncated.
Stmt check_position_stores(const Stmt& body, const std::set<std::string>& pointers,
                           int64_t limit);

/// In a `for (...; v < e; v++)` loop whose body starts with `T q = P[X];`, X a load that moves
/// with v (the start of a fibre reached through a coordinate: row A_crd[p] of B in SpGEMM), and
/// holds a `for (; q < ...; q++)` reading arrays Y[q]: at the top of the body,
/// `if (v + 4 < e) { T q_ahead = P[X with v + 4]; siskin_prefetch(Y + q_ahead); ... }`, so the
/// fibre four iterations on is on its way to the cache when its walk starts. Only where the
/// body has no early exit (break of this loop, goto, return, an unknown call) and writes none of
/// P, X or e: iteration v + 4 reads P[X] itself, so the hint reads nothing new (a prefetch
/// never faults, so Y + q_ahead needs no such care; a Y pointer the body moves is left out).
/// When the walk's bound is declared right after the start (`T q_end = P[X + 1];`, unchanged by
/// the body likewise), it is evaluated ahead too and the hint for each Y is
/// `siskin_prefetch_span(Y + q_ahead, Y + q_end_ahead)`: the fibre's first, second and last lines.
Stmt prefetch_fibres(const Stmt& body);

/// A nest `for (int64_t j = lo; j < hi; j++) { T p = P[j]; T p_end = P[j + 1];
/// [if (p < p_end)] for (; p < p_end; p++) B }` outside every other loop, B without loops, exits
/// or unknown calls and writing none of j, p, p_end, P: the fibres' entries P[j] .. P[c] are
/// consecutive, so one walk takes several fibres and B's inner exit no longer mispredicts once
/// per fibre. When B does not read j, the nest becomes one walk over P[lo] .. P[hi]. When B reads
/// j only in loads X[e(j)] (X a number array B does not write), and the runtime finds the fibres
/// of 8 to 16 entries on average and of varying lengths (siskin_flat_walk.h), fibres are taken in
/// blocks of up to 1024 entries: each load is copied beside each of its fibre's entries (a fibre
/// of 16 or fewer by 16 unconditional stores, the next fibre overwriting the overshoot), then one
/// walk reads the copies; otherwise the nest runs as it was. Entries are visited in the same
/// order either way, so results keep their bits.
Stmt flatten_fibre_walks(const Stmt& body);

/// `for (init; v < e; v++) { acc = f(acc, t); }` (or f(t, acc)), with f one of `reassociable`
/// (operator helpers on floats that the registry declares associative and commutative, by name,
/// with their result type), acc a local of that type, t pure and free of acc, e pure and free of
/// v and acc: when eight terms remain, three more partial results start from t at v+1, v+2, v+3,
/// the loop takes four terms a step, one into each, and the partials fold into acc; the original
/// loop then takes the last 0-3 terms. Where t loads through an index array (`x[c[p]]`), each
/// step ends with `siskin_keep_scalar(partial)` for every partial, so the C compiler keeps four
/// scalar chains rather than packing them into vectors element by element. A float sum is a
/// chain of 4-cycle adds otherwise, which the C compiler may not break without -ffast-math. The
/// result can differ from the sequential one in rounding, as any reassociated float sum does.
Stmt split_accumulators(const Stmt& body, const std::map<std::string, Type>& reassociable);

/// A loop the compiler proved parallel (compiler/parallel_marks.hpp): its iterations write
/// disjoint elements of the outputs and read none that another iteration writes.
struct ParallelLoop {
    std::string counter; // the C loop's counter, `for (int64_t counter = lo; counter < hi; ...)`
    /// Locals declared before the loop that its iterations only update as `v = combine(v, e)`
    /// (or `combine(e, v)`), combine associative and commutative with identity `identity`: each
    /// thread keeps its own v from the identity, and after the region the partials are folded
    /// into v in chunk order, so the result depends on the thread count only.
    struct Reduction {
        std::string var;
        Type type;
        Expr identity;
        std::string combine; // the operator helper
    };
    std::vector<Reduction> reductions;
    /// A buffer of the kernel (`siskin_buffer *buffer`, its typed data pointer `data`) that each
    /// thread but the first replaces by one of its own in its chunk.
    struct Part {
        std::string buffer;
        std::string data;
        Type element;
        int64_t element_size;
    };
    /// A sparse output level appended fibre by fibre, fibre v in iteration v (a CSR output's
    /// columns): thread t > 0 appends its chunk's entries to its own `parts`, counting from 0 in
    /// its own `count`, and stores those counts at positions[v + 1]; after the chunks the parts
    /// are joined in chunk order into the output's buffers (grown once, by the first thread), each
    /// thread adding its part's offset to its positions. `count` then holds the total. A total
    /// above `limit` (32-bit positions; 0: none) stops the kernel with SISKIN_ERR_INDEX_OVERFLOW.
    struct Append {
        std::string count;
        std::string positions;
        Type position_type;
        int64_t limit = 0;
        std::vector<Part> parts;
    };
    std::vector<Append> appends;
    /// A workspace the iterations fill and empty again (the Gustavson row workspace): thread
    /// t > 0 works in its own copy of `parts` as they are before the loop, and of the variables
    /// `vars` (int64_t, such as its number of touched slots).
    struct Workspace {
        std::vector<Part> parts;
        std::vector<std::string> vars;
    };
    std::vector<Workspace> workspaces;
    /// A dense output the iterations only update as `data[k] = combine(data[k], e)`, at elements
    /// any iteration may share (a column sum): thread t > 0 reduces into its own copy of its
    /// `elements` elements, started from `identity`, and after the chunks the copies are folded
    /// into the output in chunk order, each thread folding a share of the elements.
    struct Partial {
        Part part;
        Expr elements;
        Expr identity;
        std::string combine;
    };
    std::vector<Partial> partials;
    /// The positions array of the level below the loop's (pos[v] .. pos[v + 1] is the fibre
    /// iteration v walks), to balance chunks by entries; empty: by iterations.
    std::string weight;
    bool weight_64 = false; // its elements are int64_t, else int32_t
    /// Its iterations are rows that may stop early (ParallelMark::stops_early): chunks weigh each
    /// row as much as several mean rows' entries besides its own (siskin_chunk_first_early).
    bool stops_early = false;
    /// The loop's work when its iterations are not its units (the slices of a storage-order
    /// reduction: the positions they walk), for the work threshold; chunks are then equal runs
    /// of iterations. Pure, and declared before the loop.
    std::optional<Expr> work;
    /// Emitted twice whatever the size of its body (serial, for a team of one, and as a region):
    /// the runs of rows of a small loop (compiler/row_slices.hpp), whose team of one otherwise
    /// paid for a region (bcsstk13's complemented or.and masked mxv: 13.4 to 18.3 us).
    bool copied = false;
};

/// Each `for (int64_t v = lo; v < hi; v++) B` outside every other loop whose counter is one of
/// `loops` becomes an OpenMP parallel region of `threads` threads (runtime/siskin_parallel.h),
/// one chunk of consecutive iterations each, balanced by the loop's weight; a loop of less work
/// than `min_work` runs on one thread, and none on more than `thread_cap` (an int64_t the call
/// passes; 0: no cap). A `return e` in B records e for its chunk
/// and leaves the chunk (a region cannot be left by a return); after the region the kernel
/// returns the status of the first chunk that stopped. Only where B assigns no variable declared
/// outside it (but `reduction_var`, summed over the threads, when not empty), no buffer field,
/// grows no buffer, and leaves the loop only by its end or a return: else the loop stays.
/// The loop's reductions (ParallelLoop::reductions) are private to each thread and folded after
/// the region in chunk order.
/// Thread t > 0's buffers of an append are kept from one call to the next, in the kernel's
/// `kept_parts` slots (runtime/siskin_parallel.h, SISKIN_KEPT_PARTS, which the source defines).
/// `made` counts the regions.
Stmt parallelize_loops(const Stmt& body, const std::vector<ParallelLoop>& loops, int threads,
                       int64_t min_work, const Expr& thread_cap, const std::string& reduction_var,
                       int& made, int& kept_parts);

} // namespace siskin::cast
