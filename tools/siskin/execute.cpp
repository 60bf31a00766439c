#include "execute.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin::cli {

namespace {

std::string cache_name(codegen::CacheStatus s) {
    switch (s) {
    case codegen::CacheStatus::Miss: return "miss";
    case codegen::CacheStatus::DiskHit: return "disk";
    case codegen::CacheStatus::MemoryHit: return "memory";
    }
    return "unknown";
}

// A refusal of the compiler says what it cannot do, and that the reference evaluator can.
CompiledProgram compile_or_explain(const ir::Program& program,
                                   const std::map<std::string, const Tensor*>& inputs,
                                   const std::map<std::string, OutputSpec>& specs,
                                   const CompileOptions& options) {
    try {
        return compile_for(program, inputs, specs, options);
    } catch (const Error& e) {
        if (e.kind() != Error::Kind::Unsupported) throw;
        throw Error(fmt::format("the compiler cannot run this program yet: {} (run it with "
                                "--interpret to use the reference evaluator)",
                                e.message()),
                    Error::Kind::Unsupported);
    }
}

} // namespace

void add_execute_options(CLI::App& cmd, ExecuteOptions& o) {
    cmd.add_option("--stats", o.stats_path, "Write timing, compile and storage statistics as JSON");
    cmd.add_option("--repeat", o.repeat, "Run the program N times (for --stats)")
        ->check(CLI::PositiveNumber);
    cmd.add_flag("--interpret", o.interpret,
                 "Use the dense reference evaluator instead of compiled code");
    cmd.add_flag("--in-order", o.in_order,
                 "Sum floats in the order of the loops, as the reference evaluator does (compiled "
                 "kernels otherwise keep four partial sums along a fibre)");
    cmd.add_option("--dump-after", o.dump_after,
                   "Print what compiler stage STAGE leaves (or all) to stderr; list: name the stages");
    add_threads_option(&cmd, o.threads, "the kernel runs on");
    cmd.add_option("--parallel-min-work", o.parallel_min_work,
                   "Least work (rows plus the entries they walk) for which a parallel loop starts its "
                   "threads (default 32768; 0: always, as bench/thread_threshold.py measures)")
        ->check(CLI::NonNegativeNumber);
    add_lowering_budget_option(&cmd, o.lowering_budget);
    cmd.add_flag("--fill-comment", o.fill_comment,
                 "Write a sparse output with a non-zero fill to a .mtx file anyway, the fill in a "
                 "comment that only siskin reads (other readers take it as 0)");
}

void check_execute_options(const ExecuteOptions& o) {
    if (o.interpret && !o.dump_after.empty())
        throw Error("--dump-after shows the compiler's passes, so it does not go with --interpret");
}

std::map<std::string, Tensor> execute(const ir::Program& program,
                                      const std::map<std::string, const Tensor*>& input_ptrs,
                                      const std::map<std::string, OutputSpec>& specs,
                                      const std::map<std::string, std::string>& output_paths,
                                      const ExecuteOptions& o, const std::set<std::string>& format_followed) {
    auto ms_since = [](std::chrono::steady_clock::time_point start) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    std::optional<CompiledProgram> compiled;
    double compile_ms = 0;
    if (!o.interpret) {
        CompileOptions options;
        if (!o.dump_after.empty()) options.dump_after = o.dump_after;
        options.reassociate = !o.in_order;
        options.threads = o.threads;
        if (o.parallel_min_work >= 0) options.parallel_min_work = o.parallel_min_work;
        options.lowering_budget = o.lowering_budget;
        auto start = std::chrono::steady_clock::now();
        compiled = compile_or_explain(program, input_ptrs, specs, options);
        compile_ms = ms_since(start);
    }
    std::vector<double> times_ms;
    std::map<std::string, Tensor> results;
    for (int r = 0; r < o.repeat; ++r) {
        auto start = std::chrono::steady_clock::now();
        results = compiled ? compiled->run(input_ptrs) : evaluate_reference(program, input_ptrs, specs);
        times_ms.push_back(ms_since(start));
    }

    // Every file of the run goes to a temporary beside it, and all are renamed into place only
    // once all were written: a failure leaves no output half-written, nor some outputs new and
    // others old.
    OutputFiles files;
    WriteOptions write_options;
    write_options.fill_comment = o.fill_comment;
    for (const auto& [name, path] : output_paths) {
        const Tensor& t = results.at(name);
        bool dense = std::all_of(t.format().levels().begin(), t.format().levels().end(),
                                 [](const LevelSpec& l) { return l.kind == "dense"; });
        if (format_followed.count(name) && path.ends_with(".mtx") &&
            !t.fill().same_value(Scalar::zero(t.type())) && !dense)
            files.write_tensor(t.convert(Format::dense(t.ndims())), path, write_options);
        else
            files.write_tensor(t, path, write_options);
    }
    if (!o.stats_path.empty()) {
        std::vector<double> sorted = times_ms;
        std::sort(sorted.begin(), sorted.end());
        size_t n = sorted.size();
        double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        nlohmann::json stats;
        stats["engine"] = compiled ? "compiled" : "interpret";
        if (compiled) {
            stats["compile_ms"] = compile_ms;
            stats["cc_ms"] = compiled->kernel->compile_ms();
            stats["cache"] = cache_name(compiled->kernel->cache());
        }
        stats["runs"] = n;
        stats["median_ms"] = median;
        stats["min_ms"] = sorted.front();
        stats["times_ms"] = times_ms;
        for (const auto& [name, t] : results) {
            stats["stored"][name] = t.stored();
            stats["format"][name] = t.format().to_string();
        }
        files.write_text(o.stats_path, stats.dump(2) + "\n");
    }
    files.commit();
    return results;
}

} // namespace siskin::cli
