// The registry of level and leaf formats. Registration is an explicit list, not static
// initialisers, because siskin is a static library and the linker drops object files nothing
// refers to.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "levels/leaf_format.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"

// One line per level format; X(name) refers to `const LevelFormat& name##_level()` in the
// level's file (name.cpp, or the name in words: run_list.cpp).
#define SISKIN_LEVEL_FORMATS(X) \
    X(dense)                    \
    X(sparselist)               \
    X(coo)                      \
    X(sparseband)               \
    X(runlist)                  \
    X(sparsebytemap)            \
    X(sparsepoint)              \
    X(sparseinterval)           \
    X(sparserunlist)            \
    X(sparseblocklist)          \
    X(packbits)                 \
    X(sparsehash)

// One line per leaf format; X(name) refers to `const LeafFormat& name##_leaf()` in name.cpp.
#define SISKIN_LEAF_FORMATS(X) \
    X(element)                 \
    X(pattern)

namespace siskin::levels {

#define SISKIN_DECLARE_LEVEL(name) const LevelFormat& name##_level();
#define SISKIN_DECLARE_LEAF(name) const LeafFormat& name##_leaf();
SISKIN_LEVEL_FORMATS(SISKIN_DECLARE_LEVEL)
SISKIN_LEAF_FORMATS(SISKIN_DECLARE_LEAF)
#undef SISKIN_DECLARE_LEVEL
#undef SISKIN_DECLARE_LEAF

const std::vector<const LevelFormat*>& level_formats() {
#define SISKIN_LIST_LEVEL(name) &name##_level(),
    static const std::vector<const LevelFormat*> all = {SISKIN_LEVEL_FORMATS(SISKIN_LIST_LEVEL)};
#undef SISKIN_LIST_LEVEL
    return all;
}

namespace {
const std::vector<const LeafFormat*>& leaf_formats() {
#define SISKIN_LIST_LEAF(name) &name##_leaf(),
    static const std::vector<const LeafFormat*> all = {SISKIN_LEAF_FORMATS(SISKIN_LIST_LEAF)};
#undef SISKIN_LIST_LEAF
    return all;
}
} // namespace

const LevelFormat* find_level_format(std::string_view name) {
    for (const LevelFormat* f : level_formats()) {
        if (f->name() == name) return f;
        for (std::string_view alias : f->aliases())
            if (alias == name) return f;
    }
    return nullptr;
}

const LevelFormat& level_format(std::string_view name) {
    if (const LevelFormat* f = find_level_format(name)) return *f;
    throw Error(fmt::format("unknown level '{}' (known levels: {})", name, known_level_names()));
}

std::string known_level_names() {
    std::string out;
    for (const LevelFormat* f : level_formats()) {
        if (!out.empty()) out += ", ";
        out += f->name();
        auto aliases = f->aliases();
        if (!aliases.empty()) out += fmt::format(" ({})", fmt::join(aliases, ", "));
    }
    return out;
}

LevelProperties properties_of(const LevelSpec& spec) { return level_format(spec.kind).properties(); }

bool all_levels_implicit(const Format& format) {
    return std::all_of(format.levels().begin(), format.levels().end(),
                       [](const LevelSpec& l) { return properties_of(l).implicit; });
}

bool all_levels_take_any_order(const Format& format) {
    return std::none_of(format.levels().begin(), format.levels().end(),
                        [](const LevelSpec& l) { return properties_of(l).append_only; });
}

std::string random_write_formats(int ndims) {
    std::vector<std::string> kinds, examples;
    auto spelled = [&](std::string_view outer, std::string_view last) {
        std::string out;
        for (int k = 0; k < ndims; ++k)
            out += fmt::format("{}{}({})", k ? "/" : "", k + 1 < ndims ? outer : last, k);
        return out;
    };
    for (const LevelFormat* f : level_formats()) {
        if (f->properties().append_only) continue;
        auto aliases = f->aliases();
        kinds.push_back(aliases.empty() ? std::string(f->name()) : fmt::format("{} ({})", f->name(), aliases[0]));
        // The level last under dense ones (the usual output), and every level of its kind.
        std::string under_dense = spelled("dense", f->name());
        examples.push_back(under_dense);
        if (std::string all = spelled(f->name(), f->name()); all != under_dense) examples.push_back(all);
    }
    auto listed = [](const std::vector<std::string>& v, std::string_view last_joint) {
        std::string out;
        for (size_t k = 0; k < v.size(); ++k)
            out += fmt::format("{}{}", k == 0 ? "" : k + 1 == v.size() ? last_joint : ", ", v[k]);
        return out;
    };
    return fmt::format("{}, such as {}", listed(kinds, " or "), listed(examples, " or "));
}

const LeafFormat& leaf_format(Leaf leaf) {
    for (const LeafFormat* f : leaf_formats())
        if (f->leaf() == leaf) return *f;
    SISKIN_ASSERT(false, "leaf kind without a registered leaf format");
}

const LeafFormat* find_leaf_format(std::string_view name) {
    for (const LeafFormat* f : leaf_formats())
        if (f->name() == name) return f;
    return nullptr;
}

std::string known_leaf_names() {
    std::string out;
    for (const LeafFormat* f : leaf_formats()) {
        if (!out.empty()) out += ", ";
        out += f->name();
    }
    return out;
}

} // namespace siskin::levels
