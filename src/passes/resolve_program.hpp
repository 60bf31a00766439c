#pragma once
// The front half of running a program, shared by the reference evaluator, compile_for and
// infer_signatures: the program verified against the tensors it is given, and every output
// settled (type, shape, fill, format, start, index width) by the rules of declared_fills.hpp,
// output_start.hpp and output_fill.hpp, so that both engines accept and refuse the same programs
// and compute the same outputs.
//
//   ResolvedProgram r = resolve_program(program, ProgramInputs::of(inputs), specs);
//   r.verified.extents;                  // the reference evaluator's loops
//   compile(program, r.signatures());    // a kernel for these tensors
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/ir/verify.hpp"
#include "siskin/reference.hpp"
#include "siskin/tensor.hpp"

namespace siskin {

/// The inputs of a program. Tensors give their shapes: the verifier checks extents against them
/// and each output gets the index width its own shape needs. Signatures alone (a kernel compiled
/// before any tensor exists: `siskin c`) stand for tensors of any shape, and every index width a
/// format leaves open, an input's or an output's, is `index_bits`.
struct ProgramInputs {
    std::map<std::string, TensorSignature> signatures;
    std::optional<std::map<std::string, std::vector<int64_t>>> shapes; // nullopt: any shape
    int index_bits = 32;                                               // only without shapes

    /// From tensors (finiteness is not scanned: `finite` stays false).
    static ProgramInputs of(const std::map<std::string, const Tensor*>& tensors);
    /// From signatures alone: their open index widths set to `index_bits`, their fills cast to
    /// their types.
    static ProgramInputs any_shape(std::map<std::string, TensorSignature> signatures,
                                   int index_bits);
};

/// One output as the front half settles it.
struct ResolvedOutput {
    /// What a kernel computes: type, fill, dimensions, `format` with its open index widths set
    /// to `index_bits`, and keep_contents when the output has a start.
    TensorSignature signature;
    /// As asked (dense by default); index widths open where the spec left them open.
    Format format;
    /// The width of the indices `format` leaves open: 32 when every dimension fits it, else 64
    /// (signatures alone: ProgramInputs::index_bits).
    int index_bits = 32;
    /// Given or inferred; signatures alone: every dimension of any size (ir::verify's view).
    std::vector<int64_t> shape;
    /// OutputSpec::start, checked against the spec and the program.
    const Tensor* start = nullptr;
};

struct ResolvedProgram {
    ir::VerifiedProgram verified;
    /// Every input the program reads.
    std::map<std::string, TensorSignature> inputs;
    /// Every output the program writes.
    std::map<std::string, ResolvedOutput> outputs;

    /// What compile() takes: every input's signature and every output's.
    std::map<std::string, TensorSignature> signatures() const;
};

/// Applies the program's fill declarations and the outputs' starts to `specs`, verifies the
/// program, checks the inputs' fills against the declarations, and settles every output: its
/// type and shape from the spec or the verifier, its fill from its start, the spec (which must
/// be a value of its type that a non-dense output produces where the inputs are all fill) or
/// inference, its format from the spec (default dense). Throws Error, in the user's terms, at
/// the first of these that fails, or when a name is both an input and an output.
ResolvedProgram resolve_program(const ir::Program& program, const ProgramInputs& inputs,
                                const std::map<std::string, OutputSpec>& specs);

} // namespace siskin
