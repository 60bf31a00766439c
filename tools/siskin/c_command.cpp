// `siskin c PROGRAM -f A=csr -f x=dense [--fill A=VALUE] [--type A=TYPE]`: prints the C the
// compiler generates for tensors of those formats. Kernels do not depend on shapes, so none are
// asked for; each tensor's number of dimensions comes from the program. Inputs are taken to hold
// finite values (what `siskin run` finds for most data, and what lets 0 * x skip x) unless
// --nonfinite names them. --in-place NAME shows the kernel `siskin run --start NAME=FILE` uses
// for a dense output: it updates the values it is given instead of starting from the fill.
// `siskin c --print-compiler` prints the command the JIT compiles kernels with instead.
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "siskin/codegen/jit.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::cli {

namespace {

struct COptions {
    std::string program;
    std::vector<std::string> formats, fills, types, nonfinite, in_place;
    std::string dump_after;
    int index_bits = 32;
    bool print_compiler = false;
    bool in_order = false;
    int threads = 0; // 0: CompileOptions' default
    std::optional<int64_t> lowering_budget; // unset: CompileOptions' default
};

void print_compiler() { std::cout << fmt::format("{}\n", fmt::join(codegen::jit_command(), " ")); }

void print_c(const COptions& o) {
    if (list_stages(o.dump_after)) return;
    ir::Program program = ir::parse_program(program_text(o.program));
    auto arity = access_arity(program);
    auto outputs = program.outputs();
    auto is_output = [&](const std::string& name) {
        return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
    };

    TensorOptions tensor_options = parse_tensor_options(arity, o.types, o.fills);
    add_declared_fills(program, tensor_options);
    const auto& fills = tensor_options.fills;
    auto type_of = [&](const std::string& name) { return tensor_options.type_of(name); };
    std::map<std::string, Format> formats;
    for (const auto& f : o.formats) {
        auto [name, spelling] = parse_assignment(f, "-f");
        if (formats.count(name)) throw Error(fmt::format("-f {}: the format of {} is given twice", f, name));
        int ndims = dimensions_of(arity, name, "-f");
        try {
            formats.emplace(name, Format::parse(spelling, ndims));
        } catch (const Error& e) {
            throw Error(fmt::format("-f {}: {} (the program uses {} with {} subscripts)", f,
                                    e.message(), name, ndims));
        }
    }

    std::map<std::string, TensorSignature> inputs;
    std::map<std::string, OutputSpec> specs;
    for (const auto& [name, ndims] : arity) {
        if (is_output(name)) {
            OutputSpec& spec = specs[name];
            if (formats.count(name)) spec.format = formats.at(name);
            if (fills.count(name)) spec.fill = fills.at(name);
            spec.type = type_of(name);
            continue;
        }
        TensorSignature s;
        s.ndims = ndims;
        s.format = formats.count(name) ? formats.at(name) : Format::dense(ndims);
        s.type = type_of(name).value_or(ValueType::Float64);
        s.fill = fills.count(name) ? fills.at(name).cast(s.type) : Scalar::zero(s.type);
        // As a Tensor of that type would refuse it (a declared `fill A = inf` with an int type).
        if (fills.count(name) && !is_float(s.type) && !s.fill.same_value(fills.at(name)))
            throw Error(fmt::format("the fill {} of {} is not a value of its type {}",
                                    fills.at(name).to_string(), name, type_name(s.type)));
        s.finite = true;
        inputs.emplace(name, s);
    }
    for (const auto& name : o.nonfinite) {
        dimensions_of(arity, name, "--nonfinite");
        if (is_output(name)) throw Error(fmt::format("--nonfinite {}: {} is an output", name, name));
        inputs.at(name).finite = false;
    }
    CompileOptions options;
    if (!o.dump_after.empty()) options.dump_after = o.dump_after;
    options.reassociate = !o.in_order;
    options.threads = o.threads;
    options.lowering_budget = o.lowering_budget;
    auto signatures = infer_signatures(program, inputs, specs, o.index_bits);
    for (const auto& name : o.in_place) {
        dimensions_of(arity, name, "--in-place");
        if (!is_output(name))
            throw Error(fmt::format("--in-place {}: the program only reads {}; only an output is "
                                    "updated in place",
                                    name, name));
        signatures.at(name).keep_contents = true;
    }
    try {
        std::cout << generate_c(program, signatures, options);
    } catch (const Error& e) {
        if (e.kind() != Error::Kind::Unsupported) throw;
        throw Error(fmt::format("the compiler cannot compile this program yet: {} (`siskin run "
                                "--interpret` runs it on the reference evaluator)",
                                e.message()),
                    Error::Kind::Unsupported);
    }
}

} // namespace

void add_c_command(CLI::App& app) {
    auto options = std::make_shared<COptions>();
    auto* cmd = app.add_subcommand("c", "Print the C generated for a program and tensor formats");
    cmd->add_option("program", options->program,
                    "Program text, e.g. 'y[i] += A[i,j] * x[j]', or @FILE to read it from FILE");
    cmd->add_option("-f,--format", options->formats,
                    "Format NAME=FORMAT of a tensor (default dense), e.g. -f A=csr");
    cmd->add_option("--fill", options->fills, "Fill value NAME=VALUE (inputs default to 0)");
    cmd->add_option("--type", options->types, "Value type NAME=TYPE (inputs default to float64)");
    cmd->add_option("--nonfinite", options->nonfinite,
                    "Input NAME may hold inf or NaN (inputs are taken to be finite otherwise)");
    cmd->add_option("--in-place", options->in_place,
                    "Output NAME starts from the values it holds (as with `siskin run --start`); "
                    "dense outputs only");
    cmd->add_option("--index-bits", options->index_bits,
                    "Index width of levels whose format does not fix it")
        ->check(CLI::IsMember({32, 64}));
    cmd->add_option("--dump-after", options->dump_after,
                    "Print what compiler stage STAGE leaves (or all) to stderr; list: name the stages");
    cmd->add_flag("--in-order", options->in_order,
                  "Sum floats in the order of the loops (as `siskin run --in-order`)");
    add_threads_option(cmd, options->threads, "the kernel is compiled for");
    add_lowering_budget_option(cmd, options->lowering_budget);
    cmd->add_flag("--print-compiler", options->print_compiler,
                  "Print the compiler and flags kernels are built with ($SISKIN_CC, $SISKIN_CFLAGS "
                  "or the defaults) instead of C");
    cmd->callback([options] {
        if (options->print_compiler) return print_compiler();
        if (options->program.empty()) throw Error("`siskin c` needs a program (or --print-compiler)");
        print_c(*options);
    });
}

} // namespace siskin::cli
