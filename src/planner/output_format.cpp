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
    // Every input access with plain indices, in the order they appear; the leader is the first
    // with a stored level.
    std::vector<const ir::Access*> operands;
    ir::visit(write->rhs, [&](const ir::Expr& e) {
        const auto* a = e->as<ir::Access>();
        if (a && inputs.count(a->tensor) && index_names(*a)) operands.push_back(a);
    });
    auto leader = std::find_if(operands.begin(), operands.end(), [&](const ir::Access* a) {
        return !levels::all_levels_implicit(inputs.at(a->tensor));
    });
    if (!out || leader == operands.end() || ndims == 0) return Format::dense(ndims);
    std::rotate(operands.begin(), leader, leader + 1); // the leader first, the others in order
    auto output_mode = [&](const std::string& name) {
        return static_cast<int>(std::find(out->begin(), out->end(), name) - out->begin());
    };
    const Format& lead = inputs.at(operands.front()->tensor);
    auto lead_names = *index_names(*operands.front());

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
        // Each output index takes its level from the first operand that stores it (the leader
        // first): dense where that level is, a sparse list otherwise; the levels are ordered by
        // their depth in their operand. So csc x csc gives csc, as csr x csr gives csr, and
        // csr x dense is dense.
        struct Placed { double depth; LevelSpec level; };
        std::vector<Placed> placed;
        std::vector<bool> taken(out->size(), false);
        for (const ir::Access* operand : operands) {
            const Format& format = inputs.at(operand->tensor);
            auto names = *index_names(*operand);
            const auto& operand_levels = format.levels();
            for (size_t depth = 0; depth < operand_levels.size(); ++depth)
                for (int m : operand_levels[depth].modes) {
                    int mode = output_mode(names.at(static_cast<size_t>(m)));
                    if (mode == ndims || taken[static_cast<size_t>(mode)]) continue;
                    taken[static_cast<size_t>(mode)] = true;
                    bool dense = levels::properties_of(operand_levels[depth]).implicit;
                    placed.push_back({static_cast<double>(depth) / static_cast<double>(operand_levels.size()),
                                      {dense ? "dense" : "sparselist", {mode}, 0}});
                }
        }
        for (int mode = 0; mode < ndims; ++mode)
            if (!taken[static_cast<size_t>(mode)]) placed.push_back({1.0, {"sparselist", {mode}, 0}});
        std::stable_sort(placed.begin(), placed.end(),
                         [](const Placed& a, const Placed& b) { return a.depth < b.depth; });
        for (auto& p : placed) levels.push_back(p.level);
    }
    Format f(levels, Leaf::Element);
    return levels::all_levels_implicit(f) ? Format::dense(ndims) : f;
}

} // namespace siskin
