#include "execute.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

std::map<std::string, Tensor> execute(const ir::Program& program,
                                      const std::map<std::string, const Tensor*>& input_ptrs,
                                      const std::map<std::string, OutputSpec>& specs,
                                      const std::map<std::string, std::string>& output_paths,
                                      const ExecuteOptions& o) {
    auto ms_since = [](std::chrono::steady_clock::time_point start) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    std::optional<CompiledProgram> compiled;
    double compile_ms = 0;
    if (!o.interpret) {
        CompileOptions options;
        if (!o.dump_after.empty()) options.dump_after = o.dump_after;
        options.reassociate = !o.in_order;
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
    for (const auto& [name, path] : output_paths)
        files.write_tensor(results.at(name), path, write_options);
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
