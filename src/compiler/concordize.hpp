#pragma once
// concordize: a read whose index order goes against its tensor's level order, at a level that
// cannot locate a coordinate cheaply (anything but dense), is served by a temporary: the same
// tensor in a format with the same levels whose modes follow the loop order. The kernel reads
// the temporary as an ordinary input; Kernel::run builds it from the input before the call.
// A subscript written `follow(i)` keeps its random access (a binary search) instead.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// One transposed temporary: `temp` is `source` converted to `signature.format`.
struct Transpose {
    std::string temp, source;
    TensorSignature source_signature, signature;
};

struct Concordized {
    ir::Program program;                               // discordant reads renamed to temporaries
    std::map<std::string, TensorSignature> signatures; // the temporaries' added
    std::vector<Transpose> transposes;
};

/// The loop depth binding a subscript (innermost loop of that name), or -1 when the subscript is
/// not a bound index (a literal: located at whichever level holds it).
int loop_depth(const ir::Expr& subscript, const std::vector<std::string>& loops);

/// Whether reading `a` (of a tensor stored in `format`) inside `loops` (outermost first) reaches
/// a level other than dense by random access, against its level order.
bool reads_discordantly(const ir::Access& a, const Format& format, const std::vector<std::string>& loops);

/// `format`'s levels with their modes dealt out in the order of the loops binding `indices`
/// (an access's subscripts; a mode whose subscript no loop binds keeps its place first): the
/// format in which that access is concordant. CSR read as `A[j,i]` in loops i, j gives CSC.
Format format_in_loop_order(const Format& format, const std::vector<ir::Expr>& indices,
                            const std::vector<std::string>& loops);
/// The name of a temporary holding `tensor` in `format` ("A_by10"), before making it unique.
std::string temporary_name(const std::string& tensor, const Format& format);

Concordized concordize(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures);

/// A program that only copies a transposed temporary into an output of the very same signature
/// (`for i1, i0 { B[i0,i1] = A_by10[i0,i1] }`, CSR to CSC): the temporary already is the output
/// (the transpose drops entries equal to the fill, as the copy would), so Kernel::run moves it
/// there instead of running the copy.
struct ForwardedCopy {
    std::string output, temp;
};
std::optional<ForwardedCopy> forwarded_copy(const Concordized& cz);

} // namespace siskin::compiler
