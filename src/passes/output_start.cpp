// with_output_starts: an output spec completed from the tensor the output starts as.
#include "levels/level_format.hpp"
#include "passes/output_start.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "passes/declared_fills.hpp"
#include "siskin/error.hpp"

namespace siskin {

std::map<std::string, OutputSpec> with_output_starts(const ir::Program& program,
                                                     std::map<std::string, OutputSpec> specs) {
    const auto outputs = program.outputs();
    const auto inputs = program.inputs();
    auto contains = [](const std::vector<std::string>& names, const std::string& name) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    for (auto& [name, spec] : specs) {
        if (!spec.start) continue;
        if (!contains(outputs, name)) {
            if (contains(inputs, name))
                throw Error(fmt::format("{} is given a start tensor, but the program only reads "
                                        "{}: only an output can start as an existing tensor",
                                        name, name));
            throw Error(fmt::format("{} is given a start tensor, but the program does not write "
                                    "{}",
                                    name, name));
        }
        const Tensor& t = *spec.start;
        if (spec.shape && *spec.shape != t.shape())
            throw Error(fmt::format("output {} starts as a tensor of shape [{}], but shape [{}] "
                                    "was asked for",
                                    name, fmt::join(t.shape(), ", "), fmt::join(*spec.shape, ", ")));
        if (spec.type && *spec.type != t.type())
            throw Error(fmt::format("output {} starts as a {} tensor, but type {} was asked for",
                                    name, type_name(t.type()), type_name(*spec.type)));
        if (spec.fill) {
            // A fill the start's type cannot hold is a conflict too, not a failed cast.
            bool same = false;
            try {
                same = requested_fill_of_type(name, *spec.fill, t.type()).same(t.fill());
            } catch (const Error&) {
                same = false;
            }
            if (!same)
                throw Error(fmt::format("output {} starts as a tensor with fill {}, but fill {} "
                                        "was asked for",
                                        name, t.fill().to_string(), spec.fill->to_string()));
        }
        if (spec.format && spec.format->ndims() != t.ndims())
            throw Error(fmt::format("output {} starts as a tensor of {} dimensions, but its "
                                    "format {} has {}",
                                    name, t.ndims(), spec.format->to_string(),
                                    spec.format->ndims()));
        spec.shape = t.shape();
        spec.type = t.type();
        spec.fill = t.fill();
        if (!spec.format) spec.format = t.format();
    }
    return specs;
}

bool updates_in_place(const Format& format) {
    if (format.leaf() != Leaf::Element) return false;
    return levels::all_levels_implicit(format);
}

} // namespace siskin
