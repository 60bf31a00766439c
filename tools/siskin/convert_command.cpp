// `siskin convert IN[:FORMAT] OUT[:FORMAT]`: reads IN (in FORMAT, else the file type's default),
// converts it with the compiled copy program (siskin::convert_compiled) to OUT's format (else
// keeps the input's), and writes OUT; the file type comes from OUT's extension.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin::cli {

namespace {

struct ConvertOptions {
    std::string in, out, fill, type;
    bool verbose = false;
    bool fill_comment = false;
    int threads = 0; // 0: CompileOptions' default
    std::optional<int64_t> lowering_budget; // unset: CompileOptions' default
};

void convert_file(const ConvertOptions& o) {
    FileArgument in = parse_file_argument(o.in, "IN");
    FileArgument out = parse_file_argument(o.out, "OUT");
    ReadOptions read;
    if (!o.type.empty()) read.type = parse_type(o.type);
    if (!o.fill.empty()) read.fill = parse_fill(o.fill, read.type);
    if (in.format) {
        // A preset like "dense" needs the number of dimensions: a .mtx file has 2; a .tns file's
        // entries say, and its default format (coo) grows with them. Never read in the default
        // of a .mtx (csr) first: its row pointers follow the shape, and a 2^40-row file of 3
        // entries asked for as coo would fail for want of 8 TiB.
        std::optional<int> ndims = file_type_ndims(in.path, read);
        if (!ndims) ndims = read_file_argument(in.path, read).ndims();
        read.format = Format::parse(*in.format, *ndims);
    }
    Tensor source = read_file_argument(in.path, read);
    Format target = out.format ? Format::parse(*out.format, source.ndims()) : source.format();
    CompileOptions options;
    options.threads = o.threads;
    options.lowering_budget = o.lowering_budget;
    Conversion c = convert_compiled(source, target, options);
    WriteOptions write_options;
    write_options.fill_comment = o.fill_comment;
    write_tensor(c.tensor, out.path, write_options); // a temporary file renamed into place
    if (o.verbose)
        std::cerr << fmt::format("{} -> {}: {}\n", source.format().to_string(), c.tensor.format().to_string(),
                                 c.compiled ? std::string("compiled copy")
                                            : "runtime copy (the compiler refused: " + c.fallback_reason + ")");
}

} // namespace

void add_convert_command(CLI::App& app) {
    auto options = std::make_shared<ConvertOptions>();
    auto* cmd = app.add_subcommand("convert", "Convert a tensor file to another storage format");
    cmd->add_option("in", options->in, "Input FILE[:FORMAT] (.mtx or .tns)")->required();
    cmd->add_option("out", options->out, "Output FILE[:FORMAT], e.g. b.mtx:csc")->required();
    cmd->add_option("--fill", options->fill, "Fill value of the tensor (default 0)");
    cmd->add_option("--type", options->type, "Value type of the tensor");
    add_threads_option(cmd, options->threads, "the compiled copy runs on");
    add_lowering_budget_option(cmd, options->lowering_budget);
    cmd->add_flag("-v,--verbose", options->verbose,
                  "Say on stderr whether the compiled copy or the runtime copy did the work");
    cmd->add_flag("--fill-comment", options->fill_comment,
                  "Write a sparse tensor with a non-zero fill to a .mtx file anyway, the fill in a "
                  "comment that only siskin reads (other readers take it as 0)");
    cmd->callback([options] { convert_file(*options); });
}

} // namespace siskin::cli
