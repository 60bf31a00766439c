// Format conversion as a compiled copy program: `for <target order> { B[i0,..] = A[i0,..] }`.
// The loops follow the target's level order, because an append-only level (sparselist) is
// written in order only; the source is read along them, by random access where its level
// allows it cheaply, otherwise through a transposed temporary (concordize.cpp). What the compiler
// refuses (Error Unsupported: no target of the built levels today) falls back to the runtime
// Tensor::convert.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "tensor/transpose.hpp"

namespace siskin {

namespace {

// "for i1, i0 { B[i0,i1] = A[i0,i1] }" for a target whose levels store dimension 1 first.
std::string copy_program(int ndims, const Format& target) {
    std::vector<std::string> subscripts, loops;
    for (int d = 0; d < ndims; ++d) subscripts.push_back(fmt::format("i{}", d));
    for (int d : target.mode_order()) loops.push_back(fmt::format("i{}", d));
    std::string access = fmt::format("[{}]", fmt::join(subscripts, ","));
    return fmt::format("for {} {{ B{} = A{} }}", fmt::join(loops, ", "), access, access);
}

} // namespace

Conversion convert_compiled(const Tensor& source, const Format& target,
                            const CompileOptions& options) {
    if (target.ndims() != source.ndims())
        throw Error(fmt::format("cannot convert a tensor of {} dimensions to {}, a format of {}",
                                source.ndims(), target.to_string(), target.ndims()));
    if (source.ndims() == 0) return {source.convert(target), false, "a scalar has no loops to compile"};
    ir::Program program = ir::parse_program(copy_program(source.ndims(), target));
    OutputSpec spec;
    spec.format = target;
    spec.fill = source.fill();
    spec.type = source.type();
    spec.shape = source.shape();
    try {
        auto outputs = evaluate_compiled(program, {{"A", &source}}, {{"B", spec}}, options);
        return {std::move(outputs.at("B")), true, {}};
    } catch (const Error& e) {
        if (e.kind() != Error::Kind::Unsupported) throw;
        return {detail::convert_on_threads(source, target, kernel_threads(options.threads)), false, e.message()};
    }
}

Tensor convert(const Tensor& source, const Format& target, const CompileOptions& options) {
    return convert_compiled(source, target, options).tensor;
}

} // namespace siskin
