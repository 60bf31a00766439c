// `siskin eval EXPR -i NAME=FILE[:FORMAT] ... -o FILE[:FORMAT]`: a NumPy expression over tensors
// read from files (siskin::parse_array_expression), compiled as one program and run with the
// options of `siskin run`; --show-program prints the program it compiles to.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "execute.hpp"
#include "siskin/array.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/planner.hpp"

namespace siskin::cli {

namespace {

struct EvalOptions {
    std::string expression;
    std::vector<std::string> inputs, fills, types, function_files;
    std::string output;
    bool print = false, show_program = false;
    bool as_written = false; // --as-written: the program, not the planner's cheapest plan
    ExecuteOptions exec;
};

/// An input file: a format that spells only a vector (`sparselist(0)`, `dense(0)`) reads a
/// Matrix Market n x 1 or 1 x n matrix as a vector; other formats read it as a matrix.
Tensor read_input(const TensorArgument& arg, const TensorOptions& options) {
    ReadOptions read;
    if (options.fills.count(arg.name)) read.fill = options.fills.at(arg.name);
    read.type = options.type_of(arg.name);
    if (!arg.format) return read_file_argument(arg.path, read);
    const bool mtx = arg.path.size() >= 4 && arg.path.substr(arg.path.size() - 4) == ".mtx";
    if (mtx) {
        try {
            read.format = Format::parse(*arg.format, 2);
        } catch (const Error&) {
            read.format = Format::parse(*arg.format, 1);
            read.ndims = 1;
        }
        return read_file_argument(arg.path, read);
    }
    Tensor t = read_file_argument(arg.path, read);
    return t.convert(Format::parse(*arg.format, t.ndims()));
}

void run_eval(const EvalOptions& o) {
    for (const auto& path : o.function_files)
        define_functions(read_text_file(path, "functions"), path);
    if (list_stages(o.exec.dump_after)) return;
    check_execute_options(o.exec);
    std::map<std::string, int> names;
    std::vector<TensorArgument> args;
    for (const auto& text : o.inputs) {
        TensorArgument arg = parse_tensor_argument(text, "-i");
        if (names.count(arg.name))
            throw Error(fmt::format("-i {}: {} is already given", text, arg.name));
        names[arg.name] = 0;
        args.push_back(arg);
    }
    TensorOptions tensor_options = parse_tensor_options(names, o.types, o.fills);
    std::map<std::string, Array> arrays;
    for (const auto& arg : args)
        arrays.emplace(arg.name, Array(read_input(arg, tensor_options), arg.name));
    Array result = parse_array_expression(program_text(o.expression), arrays);

    std::optional<Format> format;
    std::map<std::string, std::string> output_paths;
    if (!o.output.empty()) {
        FileArgument file = parse_file_argument(o.output, "-o");
        if (file.format) format = Format::parse(*file.format, result.ndim());
        output_paths["out"] = file.path;
    }
    ArrayProgram p = result.lower(format);
    if (p.result != "out") {
        output_paths[p.result] = output_paths["out"];
        output_paths.erase("out");
    }
    // The planner's cheapest plan, as compute() runs it (the program's loops are the array
    // layer's, free to reorder); --as-written and the reference evaluator run the program.
    PlanChoice choice;
    choice.as_written = o.as_written || o.exec.interpret;
    PlanOptions free_loops;
    free_loops.loops_are_free = true;
    const PlanCandidate chosen =
        choice.as_written ? choose_plan(Plan{}, p.program, choice)
                          : choose_plan(plan_program(p.program, p.input_pointers(), p.outputs, free_loops), p.program,
                                        choice);
    if (o.show_program) {
        std::cout << ir::print(p.program) << "\n";
        if (!ir::equal(chosen.program, p.program))
            std::cout << "runs the planner's plan 0: " << chosen.description << "\n" << ir::print(chosen.program) << "\n";
    }
    if (output_paths.empty() && !o.print && o.exec.stats_path.empty() && o.exec.dump_after.empty()) {
        if (o.show_program) return;
        throw Error("the result goes nowhere: give -o FILE, --print (or --stats FILE to time the "
                    "run, --show-program to see the program)");
    }
    auto specs = p.outputs;
    for (const auto& [name, spec] : chosen.temporaries) specs[name] = spec;
    auto results = execute(chosen.program, p.input_pointers(), specs, output_paths, o.exec);
    if (o.print) std::cout << results.at(p.result).to_string() << "\n";
}

} // namespace

void add_eval_command(CLI::App& app) {
    auto options = std::make_shared<EvalOptions>();
    auto* cmd = app.add_subcommand(
        "eval", "Evaluate a NumPy expression over tensors read from files, as one compiled program");
    cmd->add_option("expression", options->expression,
                    "NumPy expression, e.g. 'sum(A * B.T, axis=1)' or 'A @ x', or @FILE")
        ->required();
    cmd->add_option("-i,--input", options->inputs,
                    "Input NAME=FILE[:FORMAT] (.mtx or .tns); a vector format such as "
                    "sparselist(0) reads an n x 1 .mtx file as a vector");
    cmd->add_option("-o,--output", options->output, "Write the result to FILE[:FORMAT]");
    cmd->add_option("--fill", options->fills, "Fill value NAME=VALUE of an input");
    cmd->add_option("--type", options->types, "Value type NAME=TYPE of an input");
    cmd->add_flag("--print", options->print, "Print the result");
    cmd->add_flag("--show-program", options->show_program,
                  "Print the siskin program the expression compiles to (and the plan of it that runs)");
    cmd->add_option("--functions", options->function_files,
                    "File of function definitions (def and case forms) the expression may call");
    cmd->add_flag("--as-written", options->as_written,
                  "Run the expression's program as written (--show-program) instead of the planner's cheapest plan");
    add_execute_options(*cmd, options->exec);
    cmd->callback([options] { run_eval(*options); });
}

} // namespace siskin::cli
