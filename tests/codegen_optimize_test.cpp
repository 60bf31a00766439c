// The C AST cleanups of codegen/c_optimize.hpp on small hand-built kernels: what they change and,
// as much, what they must leave alone (a moving index, a second element, a pointer that moves
// in the loop, an early return).
#include <gtest/gtest.h>

#include "codegen/c_ast.hpp"
#include "codegen/c_optimize.hpp"
#include "codegen/c_printer.hpp"

namespace siskin::cast {
namespace {

const Type kI64 = Type::of(ValueType::Int64);
const Type kF64 = Type::of(ValueType::Float64);

Expr lt(Expr a, Expr b) { return bin(BinaryOp::Lt, std::move(a), std::move(b)); }
Expr add(Expr a, Expr b) { return bin(BinaryOp::Add, std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return bin(BinaryOp::Mul, std::move(a), std::move(b)); }
Expr y_at(const std::string& index) { return at(var("y"), var(index)); }

// for (; p < end; p++) { <body> }
Stmt walk(std::vector<Stmt> body) {
    return For::make(std::nullopt, lt(var("p"), var("end")), Increment::make(var("p")),
                     Block::make(std::move(body)));
}

std::string run_scalars(const Stmt& s) { return print(replace_scalars(Block::make({s}), {{"y", kF64}})); }

// y[i] = y[i] + v[p]: the row sum stays in a local, loaded once and stored once, under the
// loop's own condition.
TEST(CodegenScalarReplacement, AccumulatorInvariantInTheLoopBecomesALocal) {
    Stmt loop = walk({assign(y_at("i"), add(y_at("i"), at(var("v"), var("p"))))});
    std::string c = run_scalars(loop);
    EXPECT_NE(c.find("if (p < end) {"), std::string::npos) << c;
    EXPECT_NE(c.find("double y_acc = y[i];"), std::string::npos) << c;
    EXPECT_NE(c.find("y_acc = y_acc + v[p];"), std::string::npos) << c;
    EXPECT_NE(c.find("y[i] = y_acc;"), std::string::npos) << c;
    // The store comes after the loop, the load before it.
    EXPECT_LT(c.find("double y_acc"), c.find("for ("));
    EXPECT_GT(c.find("y[i] = y_acc;"), c.find("y_acc = y_acc + v[p];"));
}

// An enclosing `if` with the loop's condition is reused as the guard.
TEST(CodegenScalarReplacement, ReusesAnEnclosingGuard) {
    Stmt loop = walk({assign(y_at("i"), add(y_at("i"), at(var("v"), var("p"))))});
    std::string c = run_scalars(If::make(lt(var("p"), var("end")), loop));
    size_t first = c.find("if (p < end)");
    ASSERT_NE(first, std::string::npos) << c;
    EXPECT_EQ(c.find("if (p < end)", first + 1), std::string::npos) << c;
    EXPECT_NE(c.find("double y_acc = y[i];"), std::string::npos) << c;
}

// The first write does not read the element: no load at all.
TEST(CodegenScalarReplacement, FirstPlainStoreNeedsNoLoad) {
    Stmt loop = walk({assign(y_at("i"), at(var("v"), var("p")))});
    std::string c = run_scalars(loop);
    EXPECT_NE(c.find("double y_acc;"), std::string::npos) << c;
    EXPECT_EQ(c.find("= y[i]"), std::string::npos) << c;
    EXPECT_NE(c.find("y[i] = y_acc;"), std::string::npos) << c;
}

// A for loop with its own declaration stays as it is, guarded by its condition at the start.
TEST(CodegenScalarReplacement, ForWithDeclarationIsGuardedByItsFirstTest) {
    Stmt loop = For::make(Decl::make(kI64, "j", i64(0)), lt(var("j"), var("n")), Increment::make(var("j")),
                          Block::make({Assign::make(y_at("i"), AssignOp::Add, at(var("v"), var("j")))}));
    std::string c = run_scalars(loop);
    EXPECT_NE(c.find("if (0LL < n)"), std::string::npos) << c;
    EXPECT_NE(c.find("for (int64_t j = 0LL; j < n; j++)"), std::string::npos) << c;
    EXPECT_NE(c.find("y_acc += v[j];"), std::string::npos) << c;
}

// A for loop that assigns an outer variable: the assignment happens even when the loop runs
// no iteration, so it stays before the guard.
TEST(CodegenScalarReplacement, ForAssigningAnOuterVariableKeepsTheAssignment) {
    Stmt loop = For::make(assign(var("j"), var("a")), lt(var("j"), var("n")), Increment::make(var("j")),
                          Block::make({Assign::make(y_at("i"), AssignOp::Add, at(var("v"), var("j")))}));
    std::string c = run_scalars(loop);
    EXPECT_LT(c.find("j = a;"), c.find("if (j < n)")) << c;
    EXPECT_NE(c.find("for (; j < n; j++)"), std::string::npos) << c;
}

TEST(CodegenScalarReplacement, LeavesUnsafeLoopsAlone) {
    Stmt sum = assign(y_at("i"), add(y_at("i"), at(var("v"), var("p"))));
    auto unchanged = [&](const Stmt& loop) {
        std::string before = print(Block::make({loop}));
        std::string after = run_scalars(loop);
        return before == after ? ::testing::AssertionSuccess()
                               : ::testing::AssertionFailure() << after;
    };
    // The index moves in the loop.
    EXPECT_TRUE(unchanged(walk({assign(y_at("p"), add(y_at("p"), i64(1)))})));
    // Another element of y is read in the loop.
    EXPECT_TRUE(unchanged(walk({sum, assign(var("t"), y_at("k"))})));
    // The pointer moves (its buffer grew) in the loop.
    EXPECT_TRUE(unchanged(walk({sum, assign(var("y"), var("other"))})));
    // The loop can return before the store after it.
    EXPECT_TRUE(unchanged(walk({sum, If::make(var("bad"), Return::make(i64(1)))})));
    // The element is only written on some iterations: reading it first could be out of range.
    EXPECT_TRUE(unchanged(walk({If::make(var("c"), sum)})));
    // A break before the first store.
    EXPECT_TRUE(unchanged(walk({If::make(var("c"), Break::make()), sum})));
    // The index is read from memory.
    EXPECT_TRUE(unchanged(walk({assign(at(var("y"), at(var("w"), var("i"))), i64(0))})));
}

// y copied into another pointer anywhere in the kernel: it could alias, so nothing changes.
TEST(CodegenScalarReplacement, PointerCopiedElsewhereIsNotReplaced) {
    Stmt loop = walk({assign(y_at("i"), add(y_at("i"), at(var("v"), var("p"))))});
    Stmt body = Block::make({Decl::make(kF64.pointer(), "z", var("y")), loop});
    EXPECT_EQ(print(replace_scalars(body, {{"y", kF64}})), print(body));
}

// for (int64_t p = pos[i]; p < end; p++) { pos[i] = pos[i] + 1; }: the start reads the element
// before any local could hold it, so the loop is left alone (it used to read an undeclared
// pos_acc, in the guard or in the init moved before it).
TEST(CodegenScalarReplacement, ElementReadByTheLoopStartIsNotReplaced) {
    Expr pos_i = at(var("pos"), var("i"));
    Stmt loop = For::make(Decl::make(kI64, "p", pos_i), lt(var("p"), var("end")), Increment::make(var("p")),
                          Block::make({assign(pos_i, add(pos_i, i64(1)))}));
    Stmt body = Block::make({loop});
    EXPECT_EQ(print(replace_scalars(body, {{"pos", kI64}})), print(body));
}

TEST(CodegenDeadLocals, RemovesAStoredCursorNothingReads) {
    // int64_t j_start = 0; for (...) { y[i] = v[p]; j_start = c[p] + 1; }
    Stmt body = Block::make({
        Decl::make(kI64, "last", at(var("c"), var("end"))),
        Decl::make(kI64, "j_start", var("last")),
        walk({assign(y_at("i"), at(var("v"), var("p"))), assign(var("j_start"), add(at(var("c"), var("p")), i64(1)))}),
    });
    std::string c = print(remove_dead_locals(body));
    EXPECT_EQ(c.find("j_start"), std::string::npos) << c;
    // `last` was read only by j_start's initialiser: it goes in the next round.
    EXPECT_EQ(c.find("last"), std::string::npos) << c;
    EXPECT_NE(c.find("y[i] = v[p];"), std::string::npos) << c;
}

TEST(CodegenDeadLocals, KeepsLocalsThatAreReadOrStoredWithEffects) {
    Stmt body = Block::make({
        Decl::make(kI64, "n", i64(0)),
        Decl::make(kI64, "status", call("siskin_buffer_reserve", {var("b"), i64(1), i64(8)})),
        walk({Increment::make(var("n"))}),
        assign(at(var("out"), i64(0)), var("n")),
    });
    std::string c = print(remove_dead_locals(body));
    EXPECT_NE(c.find("int64_t n = 0LL;"), std::string::npos) << c;
    EXPECT_NE(c.find("n++"), std::string::npos) << c;
    EXPECT_NE(c.find("status = siskin_buffer_reserve"), std::string::npos) << c;
}

TEST(CodegenDeadLocals, DropsAnIfLeftEmpty) {
    Stmt body = Block::make({Decl::make(kI64, "t", i64(0)),
                             If::make(lt(var("a"), var("b")), assign(var("t"), i64(1))),
                             assign(at(var("out"), i64(0)), i64(2))});
    std::string c = print(remove_dead_locals(body));
    EXPECT_EQ(c.find("if"), std::string::npos) << c;
    EXPECT_NE(c.find("out[0LL] = 2LL;"), std::string::npos) << c;
}

TEST(CodegenRestrict, OutputPointerFixedBeforeItsFirstUseIsRestrict) {
    Stmt body = Block::make({
        Decl::make(kF64.pointer(), "y", var("raw")),
        If::make(var("grow"), assign(var("y"), var("raw2"))),
        walk({assign(y_at("p"), i64(0))}),
    });
    std::string c = print(restrict_pointers(body, {"y"}));
    EXPECT_NE(c.find("double *restrict y = raw;"), std::string::npos) << c;
}

TEST(CodegenRestrict, PointerThatMovesInALoopOrIsCopiedStaysPlain) {
    Stmt moves = Block::make({
        Decl::make(kF64.pointer(), "y", var("raw")),
        walk({assign(y_at("p"), i64(0)), assign(var("y"), var("raw2"))}),
    });
    EXPECT_EQ(print(restrict_pointers(moves, {"y"})).find("restrict"), std::string::npos);
    Stmt after_use = Block::make({
        Decl::make(kF64.pointer(), "y", var("raw")),
        assign(at(var("y"), i64(0)), i64(0)),
        assign(var("y"), var("raw2")),
    });
    EXPECT_EQ(print(restrict_pointers(after_use, {"y"})).find("restrict"), std::string::npos);
    Stmt copied = Block::make({
        Decl::make(kF64.pointer(), "y", var("raw")),
        Decl::make(kF64.pointer(), "z", var("y")),
    });
    EXPECT_EQ(print(restrict_pointers(copied, {"y"})).find("restrict"), std::string::npos);
}

// A reduction that updates its element only in a branch (min= over a gap guard) keeps it in a
// local when the statement before the loop stored that element: the load is then safe.
TEST(CodegenScalarReplacement, ConditionalUpdateAfterAStoreBeforeTheLoop) {
    Stmt update = assign(y_at("i"), add(y_at("i"), at(var("v"), var("p"))));
    Stmt loop = walk({If::make(var("c"), update)});
    std::string c = print(replace_scalars(Block::make({assign(y_at("i"), lit(Scalar::of(0.0))), loop}), {{"y", kF64}}));
    EXPECT_NE(c.find("double y_acc = y[i];"), std::string::npos) << c;
    EXPECT_NE(c.find("y_acc = y_acc + v[p];"), std::string::npos) << c;
    // Not when the index changed in between.
    Stmt moved = Block::make({assign(y_at("i"), lit(Scalar::of(0.0))), assign(var("i"), var("k")), loop});
    EXPECT_EQ(print(replace_scalars(moved, {{"y", kF64}})), print(moved));
}

TEST(CodegenNestedIfs, SameConditionTwiceBecomesOneIf) {
    Expr c = lt(var("j"), at(var("crd"), var("p")));
    Stmt s = assign(y_at("i"), i64(0));
    std::string merged = print(merge_nested_ifs(Block::make({If::make(c, If::make(c, s))})));
    EXPECT_EQ(merged, print(Block::make({If::make(c, s)})));
    // Different conditions, an else, or a second statement: left alone.
    for (const Stmt& keep : {If::make(c, If::make(var("d"), s)), If::make(c, If::make(c, s), s),
                             If::make(c, Block::make({If::make(c, s), s}))}) {
        EXPECT_EQ(print(merge_nested_ifs(Block::make({keep}))), print(Block::make({keep})));
    }
}

// for (int64_t v = 0; v < n; v++) { body }
Stmt counted(const std::string& v, std::vector<Stmt> body) {
    return For::make(Decl::make(kI64, v, i64(0)), lt(var(v), var("n")), Increment::make(var(v)),
                     Block::make(std::move(body)));
}

std::string run_fuse(const Stmt& s) { return print(fuse_constant_init(s, {{"y", kF64}})); }

// y set to 0 by one loop, then row i of the next reaches y[i] only: the row starts from the
// constant in a local and stores it once at its end; the first loop goes.
TEST(CodegenConstantInit, SetLoopFusesIntoTheRowLoop) {
    Stmt init = counted("k", {assign(y_at("k"), lit(Scalar::of(0.0)))});
    Stmt rows = counted("i", {If::make(lt(var("p"), var("end")),
                                       walk({assign(y_at("i"), add(y_at("i"), at(var("v"), var("p"))))}))});
    std::string c = run_fuse(Block::make({init, rows}));
    EXPECT_EQ(c.find("y[k]"), std::string::npos) << c;
    EXPECT_NE(c.find("double y_row = 0.0;"), std::string::npos) << c;
    EXPECT_NE(c.find("y_row = y_row + v[p];"), std::string::npos) << c;
    EXPECT_NE(c.find("y[i] = y_row;"), std::string::npos) << c;
    EXPECT_GT(c.find("y[i] = y_row;"), c.find("y_row = y_row + v[p];")) << c;
}

// Every way iteration i could see another element, skip its final store, or change what the
// fusion relies on leaves both loops as they are.
TEST(CodegenConstantInit, LeavesUnsafePairsAlone) {
    Stmt init = counted("k", {assign(y_at("k"), lit(Scalar::of(0.0)))});
    auto update = [](Expr index) { return assign(at(var("y"), index), add(at(var("y"), index), var("x"))); };
    std::vector<Stmt> unsafe = {
        counted("i", {update(at(var("crd"), var("i")))}),             // another element
        counted("i", {update(var("i")), update(add(var("i"), i64(1)))}), // a second element
        counted("i", {If::make(var("c"), Break::make()), update(var("i"))}),   // leaves early
        counted("i", {If::make(var("c"), Continue::make()), update(var("i"))}), // skips the store
        counted("i", {update(var("i")), assign(var("n"), var("m"))}),  // moves the bound
        counted("i", {update(var("i")), assign(var("i"), var("m"))}),  // moves the index
        counted("j", {update(var("j")), Goto::make("out")}),            // early exit
        For::make(Decl::make(kI64, "i", i64(1)), lt(var("i"), var("n")), Increment::make(var("i")),
                  Block::make({update(var("i"))})),                     // a different range
    };
    for (const Stmt& rows : unsafe) {
        Stmt pair = Block::make({init, rows});
        EXPECT_EQ(run_fuse(pair), print(pair)) << print(rows);
    }
    // A break inside an inner loop ends that loop only: still fused.
    Stmt inner_break = counted("i", {walk({update(var("i")), If::make(var("c"), Break::make())})});
    EXPECT_EQ(run_fuse(Block::make({init, inner_break})).find("y[k]"), std::string::npos);
    // A store between the loops, or a set of something other than a constant: left alone.
    Stmt between = Block::make({init, assign(y_at("j"), var("x")), counted("i", {update(var("i"))})});
    EXPECT_EQ(run_fuse(between), print(between));
    Stmt varying = Block::make({counted("k", {assign(y_at("k"), at(var("v"), var("k")))}),
                                counted("i", {update(var("i"))})});
    EXPECT_EQ(run_fuse(varying), print(varying));
}

// for (int64_t v = 0; v < bound; v++) { body }
Stmt counted_to(const std::string& v, const Expr& bound, std::vector<Stmt> body) {
    return For::make(Decl::make(kI64, v, i64(0)), lt(var(v), bound), Increment::make(var(v)),
                     Block::make(std::move(body)));
}

Expr row_element(const std::string& i, const std::string& j) {
    return at(var("y"), add(mul(var(i), var("m")), var(j)));
}

// A row-major n x m output set to 0, then row i of the next loop (SpMM: per stored entry, j over
// the m columns) reaches only y[i*m + j]: each iteration first sets its own row, the pass goes.
TEST(CodegenConstantInit, RowMajorSetMovesIntoTheRowLoop) {
    Stmt init = counted_to("k", mul(var("n"), var("m")), {assign(at(var("y"), var("k")), lit(Scalar::of(0.0)))});
    Stmt update = assign(row_element("i", "j"), add(row_element("i", "j"), at(var("b"), var("j"))));
    Stmt rows = counted("i", {For::make(std::nullopt, lt(var("p"), var("end")), Increment::make(var("p")),
                                        Block::make({counted_to("j", var("m"), {update})}))});
    std::string c = run_fuse(Block::make({init, rows}));
    EXPECT_EQ(c.find("y[k] = 0.0"), std::string::npos) << c;
    size_t set = c.find("y[i * m + k_1] = 0.0;");
    ASSERT_NE(set, std::string::npos) << c;
    EXPECT_LT(c.find("for (int64_t i = 0"), set) << c;
    EXPECT_LT(set, c.find("for (; p < end; p++)")) << c;
}

// Each way an iteration could reach another row, or not start its row from the constant, keeps
// the separate set.
TEST(CodegenConstantInit, RowMajorSetLeftAloneWhenRowsMix) {
    Stmt init = counted_to("k", mul(var("n"), var("m")), {assign(at(var("y"), var("k")), lit(Scalar::of(0.0)))});
    auto inc = [](Expr e) { return assign(e, add(e, var("x"))); };
    std::vector<Stmt> unsafe = {
        counted("i", {counted_to("j", var("q"), {inc(row_element("i", "j"))})}),       // j may pass m
        counted("i", {counted_to("j", var("m"), {inc(row_element("p", "j"))})}),       // another row
        counted("i", {counted_to("j", var("m"), {inc(row_element("i", "j")), assign(var("j"), var("x"))})}),
        counted("i", {inc(row_element("i", "j"))}),                                    // j is no counter
        counted("i", {counted_to("j", var("m"), {inc(at(var("y"), var("j")))})}),      // not [i*m + j]
        counted("i", {counted_to("j", var("m"), {inc(row_element("i", "j"))}), Goto::make("out")}),
        counted("i", {counted_to("j", var("m"), {inc(row_element("i", "j"))}), assign(var("m"), var("x"))}),
    };
    for (const Stmt& rows : unsafe) {
        Stmt pair = Block::make({init, rows});
        EXPECT_EQ(run_fuse(pair), print(pair)) << print(rows);
    }
}

// `if (c + 1 > B->capacity) { if (siskin_buffer_grow(B, c + 1, 8) != SISKIN_OK) return
// SISKIN_ERR_ALLOC; P = (double *)B->data; }`, as LowerCtx::reserve writes it.
Stmt growth(const std::string& c, const std::string& buffer, const std::string& pointer) {
    Expr need = add(var(c), i64(1));
    Stmt fail = If::make(bin(BinaryOp::Ne, call("siskin_buffer_grow", {var(buffer), need, i64(8)}),
                             var("SISKIN_OK")),
                         Return::make(var("SISKIN_ERR_ALLOC")));
    Stmt refresh = assign(var(pointer), Cast::make(kF64.pointer(), Field::make(var(buffer), "data")));
    return If::make(bin(BinaryOp::Gt, need, Field::make(var(buffer), "capacity")),
                    Block::make({fail, refresh}));
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The copy-out of a workspace row: a check per entry of two buffers, one append (c++) under a
// test. One check each for the whole trip goes before the loop; none is left inside.
TEST(CodegenHoistGrowth, ChecksBeforeTheOnlyAppendLeaveTheLoop) {
    Stmt loop = walk({growth("c", "V", "vals"), assign(at(var("vals"), var("c")), var("x")),
                      If::make(var("keep"), Block::make({growth("c", "K", "crd"),
                                                         assign(at(var("crd"), var("c")), var("p")),
                                                         Increment::make(var("c"))}))});
    std::string c = print(hoist_growth_checks(Block::make({loop})));
    EXPECT_NE(c.find("if (c + (end - p) > V->capacity) {"), std::string::npos) << c;
    EXPECT_NE(c.find("siskin_buffer_grow(V, c + (end - p), 8LL)"), std::string::npos) << c;
    EXPECT_NE(c.find("if (c + (end - p) > K->capacity) {"), std::string::npos) << c;
    EXPECT_EQ(occurrences(c, "capacity"), 2u) << c;
    EXPECT_LT(c.find("K->capacity"), c.find("for (")) << c;
    EXPECT_NE(c.find("vals[c] = x;"), std::string::npos) << c;
    EXPECT_NE(c.find("c++;"), std::string::npos) << c;
    // A counted for with its own start: the trip is n - 0.
    std::string d = print(hoist_growth_checks(Block::make({counted(
        "k", {growth("c", "V", "vals"), assign(at(var("vals"), var("c")), var("x")), Increment::make(var("c"))})})));
    EXPECT_NE(d.find("if (c + (n - 0LL) > V->capacity) {"), std::string::npos) << d;
    EXPECT_EQ(occurrences(d, "capacity"), 1u) << d;
    // A walk that a window may stop early (`p < end && crd[p] + 1 <= hi`) runs at most end - p
    // times: the same reserve covers it.
    Expr early = bin(BinaryOp::LogAnd, lt(var("p"), var("end")),
                     bin(BinaryOp::Le, add(at(var("crd"), var("p")), i64(1)), var("hi")));
    std::string w = print(hoist_growth_checks(Block::make({For::make(
        std::nullopt, early, Increment::make(var("p")),
        Block::make({growth("c", "V", "vals"), assign(at(var("vals"), var("c")), var("x")),
                     Increment::make(var("c"))}))})));
    EXPECT_NE(w.find("if (c + (end - p) > V->capacity) {"), std::string::npos) << w;
    EXPECT_EQ(occurrences(w, "capacity"), 1u) << w;
    EXPECT_LT(w.find("V->capacity"), w.find("for (")) << w;
}

// Every loop where c could pass the hoisted bound, or the trip is unknown, keeps its checks.
TEST(CodegenHoistGrowth, LeavesLoopsItCannotBoundAlone) {
    Stmt check = growth("c", "V", "vals");
    Stmt append = Increment::make(var("c"));
    std::vector<Stmt> unsafe = {
        walk({check, append, append}),                                 // two appends
        walk({append, check}),                                         // check after the append
        walk({check, assign(var("c"), add(var("c"), i64(2)))}),        // another write of c
        walk({check, append, assign(var("end"), var("m"))}),           // the bound moves
        walk({check, append, assign(var("p"), var("m"))}),             // the index moves
        walk({check, append, counted("k", {append})}),                 // c++ in a nested loop
        walk({counted("k", {check, append})}),                         // the check in a nested one
        walk({Label::make("again"), check, append}),                   // a label: no order
        For::make(std::nullopt, lt(var("p"), at(var("pos"), var("i"))), Increment::make(var("p")),
                  Block::make({check, append})),                       // a bound read from memory
    };
    for (const Stmt& loop : unsafe) {
        Stmt body = Block::make({loop});
        std::string before = print(body), after = print(hoist_growth_checks(body));
        // The nested loop's own checks may move before it, but never out of the outer loop.
        if (before != after) {
            EXPECT_EQ(occurrences(after, "capacity"), 1u) << after;
            EXPECT_GT(after.find("capacity"), after.find("for (")) << after;
        }
    }
    // The nested loop of the last-but-two case is bounded by itself: its check moves before it,
    // inside the outer loop.
    std::string nested = print(hoist_growth_checks(Block::make({walk({counted("k", {check, append})})})));
    EXPECT_NE(nested.find("if (c + (n - 0LL) > V->capacity)"), std::string::npos) << nested;
}

Stmt run_positions(const Stmt& s, int64_t limit = 100) {
    return check_position_stores(Block::make({s}), {"pos"}, limit);
}

// A count stored into a 32-bit position array is tested first; constants within the limit,
// copies of positions and other arrays are not.
TEST(CodegenPositionChecks, StoresOfCountsAreTestedFirst) {
    std::string c = print(run_positions(walk({assign(at(var("pos"), add(var("p"), i64(1))), var("count"))})));
    EXPECT_NE(c.find("        if (count > 100LL) {\n            return SISKIN_ERR_INDEX_OVERFLOW;\n        }\n"
                     "        pos[p + 1LL] = count;"),
              std::string::npos)
        << c;
    std::string inc = print(run_positions(If::make(var("c"), Increment::make(at(var("pos"), var("r"))))));
    EXPECT_NE(inc.find("if (pos[r] + 1LL > 100LL)"), std::string::npos) << inc;
    std::string big = print(run_positions(assign(at(var("pos"), i64(0)), i64(101))));
    EXPECT_NE(big.find("SISKIN_ERR_INDEX_OVERFLOW"), std::string::npos) << big;
    for (const Stmt& safe : {assign(at(var("pos"), i64(0)), i64(0)),
                             assign(at(var("pos"), var("k")), at(var("pos"), add(var("k"), i64(-1)))),
                             assign(at(var("crd"), var("k")), var("count")),
                             Increment::make(at(var("pos"), var("r")), /*decrement=*/true)}) {
        EXPECT_EQ(print(run_positions(safe)), print(Block::make({safe})));
    }
    // No position arrays: nothing to do.
    Stmt s = Block::make({assign(at(var("pos"), i64(0)), var("count"))});
    EXPECT_EQ(print(check_position_stores(s, {}, 100)), print(s));
}

// A slot opened with the fill and given its value by the next statement: the fill store goes.
TEST(CodegenOverwrittenStores, FirstOfTwoStoresToOneElementGoes) {
    std::map<std::string, Type> arrays{{"y", kF64}};
    Stmt open = assign(y_at("n"), lit(Scalar::of(0.0)));
    Stmt fill = assign(y_at("n"), at(var("w"), at(var("srt"), var("p"))));
    std::string c = print(remove_overwritten_stores(Block::make({walk({open, fill})}), arrays));
    EXPECT_EQ(c.find("y[n] = 0.0;"), std::string::npos) << c;
    EXPECT_NE(c.find("y[n] = w[srt[p]];"), std::string::npos) << c;
    // Kept: the second reads y, another element, not an output array, a statement in between,
    // an index that reads y.
    std::vector<std::vector<Stmt>> keep = {
        {open, assign(y_at("n"), add(y_at("n"), var("x")))},
        {open, assign(y_at("m"), var("x"))},
        {assign(at(var("z"), var("n")), var("x")), assign(at(var("z"), var("n")), var("x"))},
        {open, Increment::make(var("q")), fill},
        {assign(at(var("y"), at(var("y"), i64(0))), var("x")), assign(at(var("y"), at(var("y"), i64(0))), var("x"))},
    };
    for (const auto& stmts : keep) {
        Stmt body = Block::make(stmts);
        EXPECT_EQ(print(remove_overwritten_stores(body, arrays)), print(body));
    }
}

// A workspace slot opened with the fill on first touch and updated by the next statement: the
// update moves into both branches, with the fill for the element on the first touch.
TEST(CodegenOpenedSlotUpdates, UpdateFoldsTheFillOnFirstTouch) {
    std::map<std::string, Type> arrays{{"y", kF64}};
    Expr slot = at(var("y"), at(var("crd"), var("q")));
    Expr term = mul(var("a"), at(var("b"), var("q")));
    Stmt open = If::make(un(UnaryOp::Not, at(var("tbl"), var("c"))),
                         Block::make({assign(at(var("tbl"), var("c")), var("one")), Increment::make(var("n")),
                                      assign(slot, lit(Scalar::of(0.0)))}));
    Stmt update = assign(slot, call("siskin_op_add_float64_float64", {slot, term}));
    std::string c = print(fold_opened_slot_updates(Block::make({walk({open, update})}), arrays));
    EXPECT_NE(c.find("            n++;\n"
                     "            y[crd[q]] = siskin_op_add_float64_float64(0.0, a * b[q]);\n"
                     "        } else {\n"
                     "            y[crd[q]] = siskin_op_add_float64_float64(y[crd[q]], a * b[q]);\n"
                     "        }\n"),
              std::string::npos)
        << c;
    EXPECT_EQ(occurrences(c, "y[crd[q]] ="), 2u) << c;
    // Kept: an else already, another element, a read of another element of y (it could be the
    // slot just opened), a statement in between, an array that is not an output, an index that
    // reads y, an impure update, a body that does not end with the opening store.
    Stmt with_else = If::make(un(UnaryOp::Not, at(var("tbl"), var("c"))),
                              Block::make({assign(slot, lit(Scalar::of(0.0)))}),
                              Block::make({Increment::make(var("m"))}));
    Expr z_slot = at(var("z"), var("c"));
    Expr y_y = at(var("y"), at(var("y"), i64(0)));
    std::vector<std::vector<Stmt>> keep = {
        {with_else, update},
        {open, assign(at(var("y"), var("c")), call("siskin_op_add_float64_float64", {at(var("y"), var("c")), term}))},
        {open, assign(slot, call("siskin_op_add_float64_float64", {slot, at(var("y"), var("c"))}))},
        {open, Increment::make(var("m")), update},
        {If::make(var("t"), Block::make({assign(z_slot, lit(Scalar::of(0.0)))})),
         assign(z_slot, add(z_slot, var("x")))},
        {If::make(var("t"), Block::make({assign(y_y, lit(Scalar::of(0.0)))})), assign(y_y, add(y_y, var("x")))},
        {open, assign(slot, call("free", {slot}))},
        {If::make(var("t"), Block::make({assign(slot, lit(Scalar::of(0.0))), Increment::make(var("n"))})),
         update},
    };
    for (const auto& stmts : keep) {
        Stmt body = Block::make(stmts);
        EXPECT_EQ(print(fold_opened_slot_updates(body, arrays)), print(body));
    }
}

// Gustavson's row loop: for each entry p of row i of A, a walk of row A_crd[p] of B.
//   for (; p < end; p++) { int64_t q = B_pos[A_crd[p]]; int64_t q_end = B_pos[A_crd[p] + 1];
//                          for (; q < q_end; q++) { w[B_crd[q]] += A_values[p] * B_values[q]; } }
Stmt gustavson_row(std::vector<Stmt> extra = {}) {
    Expr k = at(var("A_crd"), var("p"));
    Stmt inner = For::make(std::nullopt, lt(var("q"), var("q_end")), Increment::make(var("q")),
                           Block::make({Assign::make(at(var("w"), at(var("B_crd"), var("q"))), AssignOp::Add,
                                                     mul(at(var("A_values"), var("p")),
                                                         at(var("B_values"), var("q"))))}));
    std::vector<Stmt> body{Decl::make(kI64, "q", at(var("B_pos"), k)),
                           Decl::make(kI64, "q_end", at(var("B_pos"), add(k, i64(1)))), inner};
    for (auto& s : extra) body.push_back(std::move(s));
    return walk(std::move(body));
}

// The row of B four entries on is asked for at the top of the body: both arrays its walk reads
// at [q], through the same start and end, under the loop's own bound.
TEST(CodegenPrefetch, IndirectFibreWalkPrefetchesFourAhead) {
    std::string c = print(prefetch_fibres(Block::make({gustavson_row()})));
    EXPECT_NE(c.find("        if (p + 4LL < end) {\n"
                     "            int64_t q_ahead = B_pos[A_crd[p + 4LL]];\n"
                     "            int64_t q_end_ahead = B_pos[A_crd[p + 4LL] + 1LL];\n"
                     "            siskin_prefetch_span(B_crd + q_ahead, B_crd + q_end_ahead);\n"
                     "            siskin_prefetch_span(B_values + q_ahead, B_values + q_end_ahead);\n"
                     "        }\n"
                     "        int64_t q = B_pos[A_crd[p]];"),
              std::string::npos)
        << c;
    // w is indexed by B_crd[q], not q: not a fibre array.
    EXPECT_EQ(c.find("siskin_prefetch_span(w"), std::string::npos) << c;
    EXPECT_EQ(occurrences(c, "siskin_prefetch"), 2u) << c;
    // A loop nested deeper is found too.
    std::string nested = print(prefetch_fibres(Block::make({counted("i", {gustavson_row()})})));
    EXPECT_EQ(occurrences(nested, "siskin_prefetch_span"), 2u) << nested;
}

// The end is hinted only when evaluating it ahead reads nothing new: declared right after the
// start, from what moves with the loop, and unchanged by the body. Otherwise the start alone is.
TEST(CodegenPrefetch, FibreEndIsHintedOnlyWhenEvaluatedByEveryIteration) {
    Expr k = at(var("A_crd"), var("p"));
    auto row = [&](std::vector<Stmt> head, std::vector<Stmt> tail) {
        Stmt inner = For::make(std::nullopt, lt(var("q"), var("q_end")), Increment::make(var("q")),
                               Block::make({assign(y_at("q"), at(var("B_values"), var("q")))}));
        std::vector<Stmt> body{Decl::make(kI64, "q", at(var("B_pos"), k))};
        for (auto& s : head) body.push_back(s);
        body.push_back(inner);
        for (auto& s : tail) body.push_back(s);
        return print(prefetch_fibres(Block::make({walk(std::move(body))})));
    };
    Stmt end_decl = Decl::make(kI64, "q_end", at(var("B_pos"), add(k, i64(1))));
    EXPECT_NE(row({end_decl}, {}).find("siskin_prefetch_span(B_values + q_ahead, B_values + q_end_ahead);"),
              std::string::npos);
    std::vector<std::string> starts_only = {
        // Not right after the start: a statement in between.
        row({Increment::make(var("m")), end_decl}, {}),
        // A bound that does not move with p (a fixed end: no fibre end to evaluate).
        row({Decl::make(kI64, "q_end", var("m"))}, {}),
        // An end that reads what the body changes: iteration p + 4 would see another value.
        row({Decl::make(kI64, "q_end", add(at(var("B_pos"), add(k, i64(1))), var("s")))},
            {Increment::make(var("s"))}),
    };
    for (const auto& c : starts_only) {
        EXPECT_EQ(c.find("siskin_prefetch_span"), std::string::npos) << c;
        EXPECT_NE(c.find("siskin_prefetch(B_values + q_ahead);"), std::string::npos) << c;
    }
    // A body that writes B_pos (read by both the start and the end) gets no hint at all.
    EXPECT_EQ(row({end_decl}, {assign(at(var("B_pos"), var("m")), i64(0))}).find("siskin_prefetch"),
              std::string::npos);
}

// Left alone: a start that is not reached through a coordinate, an early exit, a write of an
// array the hint would read (P or X: a prefetch itself never faults, wherever it points), a
// bound or index that moves, no walk over the start.
TEST(CodegenPrefetch, LeavesLoopsWhereTheHintCouldReadWhatTheLoopWouldNot) {
    std::vector<Stmt> unsafe = {
        gustavson_row({Break::make()}),
        gustavson_row({Return::make(var("SISKIN_OK"))}),
        gustavson_row({assign(at(var("A_crd"), var("p")), i64(0))}),
        gustavson_row({assign(at(var("B_pos"), var("p")), i64(0))}),
        gustavson_row({assign(var("end"), var("m"))}),
        gustavson_row({assign(var("p"), var("m"))}),
        gustavson_row({Eval::make(call("free", {var("B_pos")}))}),
        // The start is B_pos[p]: contiguous rows, which the hardware prefetches by itself.
        walk({Decl::make(kI64, "q", at(var("B_pos"), var("p"))),
              For::make(std::nullopt, lt(var("q"), var("q_end")), Increment::make(var("q")),
                        Block::make({assign(y_at("q"), at(var("B_values"), var("q")))}))}),
        // No walk over q.
        walk({Decl::make(kI64, "q", at(var("B_pos"), at(var("A_crd"), var("p")))),
              assign(y_at("p"), var("q"))}),
        // The declaration is not the first statement: an earlier one could skip it.
        walk({If::make(var("c"), Continue::make()),
              Decl::make(kI64, "q", at(var("B_pos"), at(var("A_crd"), var("p")))),
              For::make(std::nullopt, lt(var("q"), var("q_end")), Increment::make(var("q")),
                        Block::make({assign(y_at("q"), at(var("B_values"), var("q")))}))}),
    };
    for (const Stmt& loop : unsafe) {
        Stmt body = Block::make({loop});
        EXPECT_EQ(print(prefetch_fibres(body)), print(body));
    }
    // A break inside the inner walk leaves only the inner walk: the hint stays.
    Expr k = at(var("A_crd"), var("p"));
    Stmt inner_break = walk({Decl::make(kI64, "q", at(var("B_pos"), k)),
                             For::make(std::nullopt, lt(var("q"), var("q_end")), Increment::make(var("q")),
                                       Block::make({assign(y_at("q"), at(var("B_values"), var("q"))),
                                                    Break::make()}))});
    EXPECT_NE(print(prefetch_fibres(Block::make({inner_break}))).find("siskin_prefetch(B_values + q_ahead);"),
              std::string::npos);
}


// split_accumulators: `s = f(s, t(p))` with f a reassociable helper.
const std::map<std::string, Type> kReassociable{{"addf", kF64}};
Stmt sum_walk(const std::string& f = "addf", const std::string& acc = "s") {
    return walk({assign(var(acc), call(f, {var(acc), mul(at(var("a"), var("p")), at(var("x"), at(var("c"), var("p"))))}))});
}
std::string run_split(std::vector<Stmt> stmts) {
    return print(split_accumulators(Block::make(std::move(stmts)), kReassociable));
}

TEST(CodegenSplitAccumulators, FloatSumAlongAFibreKeepsFourPartialSums) {
    std::string c = run_split({Decl::make(kF64, "s", lit(Scalar::of(0.0))), sum_walk()});
    // Three partials start from the terms at p+1..p+3, the loop takes four terms a step, the
    // partials fold into s, and the original loop takes what is left.
    // Only fibres of eight terms or more split.
    EXPECT_NE(c.find("if (p + 7LL < end) {"), std::string::npos) << c;
    EXPECT_NE(c.find("double s_1 = a[p + 1LL] * x[c[p + 1LL]];"), std::string::npos) << c;
    EXPECT_NE(c.find("double s_3 = a[p + 3LL] * x[c[p + 3LL]];"), std::string::npos) << c;
    EXPECT_NE(c.find("for (; p + 3LL < end; p += 4LL) {"), std::string::npos) << c;
    EXPECT_NE(c.find("s_2 = addf(s_2, a[p + 2LL] * x[c[p + 2LL]]);"), std::string::npos) << c;
    EXPECT_NE(c.find("s = addf(s, addf(addf(s_1, s_2), s_3));"), std::string::npos) << c;
    // x[c[p]] reads through an index array: the partials stay scalar chains.
    EXPECT_NE(c.find("siskin_keep_scalar(s_3);"), std::string::npos) << c;
    size_t remainder = c.find("for (; p < end; p++) {");
    ASSERT_NE(remainder, std::string::npos) << c;
    EXPECT_GT(remainder, c.find("s = addf(s, addf("));
    // The accumulator as the second argument is the same reduction.
    Stmt flipped = walk({assign(var("s"), call("addf", {at(var("a"), var("p")), var("s")}))});
    std::string d = run_split({Decl::make(kF64, "s", lit(Scalar::of(0.0))), flipped});
    EXPECT_NE(d.find("s_1 = addf(s_1, a[p + 1LL]);"), std::string::npos) << d;
}

TEST(CodegenSplitAccumulators, CountedLoopKeepsItsCounterForTheRemainder) {
    Stmt loop = For::make(Decl::make(kI64, "j", i64(0)), lt(var("j"), var("n")), Increment::make(var("j")),
                          Block::make({assign(var("s"), call("addf", {var("s"), at(var("a"), var("j"))}))}));
    std::string c = run_split({Decl::make(kF64, "s", lit(Scalar::of(0.0))), loop});
    EXPECT_NE(c.find("int64_t j = 0LL;"), std::string::npos) << c;
    EXPECT_NE(c.find("for (; j < n; j++)"), std::string::npos) << c;
    EXPECT_LT(c.find("int64_t j = 0LL;"), c.find("if (j + 7LL < n)"));
    // a[j] is contiguous: the C compiler may pack the partials into one vector.
    EXPECT_EQ(c.find("siskin_keep_scalar"), std::string::npos) << c;
}

TEST(CodegenSplitAccumulators, LeavesOtherLoopsAlone) {
    Stmt s = Decl::make(kF64, "s", lit(Scalar::of(0.0)));
    auto unchanged = [&](const Stmt& loop, const std::string& why) {
        std::string c = run_split({s, loop});
        EXPECT_EQ(c.find("s_1"), std::string::npos) << why << "\n" << c;
    };
    // A helper the registry does not declare associative and commutative.
    unchanged(sum_walk("subf"), "unknown helper");
    // An accumulator of another type than the helper's result (an int64 local).
    std::string c = run_split({Decl::make(kI64, "t", i64(0)), sum_walk("addf", "t")});
    EXPECT_EQ(c.find("t_1"), std::string::npos) << c;
    // A second statement in the body.
    unchanged(walk({assign(var("s"), call("addf", {var("s"), at(var("a"), var("p"))})),
                    assign(at(var("y"), var("p")), var("s"))}),
              "the partial sum is read in the loop");
    // The term reads the accumulator.
    unchanged(walk({assign(var("s"), call("addf", {var("s"), mul(var("s"), at(var("a"), var("p")))}))}),
              "term reads s");
    // The bound moves with the accumulator, or the step is not ++.
    unchanged(For::make(std::nullopt, lt(var("p"), var("s")), Increment::make(var("p")),
                        Block::make({assign(var("s"), call("addf", {var("s"), at(var("a"), var("p"))}))})),
              "bound reads s");
    unchanged(For::make(std::nullopt, lt(var("p"), var("end")), Increment::make(var("p"), true),
                        Block::make({assign(var("s"), call("addf", {var("s"), at(var("a"), var("p"))}))})),
              "decrement");
    // A term with an effect.
    unchanged(walk({assign(var("s"), call("addf", {var("s"), call("rand", {})}))}), "impure term");
}


// flatten_fibre_walks: `for j { p = P[j]; p_end = P[j + 1]; for (; p < p_end; p++) B }`.
Stmt column_nest(std::vector<Stmt> body) {
    Stmt inner = For::make(std::nullopt, lt(var("p"), var("p_end")), Increment::make(var("p")),
                           Block::make(std::move(body)));
    return counted("j", {Decl::make(kI64, "p", at(var("P"), var("j"))),
                         Decl::make(kI64, "p_end", at(var("P"), add(var("j"), i64(1)))), inner});
}
std::string run_flat(std::vector<Stmt> stmts) {
    std::vector<Stmt> all{Decl::make(Type::of(ValueType::Int32).as_const().pointer(), "P", var("P_in")),
                          Decl::make(kF64.as_const().pointer(), "x", var("x_in")),
                          Decl::make(kF64.pointer(), "y", var("y_in"))};
    for (auto& s : stmts) all.push_back(s);
    return print(flatten_fibre_walks(Block::make(std::move(all))));
}
Stmt scatter(Expr factor) {
    Expr row = at(var("y"), at(var("c"), var("p")));
    return assign(row, add(row, mul(at(var("v"), var("p")), std::move(factor))));
}

TEST(CodegenFlatFibreWalks, ColumnLoadsAreCopiedBesideEachEntry) {
    std::string c = run_flat({column_nest({scatter(at(var("x"), var("j")))})});
    EXPECT_NE(c.find("double *restrict x_at_entry = (double *)__builtin_alloca(8320LL);"), std::string::npos) << c;
    // The runtime decides from the positions (siskin_flat_walk.h).
    EXPECT_NE(c.find("if (siskin_flat_walk_pays_i32(P, 0LL, n)) {"), std::string::npos) << c;
    EXPECT_NE(c.find("x_at_entry[j_slot + j_copy] = x[j_block_end];"), std::string::npos) << c;
    EXPECT_NE(c.find("for (int64_t p = j_first; p < j_last; p++) {\n"
                     "                        y[c[p]] = y[c[p]] + v[p] * x_at_entry[p - j_first];"),
              std::string::npos)
        << c;
    // The nest as it was, for a fibre longer than a block and where the runtime says no.
    EXPECT_EQ(occurrences(c, "y[c[p]] = y[c[p]] + v[p] * x[j];"), 2u) << c;
    // A load read twice is copied once.
    std::string twice = run_flat({column_nest({scatter(mul(at(var("x"), var("j")), at(var("x"), var("j"))))})});
    EXPECT_NE(twice.find("x_at_entry[p - j_first] * x_at_entry[p - j_first]"), std::string::npos) << twice;
    EXPECT_EQ(twice.find("x_at_entry_1"), std::string::npos) << twice;
}

TEST(CodegenFlatFibreWalks, BodyThatDoesNotReadTheFibreIsOneWalk) {
    std::string c = run_flat({column_nest({scatter(at(var("v"), var("p")))})});
    EXPECT_NE(c.find("if (0LL < n) {\n        int64_t j_last = P[n];\n"
                     "        for (int64_t p = P[0LL]; p < j_last; p++) {"),
              std::string::npos)
        << c;
    EXPECT_EQ(c.find("p_end"), std::string::npos) << c;
}

// An else-if chain (lower_intersection's three-way choice) holds an If where an else body
// would be; the pass maps the chain's bodies (map_bodies) and flattens a nest in its last else.
TEST(CodegenFlatFibreWalks, ElseIfChainsAreWalkedIntoTheirBodies) {
    Stmt inner = If::make(bin(BinaryOp::Lt, var("n"), i64(2)), Block::make({}),
                          Block::make({column_nest({scatter(at(var("v"), var("p")))})}));
    Stmt chain = If::make(bin(BinaryOp::Lt, var("n"), i64(1)), Block::make({}), inner);
    std::string c = run_flat({chain});
    EXPECT_NE(c.find("} else if (n < 2LL) {"), std::string::npos) << c;
    EXPECT_NE(c.find("for (int64_t p = P[0LL]; p < j_last; p++) {"), std::string::npos) << c;
}

// Left alone: a nest inside another loop (the copies' room comes from the stack once), a body
// that writes through j, reads j other than in a load, leaves the walk, loops, or writes P.
TEST(CodegenFlatFibreWalks, LeavesNestsWhereTheWalkOrderOrTheStackWouldChange) {
    std::vector<Stmt> kept = {
        counted("k", {column_nest({scatter(at(var("x"), var("j")))})}),
        column_nest({assign(at(var("y"), var("j")), at(var("v"), var("p")))}),
        column_nest({scatter(var("j"))}),
        column_nest({scatter(at(var("x"), var("j"))), Break::make()}),
        column_nest({walk({scatter(at(var("x"), var("j")))})}),
        column_nest({scatter(at(var("x"), var("j"))), assign(at(var("P"), var("p")), i64(0))}),
        column_nest({scatter(at(var("x"), var("j"))), Eval::make(call("free", {var("x")}))}),
    };
    for (const Stmt& s : kept) EXPECT_EQ(run_flat({s}).find("j_first"), std::string::npos) << run_flat({s});
    for (const Stmt& s : kept) EXPECT_EQ(run_flat({s}).find("j_last"), std::string::npos) << run_flat({s});
}

} // namespace
} // namespace siskin::cast
