// Format: presets, validation, and the spelling described in format.hpp.
#include "siskin/format.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "levels/leaf_format.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin {

namespace {

// Modes must be exactly 0..n-1 in some order; `where` prefixes the message.
void check_permutation(const std::vector<int>& modes, int ndims, const std::string& where) {
    std::vector<bool> seen(static_cast<size_t>(std::max(ndims, 0)), false);
    for (int m : modes) {
        if (m < 0 || m >= ndims)
            throw Error(fmt::format("{}mode {} is out of range for a {}-dimensional tensor "
                                    "(modes are 0..{})",
                                    where, m, ndims, ndims - 1));
        if (seen[static_cast<size_t>(m)])
            throw Error(fmt::format("{}mode {} appears twice; modes must be a permutation of "
                                    "0..{}",
                                    where, m, ndims - 1));
        seen[static_cast<size_t>(m)] = true;
    }
}

std::vector<int> iota_modes(int n) {
    std::vector<int> modes(static_cast<size_t>(std::max(n, 0)));
    std::iota(modes.begin(), modes.end(), 0);
    return modes;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (true) {
        size_t at = s.find(sep, start);
        out.push_back(trim(s.substr(start, at == std::string_view::npos ? s.size() - start
                                                                        : at - start)));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

// One "name(modes)@bits" component taken apart.
struct Component {
    std::string_view name;
    std::optional<std::vector<int>> modes; // absent when there are no parentheses
    int index_bits = 0;
};

Component parse_component(std::string_view text, const std::string& where) {
    Component c;
    size_t paren = text.find('('), at = text.find('@');
    c.name = trim(text.substr(0, std::min(paren, at)));
    if (c.name.empty()) throw Error(fmt::format("{}'{}' has no level name", where, text));
    if (paren != std::string_view::npos && (at == std::string_view::npos || paren < at)) {
        size_t close = text.find(')', paren);
        if (close == std::string_view::npos)
            throw Error(fmt::format("{}'{}' is missing ')'", where, text));
        if (!trim(text.substr(close + 1, at == std::string_view::npos ? std::string_view::npos
                                                                       : at - close - 1))
                 .empty())
            throw Error(fmt::format("{}unexpected text after ')' in '{}'", where, text));
        std::vector<int> modes;
        std::string_view inside = trim(text.substr(paren + 1, close - paren - 1));
        if (!inside.empty()) {
            for (std::string_view m : split(inside, ',')) {
                int v = 0;
                auto [ptr, ec] = std::from_chars(m.data(), m.data() + m.size(), v);
                if (m.empty() || ec != std::errc() || ptr != m.data() + m.size())
                    throw Error(fmt::format("{}'{}' is not a mode number in '{}' (modes are "
                                            "dimension numbers from 0)",
                                            where, m, text));
                modes.push_back(v);
            }
        }
        c.modes = std::move(modes);
    }
    if (at != std::string_view::npos) {
        std::string_view bits = trim(text.substr(at + 1));
        if (bits == "32") c.index_bits = 32;
        else if (bits == "64") c.index_bits = 64;
        else
            throw Error(fmt::format("{}bad index width '@{}' in '{}' (expected @32 or @64)", where,
                                    bits, text));
    }
    return c;
}

const Leaf* parse_leaf(std::string_view name) {
    static const Leaf element = Leaf::Element, pattern = Leaf::Pattern;
    if (const auto* f = levels::find_leaf_format(name))
        return f->leaf() == Leaf::Element ? &element : &pattern;
    return nullptr;
}

// A preset such as "csr@32" or "csf(2,0,1)"; nullopt when the name is not a preset.
std::optional<std::vector<LevelSpec>> parse_preset(const Component& c, int ndims,
                                                   const std::string& where) {
    static const std::string_view two_d[] = {"csr", "csc", "dcsr", "dcsc"};
    bool is_two_d = std::find(std::begin(two_d), std::end(two_d), c.name) != std::end(two_d);
    bool known = is_two_d || c.name == "dense" || c.name == "coo" || c.name == "csf";
    if (!known || (c.modes && c.name != "csf")) return std::nullopt;
    if (is_two_d && ndims != 2)
        throw Error(fmt::format("{}preset '{}' is for 2-dimensional tensors, but the tensor has {} "
                                "dimensions",
                                where, c.name, ndims));
    Format f;
    if (c.name == "dense") f = Format::dense(ndims);
    else if (c.name == "coo") f = Format::coo(ndims);
    else if (c.name == "csr") f = Format::csr();
    else if (c.name == "csc") f = Format::csc();
    else if (c.name == "dcsr") f = Format::dcsr();
    else if (c.name == "dcsc") f = Format::dcsc();
    else {
        std::vector<int> order = c.modes ? *c.modes : iota_modes(ndims);
        if (static_cast<int>(order.size()) != ndims)
            throw Error(fmt::format("{}csf mode order has {} modes, but the tensor has {} "
                                    "dimensions",
                                    where, order.size(), ndims));
        check_permutation(order, ndims, where);
        f = Format::csf(ndims, order);
    }
    std::vector<LevelSpec> levels = f.levels();
    for (auto& l : levels) l.index_bits = c.index_bits;
    return levels;
}

} // namespace

Format::Format(std::vector<LevelSpec> levels, Leaf leaf) : levels_(std::move(levels)), leaf_(leaf) {
    std::vector<int> all;
    for (LevelSpec& l : levels_) {
        const levels::LevelFormat& f = levels::level_format(l.kind);
        l.kind = std::string(f.name());
        levels::LevelProperties p = f.properties();
        int n = static_cast<int>(l.modes.size());
        if (n < p.min_modes || n > p.max_modes) {
            if (p.min_modes == p.max_modes)
                throw Error(fmt::format("a {} level stores exactly {} mode{}, not {}", l.kind,
                                        p.min_modes, p.min_modes == 1 ? "" : "s", n));
            throw Error(fmt::format("a {} level stores at least {} mode{}, not {}", l.kind,
                                    p.min_modes, p.min_modes == 1 ? "" : "s", n));
        }
        if (l.index_bits != 0 && l.index_bits != 32 && l.index_bits != 64)
            throw Error(fmt::format("bad index width {} for a {} level (expected 32 or 64)",
                                    l.index_bits, l.kind));
        all.insert(all.end(), l.modes.begin(), l.modes.end());
    }
    check_permutation(all, static_cast<int>(all.size()), "");
    // Some levels accept only certain places in the tree (runlist: last).
    for (size_t k = 0; k < levels_.size(); ++k)
        levels::level_format(levels_[k].kind).check_place(*this, k);
}

Format Format::parse(std::string_view spelling, int ndims) {
    std::string where = fmt::format("format '{}': ", spelling);
    if (ndims < 0) throw Error(fmt::format("{}negative number of dimensions {}", where, ndims));
    std::vector<std::string_view> parts = split(spelling, '/');
    if (parts.size() == 1 && parts[0].empty()) throw Error("empty format spelling");
    for (std::string_view p : parts)
        if (p.empty()) throw Error(fmt::format("{}empty level between '/'", where));

    Leaf leaf = Leaf::Element;
    if (const Leaf* l = parse_leaf(parts.back())) {
        leaf = *l;
        parts.pop_back();
    }
    for (std::string_view p : parts)
        if (parse_leaf(p))
            throw Error(fmt::format("{}the leaf '{}' must come last", where, p));

    std::vector<LevelSpec> levels;
    if (!parts.empty()) {
        Component first = parse_component(parts[0], where);
        if (auto preset = parse_preset(first, ndims, where)) {
            if (parts.size() > 1)
                throw Error(fmt::format("{}preset '{}' cannot be followed by levels (only by a "
                                        "leaf: {})",
                                        where, parts[0], levels::known_leaf_names()));
            levels = std::move(*preset);
        } else {
            for (std::string_view p : parts) {
                Component c = parse_component(p, where);
                const levels::LevelFormat* f = levels::find_level_format(c.name);
                if (!f)
                    throw Error(fmt::format("{}unknown level '{}' (known levels: {}; leaves: {}; "
                                            "presets: dense, csr, csc, dcsr, dcsc, coo, csf)",
                                            where, c.name, levels::known_level_names(),
                                            levels::known_leaf_names()));
                if (!c.modes)
                    throw Error(fmt::format("{}level '{}' needs its modes in parentheses, e.g. "
                                            "{}(0)",
                                            where, c.name, c.name));
                levels.push_back({std::string(f->name()), *c.modes, c.index_bits});
            }
        }
    }
    std::vector<int> all;
    for (const LevelSpec& l : levels) all.insert(all.end(), l.modes.begin(), l.modes.end());
    if (static_cast<int>(all.size()) != ndims)
        throw Error(fmt::format("{}the levels store {} mode{}, but the tensor has {} dimension{}",
                                where, all.size(), all.size() == 1 ? "" : "s", ndims,
                                ndims == 1 ? "" : "s"));
    check_permutation(all, ndims, where);
    try {
        return Format(std::move(levels), leaf);
    } catch (const Error& e) {
        throw Error(where + e.message(), e.kind());
    }
}

std::string Format::to_string() const {
    std::string out;
    for (const LevelSpec& l : levels_) {
        if (!out.empty()) out += '/';
        out += fmt::format("{}({})", l.kind, fmt::join(l.modes, ","));
        if (l.index_bits != 0) out += fmt::format("@{}", l.index_bits);
    }
    // The element leaf is the default; it is spelled out only when there is nothing else.
    if (leaf_ == Leaf::Pattern || out.empty()) {
        if (!out.empty()) out += '/';
        out += levels::leaf_format(leaf_).name();
    }
    return out;
}

Format Format::dense(int ndims) {
    std::vector<LevelSpec> levels;
    for (int m = 0; m < ndims; ++m) levels.push_back({"dense", {m}, 0});
    return Format(std::move(levels), Leaf::Element);
}

Format Format::csr() { return Format({{"dense", {0}, 0}, {"sparselist", {1}, 0}}, Leaf::Element); }
Format Format::csc() { return Format({{"dense", {1}, 0}, {"sparselist", {0}, 0}}, Leaf::Element); }
Format Format::dcsr() {
    return Format({{"sparselist", {0}, 0}, {"sparselist", {1}, 0}}, Leaf::Element);
}
Format Format::dcsc() {
    return Format({{"sparselist", {1}, 0}, {"sparselist", {0}, 0}}, Leaf::Element);
}

Format Format::coo(int ndims) {
    if (ndims == 0) return Format({}, Leaf::Element);
    return Format({{"coo", iota_modes(ndims), 0}}, Leaf::Element);
}

Format Format::csf(int ndims, std::vector<int> mode_order) {
    if (mode_order.empty()) mode_order = iota_modes(ndims);
    if (static_cast<int>(mode_order.size()) != ndims)
        throw Error(fmt::format("csf mode order has {} modes, but the tensor has {} dimensions",
                                mode_order.size(), ndims));
    check_permutation(mode_order, ndims, "csf: ");
    std::vector<LevelSpec> levels;
    for (int m : mode_order) levels.push_back({"sparselist", {m}, 0});
    return Format(std::move(levels), Leaf::Element);
}

int Format::ndims() const {
    int n = 0;
    for (const LevelSpec& l : levels_) n += static_cast<int>(l.modes.size());
    return n;
}

std::vector<int> Format::mode_order() const {
    std::vector<int> out;
    for (const LevelSpec& l : levels_) out.insert(out.end(), l.modes.begin(), l.modes.end());
    return out;
}

Format Format::with_index_bits(int bits) const {
    if (bits != 32 && bits != 64)
        throw Error(fmt::format("bad index width {} (expected 32 or 64)", bits));
    Format f = *this;
    for (LevelSpec& l : f.levels_)
        if (l.index_bits == 0) l.index_bits = bits;
    return f;
}

} // namespace siskin
