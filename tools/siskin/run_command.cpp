// `siskin run PROGRAM -i NAME=FILE[:FORMAT] ... -o NAME=FILE[:FORMAT] ...`: compiled code by
// default (compiled once, then run --repeat times, so the timings are the kernel's), or the
// reference evaluator with --interpret. `--start NAME=FILE[:FORMAT]` makes an output start as the
// tensor in FILE, so a program that writes a window of it changes only that window.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "arguments.hpp"
#include "commands.hpp"
#include "distributed_run.hpp"
#include "execute.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"
#include "siskin/io.hpp"
#include "siskin/planner.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"

namespace siskin::cli {

namespace {

struct RunOptions {
    std::string program;
    std::vector<std::string> inputs, outputs, starts, shapes, fills, types, prints, function_files;
    ExecuteOptions exec;
    int plan = -1;        // --plan N: the planner's candidate N (default: the program as written)
    bool as_written = false; // --as-written: the program as written, not the planner's cheapest plan
    bool explain = false; // `siskin explain`: print the candidates instead of running
    bool distributed = false;    // --distributed: under mpirun, on a row partition
    std::string comm_stats_path; // --comm-stats FILE (with --distributed)
    std::string row_split;       // --row-split even|entries (with --distributed)
};

// --distributed: the options that apply there go to run_distributed; the others are refused.
void run_distributed_command(const RunOptions& o) {
    auto refuse = [](bool given, const char* option) {
        if (given) throw Error(fmt::format("{} does not go with --distributed", option));
    };
    refuse(!o.starts.empty(), "--start");
    refuse(!o.shapes.empty(), "--shape");
    refuse(!o.function_files.empty(), "--functions");
    refuse(o.plan >= 0, "--plan");
    refuse(o.as_written, "--as-written");
    DistributedRunOptions d;
    d.program = o.program;
    d.inputs = o.inputs;
    d.outputs = o.outputs;
    d.fills = o.fills;
    d.types = o.types;
    d.prints = o.prints;
    d.exec = o.exec;
    d.comm_stats_path = o.comm_stats_path;
    d.balanced = o.row_split == "entries";
    run_distributed(d);
}

// `siskin explain`: every candidate the planner weighed, its estimated cost, and its program.
void print_plan(const Plan& plan) {
    for (size_t k = 0; k < plan.candidates.size(); ++k) {
        const PlanCandidate& c = plan.candidates[k];
        std::cout << fmt::format("plan {}{}: {}; estimated cost {:.4g} ({})\n", k, k == 0 ? " (cheapest)" : "",
                                 c.description, c.cost, c.formula);
        std::string text = ir::print(c.program);
        for (size_t at = 0; at < text.size();) {
            size_t end = text.find('\n', at);
            if (end == std::string::npos) end = text.size();
            std::cout << "    " << text.substr(at, end - at) << "\n";
            at = end + 1;
        }
    }
}

void run(const RunOptions& o) {
    if (list_stages(o.exec.dump_after)) return;
    if (o.distributed) return run_distributed_command(o);
    if (!o.comm_stats_path.empty()) throw Error("--comm-stats counts the messages of a --distributed run");
    if (!o.row_split.empty()) throw Error("--row-split partitions the rows of a --distributed run");
    for (const auto& path : o.function_files) define_functions(read_text_file(path, "functions"), path);
    check_execute_options(o.exec);
    ir::Program program = ir::parse_program(program_text(o.program));
    auto arity = access_arity(program);
    auto program_outputs = program.outputs();
    auto is_output = [&](const std::string& name) {
        return std::find(program_outputs.begin(), program_outputs.end(), name) != program_outputs.end();
    };

    TensorOptions tensor_options = parse_tensor_options(arity, o.types, o.fills);
    add_declared_fills(program, tensor_options);
    const auto& fills = tensor_options.fills;
    auto type_of = [&](const std::string& name) { return tensor_options.type_of(name); };

    std::map<std::string, Tensor> inputs;
    std::map<std::string, std::string> input_texts; // the -i argument that gave each input
    // A tensor file named on the command line, read with its name's --fill and --type.
    auto read_argument = [&](const TensorArgument& arg, int ndims, const char* use) {
        ReadOptions read;
        if (arg.format) read.format = Format::parse(*arg.format, ndims);
        if (fills.count(arg.name)) read.fill = fills.at(arg.name);
        read.type = type_of(arg.name);
        read.ndims = ndims;
        Tensor t = read_file_argument(arg.path, read);
        if (t.ndims() != ndims)
            throw Error(fmt::format("{} in '{}' has {} dimensions, but the program {} it with {}",
                                    arg.name, arg.path, t.ndims(), use, ndims));
        return t;
    };
    for (const auto& text : o.inputs) {
        TensorArgument arg = parse_tensor_argument(text, "-i");
        int ndims = dimensions_of(arity, arg.name, "-i");
        if (is_output(arg.name))
            throw Error(fmt::format("-i {}: {} is written by the program, so it is an output", text, arg.name));
        if (input_texts.count(arg.name))
            throw Error(fmt::format("-i {}: {} is already given (-i {})", text, arg.name,
                                    input_texts.at(arg.name)));
        input_texts.emplace(arg.name, text);
        inputs.emplace(arg.name, read_argument(arg, ndims, "uses"));
    }
    // Start tensors of outputs, read as inputs are (with the output's --fill and --type).
    std::map<std::string, Tensor> starts;
    for (const auto& text : o.starts) {
        TensorArgument arg = parse_tensor_argument(text, "--start");
        int ndims = dimensions_of(arity, arg.name, "--start");
        if (!is_output(arg.name))
            throw Error(fmt::format("--start {}: the program only reads {}, and only an output "
                                    "can start as an existing tensor (give an input with -i)",
                                    text, arg.name));
        if (starts.count(arg.name))
            throw Error(fmt::format("--start {}: {} is given a start tensor twice", text, arg.name));
        starts.emplace(arg.name, read_argument(arg, ndims, "writes"));
    }
    for (const auto& [name, n] : arity)
        if (!is_output(name) && !inputs.count(name))
            throw Error(fmt::format("the program reads tensor '{}': give it with -i {}=FILE", name, name));

    std::map<std::string, OutputSpec> specs;
    std::map<std::string, std::string> output_paths, output_texts;
    for (const auto& text : o.outputs) {
        TensorArgument arg = parse_tensor_argument(text, "-o");
        int ndims = dimensions_of(arity, arg.name, "-o");
        if (!is_output(arg.name))
            throw Error(fmt::format("-o {}: the program does not write {}", text, arg.name));
        if (output_texts.count(arg.name))
            throw Error(fmt::format("-o {}: {} is already written (-o {})", text, arg.name,
                                    output_texts.at(arg.name)));
        for (const auto& [other, path] : output_paths)
            if (path == arg.path)
                throw Error(fmt::format("-o {}: {} is also where {} is written", text,
                                        quote_input(path, 4096), other));
        output_texts.emplace(arg.name, text);
        if (arg.format) specs[arg.name].format = Format::parse(*arg.format, ndims);
        output_paths[arg.name] = arg.path;
    }
    for (const auto& name : program_outputs) {
        if (fills.count(name)) specs[name].fill = fills.at(name);
        if (auto t = type_of(name)) specs[name].type = *t;
    }
    for (const auto& [name, t] : starts) specs[name].start = &t;
    // An output written to a file without a format follows the data: sparse where its leading
    // operand is (planner/output_format.hpp), dense otherwise.
    std::set<std::string> format_followed;
    {
        std::map<std::string, Format> input_formats;
        for (const auto& [name, t] : inputs) input_formats.emplace(name, t.format());
        for (const auto& [name, path] : output_paths)
            if (!specs[name].format && !specs[name].start) {
                Format f = output_format_following_data(program, name, input_formats);
                bool dense = std::all_of(f.levels().begin(), f.levels().end(),
                                         [](const LevelSpec& l) { return l.kind == "dense"; });
                if (dense) continue; // the default, as before
                specs[name].format = f;
                format_followed.insert(name);
            }
    }
    for (const auto& text : o.shapes) {
        auto [name, dims] = parse_assignment(text, "--shape");
        int ndims = dimensions_of(arity, name, "--shape");
        if (!is_output(name))
            throw Error(fmt::format("--shape {}: the program only reads {}, whose file gives its "
                                    "shape",
                                    text, name));
        if (starts.count(name) || specs[name].shape)
            throw Error(fmt::format("--shape {}: {}'s shape is already given{}", text, name,
                                    starts.count(name) ? " by its --start tensor" : ""));
        specs[name].shape = parse_shape(dims, ndims, "--shape " + text);
    }
    for (const auto& name : o.prints)
        if (!arity.count(name))
            throw Error(fmt::format("--print names tensor '{}', which the program does not use", name));
    // A run that writes nothing would compute and discard its outputs with exit status 0.
    if (!o.explain && output_paths.empty() && o.prints.empty() && o.exec.stats_path.empty() &&
        o.exec.dump_after.empty())
        throw Error(fmt::format("the program's outputs ({}) go nowhere: give -o NAME=FILE or "
                                "--print NAME (or --stats FILE to time the run, --dump-after to "
                                "see the compiler's stages)",
                                fmt::join(program_outputs, ", ")));

    std::map<std::string, const Tensor*> input_ptrs;
    for (const auto& [name, t] : inputs) input_ptrs[name] = &t;

    // The planner's cheapest plan, the candidate --plan names, or (--as-written, and always for
    // the reference evaluator, the oracle) the program as written. A plan's temporaries are
    // outputs too. Only the chosen plan is compiled.
    Plan plan = plan_program(program, input_ptrs, specs);
    if (o.explain) {
        print_plan(plan);
        return;
    }
    // The options' own words for choose_plan's refusals.
    if (o.plan >= static_cast<int>(plan.candidates.size()))
        throw Error(fmt::format("--plan {}: the planner weighed {} plan{} (siskin explain lists them)", o.plan,
                                plan.candidates.size(), plan.candidates.size() == 1 ? "" : "s"));
    if (o.as_written && o.plan >= 0) throw Error("--plan N and --as-written both choose the plan: give one");
    if (o.exec.interpret && o.plan >= 0)
        throw Error("--plan N chooses compiled code's plan; --interpret runs the program as written");
    PlanChoice choice;
    choice.as_written = o.as_written || o.exec.interpret;
    if (o.plan >= 0) choice.candidate = static_cast<size_t>(o.plan);
    const PlanCandidate chosen = choose_plan(plan, program, choice);
    for (const auto& [name, spec] : chosen.temporaries) specs[name] = spec;
    std::map<std::string, Tensor> results =
        execute(chosen.program, input_ptrs, specs, output_paths, o.exec, format_followed);
    for (const auto& name : o.prints) {
        const Tensor& t = results.count(name) ? results.at(name) : inputs.at(name);
        std::cout << name << " = " << t.to_string() << "\n";
    }
}

} // namespace

void add_run_command(CLI::App& app) {
    auto options = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "Run an array program on tensors read from files");
    cmd->add_option("program", options->program,
                    "Program text, e.g. 'y[i] += A[i,j] * x[j]', or @FILE to read it from FILE")
        ->required();
    cmd->add_option("-i,--input", options->inputs, "Input tensor NAME=FILE[:FORMAT] (.mtx or .tns)");
    cmd->add_option("-o,--output", options->outputs, "Output tensor NAME=FILE[:FORMAT] to write");
    cmd->add_option("--start", options->starts,
                    "Output NAME starts as the tensor in FILE (NAME=FILE[:FORMAT]): a program that "
                    "writes a window of it changes only that window, += adds onto it");
    cmd->add_option("--shape", options->shapes,
                    "Shape of output NAME (NAME=D0xD1x..., e.g. bins=16 or O=30x30) when no loop "
                    "sizes it, or to override the inferred one");
    cmd->add_option("--fill", options->fills, "Fill value NAME=VALUE of an input or output");
    cmd->add_option("--type", options->types, "Value type NAME=TYPE of an input or output");
    cmd->add_option("--print", options->prints, "Print tensor NAME after the run");
    cmd->add_option("--functions", options->function_files,
                    "File of function definitions (def and case forms) the program may call");
    add_execute_options(*cmd, options->exec);
    cmd->add_option("--plan", options->plan,
                    "Run the planner's candidate N (siskin explain lists them, cheapest first; default: plan 0)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--as-written", options->as_written,
                  "Run the program as written (with the compiler's own loop orders) instead of the planner's cheapest "
                  "plan (plan 0 of siskin explain)");
    // The help says when the option cannot work: scripts/scaleout/mpi_run.py reads it to know
    // whether this siskin runs under mpirun.
    cmd->add_flag("--distributed", options->distributed,
                  std::string("Run under mpirun on a row partition of the matrices (SpMV, SpGEMM, "
                              "elementwise, reductions; docs/distributed.md); rank 0 writes the "
                              "outputs") +
                      (distributed_available() ? "" : " (not in this siskin: built without MPI)"));
    cmd->add_option("--comm-stats", options->comm_stats_path,
                    "With --distributed: write every rank's messages and bytes per operation as JSON");
    cmd->add_option("--row-split", options->row_split,
                    "With --distributed: even (n/p rows each, the default) or entries (ranges of about "
                    "equal stored entries)")
        ->check(CLI::IsMember({"even", "entries"}));
    cmd->callback([options] { run(*options); });
}

void add_explain_command(CLI::App& app) {
    auto options = std::make_shared<RunOptions>();
    options->explain = true;
    auto* cmd = app.add_subcommand("explain", "Print the plans the planner weighed for a program on these inputs");
    cmd->add_option("program", options->program,
                    "Program text, e.g. 'D[i,l] += A[i,j] * B[j,k] * C[k,l]', or @FILE")
        ->required();
    cmd->add_option("-i,--input", options->inputs, "Input tensor NAME=FILE[:FORMAT] (.mtx or .tns)");
    cmd->add_option("-o,--output", options->outputs,
                    "Output NAME=FILE[:FORMAT] as run would write it (its format matters to the plans; nothing is "
                    "written)");
    cmd->add_option("--fill", options->fills, "Fill value NAME=VALUE of an input or output");
    cmd->add_option("--type", options->types, "Value type NAME=TYPE of an input or output");
    cmd->add_option("--functions", options->function_files,
                    "File of function definitions (def and case forms) the program may call");
    cmd->callback([options] { run(*options); });
}

} // namespace siskin::cli
