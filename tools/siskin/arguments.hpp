#pragma once
// Parsing of the command's tensor arguments: NAME=FILE[:FORMAT], FILE[:FORMAT] and NAME=VALUE.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "siskin/io.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/value.hpp"

namespace siskin::cli {

struct TensorArgument {
    std::string name;
    std::string path;
    std::optional<std::string> format; // spelling after the last ':'
};

struct FileArgument {
    std::string path;
    std::optional<std::string> format; // spelling after the last ':'
};

/// "M.mtx:csc" -> {M.mtx, csc}; "M.mtx" -> {M.mtx, none}. The text after the last ':' is a
/// format only when it parses as a format spelling; otherwise the whole text is the path
/// ("out_0:5:2.tns"). Throws Error naming the option for an empty path or format.
FileArgument parse_file_argument(const std::string& text, const std::string& option);
/// True when `text` is a format spelling for some number of dimensions (1 to 16).
bool is_format_spelling(std::string_view text);
/// read_tensor, except that a missing "FILE:TEXT" whose FILE exists says that TEXT is not a format.
Tensor read_file_argument(const std::string& path, const ReadOptions& options);
/// "A=M.mtx:csr" -> {A, M.mtx, csr}. Throws Error naming the option when malformed.
TensorArgument parse_tensor_argument(const std::string& text, const std::string& option);
/// The --type and --fill options of a command, checked against the tensors the program uses.
struct TensorOptions {
    std::map<std::string, ValueType> types;
    std::map<std::string, Scalar> fills;
    std::optional<ValueType> type_of(const std::string& name) const;
};
TensorOptions parse_tensor_options(const std::map<std::string, int>& arity,
                                   const std::vector<std::string>& types,
                                   const std::vector<std::string>& fills);
/// Adds the program's `fill` declarations to o.fills, so that an input is read, and an output
/// requested, with its declared fill. Throws Error naming both when a --fill contradicts one.
void add_declared_fills(const ir::Program& program, TensorOptions& o);
/// "A=inf" -> {A, "inf"}.
std::pair<std::string, std::string> parse_assignment(const std::string& text,
                                                     const std::string& option);
/// "30x30" -> {30, 30}: `ndims` sizes, each a non-negative integer; an Error naming `what`.
std::vector<int64_t> parse_shape(const std::string& text, int ndims, const std::string& what);
/// Number of subscripts each tensor is accessed with in the program.
std::map<std::string, int> access_arity(const ir::Program& program);
/// The contents of a file; throws "cannot read <what> file 'path'".
std::string read_text_file(const std::string& path, const std::string& what);
/// A fill given on the command line, typed by --type when there is one, else read as float64
/// (or bool for true/false); the reader and the evaluator cast it to the tensor's type.
Scalar parse_fill(const std::string& text, std::optional<ValueType> type);
/// The number of subscripts of `name` in the program; an Error naming `option` when the program
/// does not use it.
int dimensions_of(const std::map<std::string, int>& arity, const std::string& name,
                  const std::string& option);
/// The program text: the argument itself, or the contents of FILE for "@FILE"; Error for a
/// directory and for an empty (or blank) program.
std::string program_text(const std::string& argument);

/// `--dump-after list`: prints the compiler's stages, one a line, and returns true.
bool list_stages(const std::string& dump_after);

} // namespace siskin::cli
