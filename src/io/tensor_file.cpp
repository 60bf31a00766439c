// Reading and writing tensor files chosen by their extension.
#include <fmt/format.h>

#include "io/writers.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin {

namespace {

enum class Kind { MatrixMarket, Frostt };

Kind kind_of(const std::string& path) {
    size_t dot = path.find_last_of('.');
    size_t slash = path.find_last_of('/');
    std::string ext;
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
        ext = path.substr(dot);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".mtx") return Kind::MatrixMarket;
    if (ext == ".tns") return Kind::Frostt;
    throw Error(fmt::format("'{}': unknown tensor file extension '{}' (expected .mtx or .tns)",
                            path, ext));
}

} // namespace

Tensor read_tensor(const std::string& path, const ReadOptions& options) {
    return kind_of(path) == Kind::MatrixMarket ? read_matrix_market(path, options)
                                               : read_frostt(path, options);
}

std::optional<int> file_type_ndims(const std::string& path, const ReadOptions& options) {
    if (kind_of(path) == Kind::MatrixMarket) return options.ndims.value_or(2);
    return std::nullopt;
}

std::string io::tensor_file_text(const Tensor& t, const std::string& path,
                                 const WriteOptions& options) {
    return kind_of(path) == Kind::MatrixMarket ? io::matrix_market_text(t, path, options)
                                               : io::frostt_text(t);
}

void write_tensor(const Tensor& t, const std::string& path, const WriteOptions& options) {
    OutputFiles files;
    files.write_tensor(t, path, options);
    files.commit();
}

} // namespace siskin
