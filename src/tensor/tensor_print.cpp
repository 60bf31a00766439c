// Tensor::to_string: a header line, then a dense grid for small tensors or the stored entries.
#include <algorithm>

#include <fmt/format.h>

#include "siskin/tensor.hpp"
#include "tensor/describe.hpp"

namespace siskin {

namespace {

// Rows of a 2-D slice (or the one row of a vector), values right-aligned to `width`.
void print_grid(std::string& out, const std::vector<std::string>& cells, size_t offset,
                int64_t rows, int64_t cols, size_t width) {
    for (int64_t i = 0; i < rows; ++i) {
        out += i == 0 ? "[" : " ";
        out += "[";
        for (int64_t j = 0; j < cols; ++j) {
            if (j > 0) out += ' ';
            out += fmt::format("{:>{}}", cells[offset + static_cast<size_t>(i * cols + j)], width);
        }
        out += "]";
        out += i + 1 == rows ? "]\n" : "\n";
    }
}

} // namespace

std::string Tensor::to_string(int64_t max_elements) const {
    int64_t count = stored();
    std::string out = fmt::format("Tensor {} {}, fill {}, format {}, {} stored\n",
                                  detail::shape_text(shape_), type_name(type_), fill_.to_string(),
                                  format_.to_string(), count);
    // Elements, saturating just above max_elements so huge shapes cannot overflow.
    int64_t total = 1;
    if (std::find(shape_.begin(), shape_.end(), 0) != shape_.end()) total = 0;
    for (int64_t n : shape_) {
        if (total == 0 || total > max_elements) break;
        total = n > max_elements / std::max<int64_t>(total, 1) ? max_elements + 1 : total * n;
    }

    if (total <= max_elements) {
        std::vector<std::string> cells;
        size_t width = 0;
        for (const Scalar& v : to_dense()) {
            cells.push_back(v.to_string());
            width = std::max(width, cells.back().size());
        }
        if (shape_.empty()) return out + cells[0] + "\n";
        if (total == 0) return out + "[]\n";
        if (shape_.size() == 1) {
            out += "[";
            for (size_t j = 0; j < cells.size(); ++j)
                out += fmt::format("{}{:>{}}", j == 0 ? "" : " ", cells[j], width);
            return out + "]\n";
        }
        int64_t rows = shape_[shape_.size() - 2], cols = shape_.back();
        std::vector<int64_t> outer(shape_.begin(), shape_.end() - 2), index(outer.size(), 0);
        int64_t slices = total / (rows * cols);
        for (int64_t s = 0; s < slices; ++s) {
            if (!outer.empty()) {
                std::string label = fmt::format("{}", fmt::join(index, ", "));
                out += fmt::format("[{}, :, :] =\n", label);
            }
            print_grid(out, cells, static_cast<size_t>(s * rows * cols), rows, cols, width);
            for (size_t m = outer.size(); m-- > 0;) {
                if (++index[m] < outer[m]) break;
                index[m] = 0;
            }
        }
        return out;
    }

    // Runs are listed per coordinate, so count the visits rather than use stored().
    int64_t visited = 0;
    for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (visited++ < max_elements) out += fmt::format("  {}: {}\n", detail::coord_text(c), v.to_string());
    });
    if (visited > max_elements) out += fmt::format("  ... ({} more stored)\n", visited - max_elements);
    return out;
}

} // namespace siskin
