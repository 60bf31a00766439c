// FROSTT .tns files: one entry per line, 1-based indices then the value. siskin writes a
// "# shape: n1 n2 ..." comment (and "# fill: v" for a non-zero fill) so the file says its shape.
#include <istream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/frostt_entries.hpp"
#include "io/text_scanner.hpp"
#include "io/value_text.hpp"
#include "io/writers.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"
#include "siskin/limits.hpp"

namespace siskin {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::string_view trim(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
}

} // namespace

void io::parse_frostt_comment(io::TextScanner& sc, std::string_view comment,
                              std::optional<std::vector<int64_t>>& shape,
                              std::optional<std::pair<std::string, int64_t>>& fill) {
    comment = trim(comment);
    if (comment.starts_with("shape:")) {
        if (shape) sc.fail("a second shape comment");
        std::vector<int64_t> dims;
        std::string_view list = comment.substr(6);
        while (!(list = trim(list)).empty()) {
            size_t end = list.find_first_of(" \t");
            std::string_view tok = list.substr(0, end);
            list.remove_prefix(tok.size());
            int64_t n = sc.parse_int(tok, "extent in the shape comment");
            if (n < 0) sc.fail(fmt::format("negative extent {} in the shape comment", n));
            dims.push_back(n);
        }
        shape = std::move(dims);
    } else if (comment.starts_with("fill:")) {
        fill = {std::string(trim(comment.substr(5))), sc.line_number()};
    }
}

void io::parse_frostt_entry(const io::TextScanner& sc, const std::vector<std::string_view>& tokens, int nd,
                            const std::vector<int64_t>* shape, ValueType type, std::vector<int64_t>& largest,
                            std::vector<int64_t>& coords, Scalar& value) {
    if (static_cast<int>(tokens.size()) == nd) sc.fail(fmt::format("missing value after the {} indices", nd));
    if (static_cast<int>(tokens.size()) != nd + 1)
        sc.fail(fmt::format("expected {} indices and a value, found {} fields", nd, tokens.size()));
    if (largest.size() != static_cast<size_t>(nd)) largest.assign(static_cast<size_t>(nd), 0);
    for (int m = 0; m < nd; ++m) {
        int64_t v = sc.parse_int(tokens[static_cast<size_t>(m)], "index");
        if (v == 0) sc.fail(fmt::format("index 0 in mode {}: .tns indices start at 1", m));
        if (v < 0) sc.fail(fmt::format("negative index {} in mode {}", v, m));
        if (shape && v > (*shape)[static_cast<size_t>(m)])
            sc.fail(fmt::format("index {} in mode {} is out of range 1..{}", v, m, (*shape)[static_cast<size_t>(m)]));
        largest[static_cast<size_t>(m)] = std::max(largest[static_cast<size_t>(m)], v);
        coords.push_back(v - 1);
    }
    value = sc.parse_value(tokens.back(), type);
}

namespace {

} // namespace

// The rank limit, checked where the rank is first known: a line of 20,000 indices is refused
// there, before anything is built from it.
void io::check_frostt_rank(const io::TextScanner& sc, int64_t rank) {
    try {
        check_rank(rank, "the tensor");
    } catch (const Error& e) {
        sc.fail(e.message());
    }
}

namespace {

Tensor read_text(std::string_view text, const std::string& name, const ReadOptions& options) {
    io::TextScanner sc(text, name);
    std::optional<std::vector<int64_t>> header_shape;
    std::optional<std::pair<std::string, int64_t>> fill_text;
    ValueType type = options.type.value_or(ValueType::Float64);

    CoordinateList list;
    int nd = -1; // unknown until the shape comment or the first entry
    std::vector<int64_t> largest;
    std::vector<std::string_view> tokens;
    while (sc.next_line()) {
        std::string_view rest = sc.rest();
        if (rest.empty()) continue;
        if (rest.front() == '#') {
            bool had_shape = header_shape.has_value();
            io::parse_frostt_comment(sc, rest.substr(1), header_shape, fill_text);
            if (!had_shape && header_shape) {
                if (nd >= 0) sc.fail("the shape comment must come before the entries");
                io::check_frostt_rank(sc, static_cast<int64_t>(header_shape->size()));
                nd = static_cast<int>(header_shape->size());
                if (options.shape && *options.shape != *header_shape)
                    sc.fail(fmt::format("the file's shape {} differs from the requested shape {}",
                                        shape_text(*header_shape), shape_text(*options.shape)));
            }
            continue;
        }
        tokens.clear();
        for (std::string_view tok = sc.token(); !tok.empty(); tok = sc.token()) tokens.push_back(tok);
        if (nd < 0) {
            int64_t rank = options.shape ? static_cast<int64_t>(options.shape->size())
                                         : static_cast<int64_t>(tokens.size()) - 1;
            io::check_frostt_rank(sc, rank);
            nd = static_cast<int>(rank);
        }
        const std::vector<int64_t>* shape = header_shape ? &*header_shape
                                            : options.shape ? &*options.shape
                                                            : nullptr;
        Scalar value;
        io::parse_frostt_entry(sc, tokens, nd, shape, type, largest, list.coords, value);
        list.values.push_back(value);
    }

    std::vector<int64_t> shape;
    if (header_shape) shape = *header_shape;
    else if (options.shape) shape = *options.shape;
    else if (nd >= 0) shape = largest;
    else
        sc.fail("no entries and no shape: give the shape in a '# shape: ...' comment or in the "
                "read options");
    list.ndims = static_cast<int>(shape.size());

    Scalar fill = Scalar::zero(type);
    if (options.fill) fill = *options.fill;
    else if (fill_text) {
        try {
            fill = Scalar::parse(fill_text->first, type);
        } catch (const Error& e) {
            sc.fail_at(fill_text->second, "fill comment: " + e.message());
        }
    }
    Format format = options.format.value_or(Format::coo(static_cast<int>(shape.size())));
    try {
        return Tensor::from_coordinates(shape, type, fill, format, list, options.duplicates);
    } catch (const Error& e) {
        throw Error(e.message(), e.kind(), SourceLocation{name, 0, 0});
    }
}

} // namespace

Tensor read_frostt(const std::string& path, const ReadOptions& options) {
    return read_text(io::read_file(path), path, options);
}

Tensor read_frostt(std::istream& in, const std::string& name, const ReadOptions& options) {
    std::ostringstream text;
    text << in.rdbuf();
    return read_text(text.str(), name, options);
}

std::string io::frostt_text(const Tensor& t) {
    fmt::memory_buffer out;
    auto it = std::back_inserter(out);
    fmt::format_to(it, "# shape:");
    for (int64_t n : t.shape()) fmt::format_to(it, " {}", n);
    fmt::format_to(it, "\n");
    if (!t.fill().same_value(Scalar::zero(t.type())))
        fmt::format_to(it, "# fill: {}\n", io::value_text(t.fill()));
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        for (int64_t i : c) fmt::format_to(it, "{} ", i + 1);
        io::append_value(out, v);
        out.push_back('\n');
    });
    return fmt::to_string(out);
}

void write_frostt(const Tensor& t, const std::string& path) {
    OutputFiles files;
    files.write_text(path, io::frostt_text(t));
    files.commit();
}

} // namespace siskin
