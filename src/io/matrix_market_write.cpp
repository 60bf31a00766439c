// Writing Matrix Market files: array format for tensors whose levels are all dense, coordinate
// format otherwise; always "general". A 1-D tensor is written as an n x 1 matrix.
#include <fmt/format.h>

#include "io/value_text.hpp"
#include "io/writers.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin {

std::string io::matrix_market_text(const Tensor& t, const std::string& path,
                                   const WriteOptions& options) {
    if (t.ndims() != 1 && t.ndims() != 2)
        throw Error(fmt::format("'{}': Matrix Market holds 1-D and 2-D tensors, not {}-D (use a "
                                ".tns file)",
                                path, t.ndims()));
    int64_t rows = t.shape()[0], cols = t.ndims() == 2 ? t.shape()[1] : 1;
    bool dense = t.format().leaf() == Leaf::Element;
    for (const LevelSpec& l : t.format().levels())
        dense = dense && levels::level_format(l.kind).properties().full;
    std::string_view field = t.format().leaf() == Leaf::Pattern ? "pattern"
                             : is_float(t.type())               ? "real"
                                                                : "integer";

    fmt::memory_buffer out;
    auto it = std::back_inserter(out);
    fmt::format_to(it, "%%MatrixMarket matrix {} {} general\n", dense ? "array" : "coordinate",
                   field);
    fmt::format_to(it, "% written by siskin: {} {}\n", type_name(t.type()), t.format().to_string());
    // Matrix Market has no fill value; readers other than siskin assume zero. A dense tensor is
    // written whole, so its fill is only a note; a sparse one would read back with other values.
    if (!t.fill().same_value(Scalar::zero(t.type()))) {
        if (!dense && !options.fill_comment)
            throw Error(fmt::format(
                "'{}': the tensor is sparse ({}) with fill {}, which Matrix Market cannot hold "
                "(other readers, scipy.io.mmread among them, take unstored entries as 0): write "
                "a .tns file, ask for a dense output (FILE.mtx:dense), or keep the fill in a "
                "comment that only siskin reads (--fill-comment)",
                path, t.format().to_string(), io::value_text(t.fill())));
        fmt::format_to(it, "% fill: {}\n", io::value_text(t.fill()));
    }

    if (dense) {
        fmt::format_to(it, "{} {}\n", rows, cols);
        std::vector<Scalar> values = t.to_dense();
        for (int64_t j = 0; j < cols; ++j)
            for (int64_t i = 0; i < rows; ++i)
            {
                io::append_value(out, values[static_cast<size_t>(i * cols + j)]);
                out.push_back('\n');
            }
    } else {
        // The entry count is that of the lines written: a run (runlist level) stores one value
        // but is written once per coordinate, so stored() can be smaller.
        fmt::memory_buffer body;
        auto body_it = std::back_inserter(body);
        int64_t lines = 0;
        bool pattern = field == "pattern";
        t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
            int64_t j = c.size() == 2 ? c[1] : 0;
            ++lines;
            if (pattern) fmt::format_to(body_it, "{} {}\n", c[0] + 1, j + 1);
            else {
                fmt::format_to(body_it, "{} {} ", c[0] + 1, j + 1);
                io::append_value(body, v);
                body.push_back('\n');
            }
        });
        fmt::format_to(it, "{} {} {}\n", rows, cols, lines);
        out.append(body.data(), body.data() + body.size());
    }
    return fmt::to_string(out);
}

void write_matrix_market(const Tensor& t, const std::string& path, const WriteOptions& options) {
    OutputFiles files;
    files.write_text(path, io::matrix_market_text(t, path, options));
    files.commit();
}

} // namespace siskin
