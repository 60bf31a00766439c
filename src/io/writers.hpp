#pragma once
// The text of each tensor file type, rendered whole before anything is written (OutputFiles
// writes it to a temporary file and renames it into place).
#include <string>

#include "siskin/io.hpp"

namespace siskin::io {

/// Matrix Market text; Error for more than 2 dimensions, and for a sparse tensor with a fill
/// other than zero unless options.fill_comment (`path` names the file in those errors).
std::string matrix_market_text(const Tensor& t, const std::string& path,
                               const WriteOptions& options);
std::string frostt_text(const Tensor& t);
/// The text of the file type that `path`'s extension names.
std::string tensor_file_text(const Tensor& t, const std::string& path, const WriteOptions& options);

} // namespace siskin::io
