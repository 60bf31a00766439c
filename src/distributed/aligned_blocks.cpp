#include "distributed/aligned_blocks.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "distributed/entries.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

namespace {

// `block` with column k moved to column to[k], in a matrix of `columns` columns.
Tensor renumber_columns(const Tensor& block, const std::vector<int64_t>& to, int64_t columns) {
    CoordinateList list;
    list.ndims = 2;
    block.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        list.coords.push_back(c[0]);
        list.coords.push_back(to[static_cast<size_t>(c[1])]);
        list.values.push_back(v);
    });
    return Tensor::from_coordinates({block.shape()[0], columns}, block.type(), block.fill(),
                                    open_widths(block.format()), list);
}

} // namespace

AlignedBlocks align_blocks(const std::map<std::string, const DistributedMatrix*>& inputs) {
    SISKIN_ASSERT(!inputs.empty(), "matrices to align");
    const auto& [first_name, first] = *inputs.begin();
    AlignedBlocks out;
    collectively(first->rows().comm(), [&] {
        for (const auto& [name, m] : inputs) {
            if (!(m->rows() == first->rows()) || !(m->columns() == first->columns()))
                throw Error(fmt::format("{} ({} x {}) and {} ({} x {}) are not partitioned alike: an "
                                        "elementwise program needs the same rows and columns on every rank",
                                        first_name, first->rows().size(), first->columns().size(), name,
                                        m->rows().size(), m->columns().size()));
            std::vector<int64_t> merged;
            std::set_union(out.column_map.begin(), out.column_map.end(), m->column_map().begin(),
                           m->column_map().end(), std::back_inserter(merged));
            out.column_map = std::move(merged);
        }
        for (const auto& [name, m] : inputs) {
            out.diagonal[name] = &m->diagonal();
            if (m->column_map() == out.column_map) {
                out.off_diagonal[name] = &m->off_diagonal();
                continue;
            }
            std::vector<int64_t> to;
            to.reserve(m->column_map().size());
            for (int64_t c : m->column_map())
                to.push_back(std::lower_bound(out.column_map.begin(), out.column_map.end(), c) -
                             out.column_map.begin());
            auto [it, fresh] = out.renumbered.emplace(
                name, renumber_columns(m->off_diagonal(), to, static_cast<int64_t>(out.column_map.size())));
            out.off_diagonal[name] = &it->second;
        }
    });
    return out;
}

std::pair<Tensor, std::vector<int64_t>> drop_empty_columns(const Tensor& block, const std::vector<int64_t>& map) {
    std::vector<char> used(map.size(), 0);
    block.for_each_stored([&](std::span<const int64_t> c, const Scalar&) { used[static_cast<size_t>(c[1])] = 1; });
    if (std::all_of(used.begin(), used.end(), [](char u) { return u != 0; })) return {block, map};
    std::vector<int64_t> kept, to(map.size(), -1);
    for (size_t k = 0; k < map.size(); ++k)
        if (used[k]) {
            to[k] = static_cast<int64_t>(kept.size());
            kept.push_back(map[k]);
        }
    return {renumber_columns(block, to, static_cast<int64_t>(kept.size())), kept};
}

} // namespace siskin::distributed
