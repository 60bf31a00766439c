#pragma once
// The local work of every distributed operation: a siskin program run on this rank's tensors,
// compiled once per kind of input (signatures and shapes) and kept for the process, so a
// repeated SpMV only runs its kernels. Kernels run on one thread: MPI puts one rank on a core.
#include <map>
#include <string>

#include "siskin/compiler.hpp"

namespace siskin::distributed {

class LocalProgram {
public:
    /// Whether the values of some inputs are all finite, known beforehand (a matrix's blocks,
    /// scanned once when built): those are not scanned again on every run.
    using KnownFinite = std::map<std::string, bool>;

    explicit LocalProgram(std::string text);
    /// The outputs of the program on `inputs` (fresh tensors; OutputSpec as evaluate_compiled).
    std::map<std::string, Tensor> run(const std::map<std::string, const Tensor*>& inputs,
                                      const std::map<std::string, OutputSpec>& outputs = {},
                                      const KnownFinite& known = {}) const;
    /// Runs the program with its one output `output` starting from that tensor's values (a
    /// dense tensor), which the kernel updates in place: `y[i] += B[i,j] * h[j]` adds onto y.
    void update(const std::map<std::string, const Tensor*>& inputs, const std::string& name,
                Tensor& output, const KnownFinite& known = {}) const;
    const ir::Program& program() const { return program_; }

private:
    std::string text_;
    ir::Program program_;
};

} // namespace siskin::distributed
