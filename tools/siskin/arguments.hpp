#pragma once
// Parsing of the command's tensor arguments: NAME=FILE[:FORMAT] and NAME=VALUE.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"

namespace siskin::cli {

struct TensorArgument {
    std::string name;
    std::string path;
    std::optional<std::string> format; // spelling after the last ':'
};

/// "A=M.mtx:csr" -> {A, M.mtx, csr}. Throws Error naming the option when malformed.
TensorArgument parse_tensor_argument(const std::string& text, const std::string& option);
/// "A=inf" -> {A, "inf"}.
std::pair<std::string, std::string> parse_assignment(const std::string& text,
                                                     const std::string& option);
/// Number of subscripts each tensor is accessed with in the program.
std::map<std::string, int> access_arity(const ir::Program& program);
/// The contents of a file; throws "cannot read <what> file 'path'".
std::string read_text_file(const std::string& path, const std::string& what);
/// The program text: the argument itself, or the contents of FILE for "@FILE".
std::string program_text(const std::string& argument);

} // namespace siskin::cli
