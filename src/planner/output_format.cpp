#include "siskin/planner.hpp"

#include <algorithm>
#include <optional>

#include "levels/level_format.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin {

namespace {

// The plain index names of an access, or nothing when some subscript is something else.
std::optional<std::vector<std::string>> index_names(const ir::Access& a) {
    std::vector<std::string> names;
    for (const auto& s : a.indices) {
        const auto* i = s->as<ir::Index>();
        if (!i || i->slice) return std::nullopt;
        names.push_back(i->name);
    }
    return names;
}

} // namespace

Format output_format_following_data(const ir::Program& program, const std::string& output,
                                    const std::map<std::string, Format>& inputs) {
    const ir::Assign* write = nullptr;
    ir::visit(program.body, [&](const ir::Stmt& s) {
        if (const auto* a = s->as<ir::Assign>(); a && !write && a->lhs->tensor == output) write = a;
    });
    if (!write) return Format::dense(0);
    const int ndims = static_cast<int>(write->lhs->indices.size());
    auto out = index_names(*write->lhs);
    const ir::Access* leader = nullptr;
    ir::visit(write->rhs, [&](const ir::Expr& e) {
        const auto* a = e->as<ir::Access>();
        auto it = a ? inputs.find(a->tensor) : inputs.end();
        if (!leader && it != inputs.end() && !levels::all_levels_implicit(it->second) && index_names(*a))
            leader = a;
    });
    if (!out || !leader || ndims == 0) return Format::dense(ndims);
    const Format& lead = inputs.at(leader->tensor);
    auto lead_names = *index_names(*leader);
    auto output_mode = [&](const std::string& name) {
        return static_cast<int>(std::find(out->begin(), out->end(), name) - out->begin());
    };

    std::vector<std::string> sorted_out = *out, sorted_lead = lead_names;
    std::sort(sorted_out.begin(), sorted_out.end());
    std::sort(sorted_lead.begin(), sorted_lead.end());
    std::vector<LevelSpec> levels;
    if (sorted_out == sorted_lead && std::adjacent_find(sorted_out.begin(), sorted_out.end()) == sorted_out.end()) {
        // The same indices: the leader's levels, each on the output's mode of its index.
        for (LevelSpec level : lead.levels()) {
            for (int& m : level.modes) m = output_mode(lead_names.at(static_cast<size_t>(m)));
            level.index_bits = 0;
            levels.push_back(level);
        }
    } else {
        std::vector<bool> placed(out->size(), false);
        bool sparse = false;
        for (const auto& level : lead.levels())
            for (int m : level.modes) {
                int mode = output_mode(lead_names.at(static_cast<size_t>(m)));
                if (mode == ndims || placed[static_cast<size_t>(mode)]) continue;
                placed[static_cast<size_t>(mode)] = true;
                bool dense = levels::properties_of(level).implicit;
                sparse = sparse || !dense;
                levels.push_back({dense ? "dense" : "sparselist", {mode}, 0});
            }
        for (int mode = 0; mode < ndims; ++mode)
            if (!placed[static_cast<size_t>(mode)]) {
                levels.push_back({"sparselist", {mode}, 0});
                sparse = true;
            }
        if (!sparse) return Format::dense(ndims);
    }
    Format f(levels, Leaf::Element);
    return levels::all_levels_implicit(f) ? Format::dense(ndims) : f;
}

} // namespace siskin
