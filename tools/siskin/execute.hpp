#pragma once
// The part of `siskin run` and `siskin eval` after the program is built: compile it once (or
// use the reference evaluator), run it --repeat times, and write the outputs and --stats all or
// nothing.
#include <map>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>
#include <string>

#include "siskin/ir/program.hpp"
#include "siskin/reference.hpp"
#include "siskin/tensor.hpp"

namespace siskin::cli {

struct ExecuteOptions {
    int repeat = 1;
    bool interpret = false;
    bool in_order = false;
    std::string dump_after; // empty: none (then $SISKIN_DUMP_AFTER)
    std::string stats_path; // empty: no --stats
    bool fill_comment = false;
    int threads = 0; // 0: CompileOptions' default
    int64_t parallel_min_work = -1; // -1: CompileOptions' default
    std::optional<int64_t> lowering_budget; // unset: CompileOptions' default
};

/// The options above on a command: --stats, --repeat, --interpret, --in-order, --dump-after,
/// --fill-comment, --threads, --parallel-min-work, --lowering-budget.
void add_execute_options(CLI::App& cmd, ExecuteOptions& o);
/// Refuses contradictory options (--dump-after with --interpret).
void check_execute_options(const ExecuteOptions& o);

/// Runs `program` and writes each output named in `output_paths` to its file; returns every
/// output of the last run. `format_followed`: outputs whose format the data chose (no format
/// asked for); Matrix Market holds no fill, so such an output whose fill is not zero is written
/// to a .mtx file dense, as it was before the data chose.
std::map<std::string, Tensor> execute(const ir::Program& program,
                                      const std::map<std::string, const Tensor*>& input_ptrs,
                                      const std::map<std::string, OutputSpec>& specs,
                                      const std::map<std::string, std::string>& output_paths,
                                      const ExecuteOptions& o, const std::set<std::string>& format_followed = {});

} // namespace siskin::cli
