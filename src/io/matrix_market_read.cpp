// Reading Matrix Market files: coordinate and array; real, integer and pattern; general,
// symmetric and skew-symmetric (expanded to both triangles).
#include <algorithm>
#include <istream>
#include <sstream>

#include <fmt/format.h>

#include "io/checked.hpp"
#include "io/matrix_market_entries.hpp"
#include "io/text_scanner.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin {

namespace {

using Field = io::MatrixMarketField;
using Symmetry = io::MatrixMarketSymmetry;
using Header = io::MatrixMarketPreamble;

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

constexpr std::string_view kBanner =
    "%%MatrixMarket matrix coordinate|array real|integer|pattern general|symmetric|skew-symmetric";

Header parse_banner(io::TextScanner& sc) {
    if (!sc.next_line()) sc.fail(fmt::format("empty file; expected the banner '{}'", kBanner));
    if (lower(sc.token()) != "%%matrixmarket")
        sc.fail(fmt::format("bad banner {}; expected '{}'", quote_input(sc.line()), kBanner));
    Header h;
    // The tokens as written, for messages; lowercased, for matching.
    std::string_view object_text = sc.token(), format_text = sc.token(), field_text = sc.token(),
                     symmetry_text = sc.token();
    std::string object = lower(object_text), format = lower(format_text), field = lower(field_text),
                symmetry = lower(symmetry_text);
    if (object != "matrix")
        sc.fail(fmt::format("bad banner: object {} is not supported (only 'matrix')",
                            quote_input(object_text)));
    if (format == "coordinate") h.coordinate = true;
    else if (format == "array") h.coordinate = false;
    else sc.fail(fmt::format("bad banner: format {} (expected coordinate or array)", quote_input(format_text)));
    if (field == "real" || field == "double") h.field = Field::Real;
    else if (field == "integer") h.field = Field::Integer;
    else if (field == "pattern") h.field = Field::Pattern;
    else if (field == "complex")
        sc.fail("complex Matrix Market files are not supported (siskin has no complex type)");
    else sc.fail(fmt::format("bad banner: field {} (expected real, integer or pattern)", quote_input(field_text)));
    if (symmetry == "general") h.symmetry = Symmetry::General;
    else if (symmetry == "symmetric") h.symmetry = Symmetry::Symmetric;
    else if (symmetry == "skew-symmetric") h.symmetry = Symmetry::Skew;
    else if (symmetry == "hermitian")
        sc.fail("hermitian Matrix Market files are not supported (siskin has no complex type)");
    else
        sc.fail(fmt::format("bad banner: symmetry {} (expected general, symmetric or "
                            "skew-symmetric)",
                            quote_input(symmetry_text)));
    if (!sc.token().empty()) sc.fail(fmt::format("bad banner: unexpected text after '{}'", symmetry));
    if (h.field == Field::Pattern && !h.coordinate)
        sc.fail("bad banner: a pattern matrix must use the coordinate format");
    if (h.field == Field::Pattern && h.symmetry == Symmetry::Skew)
        sc.fail("bad banner: a pattern matrix cannot be skew-symmetric");
    return h;
}

// The next line that is neither blank nor a comment; false at the end of the file. A
// "% fill: VALUE" comment (written by siskin for non-zero fills) is passed to `on_fill`.
template <class OnFill>
bool next_data_line(io::TextScanner& sc, OnFill&& on_fill) {
    while (sc.next_line()) {
        std::string_view rest = sc.rest();
        if (rest.empty()) continue;
        if (rest.front() == '%') {
            rest.remove_prefix(1);
            while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
            if (rest.substr(0, 5) == "fill:") on_fill(rest.substr(5), sc.line_number());
            continue;
        }
        return true;
    }
    return false;
}

// Reads the size line into h.
void parse_size(io::TextScanner& sc, Header& h) {
    Header& s = h;
    s.size_line = sc.line_number();
    std::string_view what = h.coordinate ? "'rows columns entries'" : "'rows columns'";
    auto field = [&](std::string_view name) {
        std::string_view tok = sc.token();
        if (tok.empty()) sc.fail(fmt::format("the size line must be {}", what));
        int64_t v = sc.parse_int(tok, name);
        if (v < 0) sc.fail(fmt::format("negative {} {} on the size line", name, v));
        return v;
    };
    s.rows = field("row count");
    s.cols = field("column count");
    if (h.coordinate) s.entries = field("entry count");
    if (!sc.token().empty()) sc.fail(fmt::format("the size line must be {}", what));
    if (h.symmetry != Symmetry::General && s.rows != s.cols)
        sc.fail(fmt::format("a {} matrix must be square, not {} x {}",
                            h.symmetry == Symmetry::Symmetric ? "symmetric" : "skew-symmetric",
                            s.rows, s.cols));
}

// The type values are parsed in, before conversion to the tensor's type. Integer types and bool
// are read as themselves whatever the field, so a real value that is not a whole number the type
// holds (2.5, inf, nan; for bool anything but 0 and 1) fails on its line instead of being
// converted (TextScanner::parse_value).
ValueType parse_type_for(Field field, ValueType target) {
    if (is_integer(target) || target == ValueType::Bool) return target;
    if (field == Field::Real) return target == ValueType::Float32 ? target : ValueType::Float64;
    return ValueType::Int64;
}

// The mirrored entry of a skew-symmetric file, -v, which must be a value of v's type too: the
// mirror of 1 is -1, which no unsigned type and not bool holds (it used to wrap to 255, or stay
// true).
Scalar negate(const io::TextScanner& sc, const Scalar& v) {
    if (is_float(v.type())) return Scalar::of(-v.as_double()).cast(v.type());
    if (v.same_value(Scalar::zero(v.type()))) return v;
    int64_t negated = 0;
    bool fits = is_signed_integer(v.type()) && !__builtin_sub_overflow(int64_t{0}, v.as_int(), &negated) &&
                Scalar::of(negated).cast(v.type()).as_int() == negated;
    if (!fits)
        sc.fail(fmt::format("the mirror of value {} in a skew-symmetric file is its negative, which "
                            "type {} cannot hold",
                            v.to_string(), type_name(v.type())));
    return Scalar::of(negated).cast(v.type());
}

} // namespace

io::MatrixMarketPreamble io::read_matrix_market_preamble(io::TextScanner& sc) {
    Header h = parse_banner(sc);
    auto on_fill = [&](std::string_view v, int64_t line) {
        while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
        h.fill_text = {std::string(v), line};
    };
    if (!next_data_line(sc, on_fill)) sc.fail("missing size line");
    parse_size(sc, h);
    return h;
}

io::MatrixMarketLayout io::matrix_market_layout(const io::MatrixMarketPreamble& h,
                                                const ReadOptions& options,
                                                const io::TextScanner& sc) {
    MatrixMarketLayout l;
    int wanted = options.ndims.value_or(2);
    if (wanted != 1 && wanted != 2)
        throw Error(fmt::format("{}: a Matrix Market file holds 1 or 2 dimensions, not {}",
                                sc.name(), wanted));
    if (wanted == 1 && h.rows != 1 && h.cols != 1)
        sc.fail_at(h.size_line, fmt::format("a {} x {} matrix is not a vector (expected n x 1 or "
                                            "1 x n)",
                                            h.rows, h.cols));
    // One of rows and cols is 1 for a vector, so the product cannot overflow.
    l.shape = wanted == 1 ? std::vector<int64_t>{h.rows * h.cols}
                          : std::vector<int64_t>{h.rows, h.cols};
    l.column_vector = h.cols == 1;
    l.type = options.type.value_or(h.field == Field::Real      ? ValueType::Float64
                                   : h.field == Field::Integer ? ValueType::Int64
                                                               : ValueType::Bool);
    l.fill = Scalar::zero(l.type);
    if (options.fill) l.fill = *options.fill;
    else if (h.fill_text) {
        try {
            l.fill = Scalar::parse(h.fill_text->first, l.type);
        } catch (const Error& e) {
            sc.fail_at(h.fill_text->second, "fill comment: " + e.message());
        }
    }
    bool pattern_leaf = h.field == Field::Pattern && l.type == ValueType::Bool &&
                        l.fill.same_value(Scalar::of(false));
    l.format = options.format ? *options.format
               : !h.coordinate ? Format::dense(wanted)
               : wanted == 1   ? Format::csf(1)
                               : Format::csr();
    if (!options.format && pattern_leaf) l.format = Format(l.format.levels(), Leaf::Pattern);
    l.parse_as = parse_type_for(h.field, l.type);
    return l;
}

std::optional<io::MatrixMarketEntry> io::read_matrix_market_entry(io::TextScanner& sc,
                                                                  const io::MatrixMarketPreamble& h,
                                                                  const io::MatrixMarketLayout& l) {
    auto ignore_fill = [](std::string_view, int64_t) {};
    if (!next_data_line(sc, ignore_fill)) return std::nullopt;
    auto index = [&](std::string_view what, int64_t extent) {
        std::string_view tok = sc.token();
        if (tok.empty()) sc.fail(fmt::format("missing {}", what));
        int64_t v = sc.parse_int(tok, what);
        if (v == 0) sc.fail(fmt::format("{} 0: Matrix Market indices start at 1", what));
        if (v < 0 || v > extent) sc.fail(fmt::format("{} {} is out of range 1..{}", what, v, extent));
        return v - 1;
    };
    MatrixMarketEntry e;
    e.row = index("row index", h.rows);
    e.col = index("column index", h.cols);
    e.value = Scalar::of(true);
    if (h.field != Field::Pattern) {
        std::string_view tok = sc.token();
        if (tok.empty()) sc.fail("missing value (the file's field is not pattern)");
        e.value = sc.parse_value(tok, l.parse_as);
    }
    if (std::string_view extra = sc.token(); !extra.empty())
        sc.fail(h.field == Field::Pattern
                    ? fmt::format("unexpected value {} on a line of a pattern file", quote_input(extra))
                    : fmt::format("unexpected {} after the value", quote_input(extra)));
    if (h.symmetry == Symmetry::Skew && e.row == e.col)
        sc.fail(fmt::format("entry ({}, {}) on the diagonal of a skew-symmetric matrix", e.row + 1,
                            e.col + 1));
    bool mirrored = h.symmetry != Symmetry::General;
    if (mirrored && e.row < e.col)
        sc.fail(fmt::format("entry ({}, {}) above the diagonal: a {} file stores only the lower "
                            "triangle",
                            e.row + 1, e.col + 1,
                            h.symmetry == Symmetry::Skew ? "skew-symmetric" : "symmetric"));
    e.mirrored = mirrored && e.row != e.col;
    if (e.mirrored) e.mirror_value = h.symmetry == Symmetry::Skew ? negate(sc, e.value) : e.value;
    return e;
}

namespace {

Tensor read_text(std::string_view text, const std::string& name, const ReadOptions& options) {
    io::TextScanner sc(text, name);
    Header h = io::read_matrix_market_preamble(sc);
    io::MatrixMarketLayout layout = io::matrix_market_layout(h, options, sc);
    const Header& size = h;
    int wanted = static_cast<int>(layout.shape.size());
    const std::vector<int64_t>& shape = layout.shape;
    ValueType type = layout.type, parse_as = layout.parse_as;
    const Scalar& fill = layout.fill;
    const Format& format = layout.format;

    auto build = [&](auto&& make) -> Tensor {
        try {
            return make();
        } catch (const Error& e) {
            throw Error(e.message(), e.kind(), SourceLocation{name, 0, 0});
        }
    };

    if (h.coordinate) {
        CoordinateList list;
        list.ndims = wanted;
        bool mirrored = h.symmetry != Symmetry::General;
        // The size line is a claim, not a fact: each entry takes at least two bytes ("1\n"), so
        // the file's unread bytes bound what to reserve, whatever count the header declares.
        size_t reserve = std::min({static_cast<size_t>(size.entries), size_t{1} << 26,
                                   sc.bytes_left() / 2 + 1});
        list.coords.reserve(reserve * (mirrored ? 2 : 1) * static_cast<size_t>(wanted));
        list.values.reserve(reserve * (mirrored ? 2 : 1));
        int64_t count = 0;
        auto add = [&](int64_t r, int64_t c, const Scalar& value) {
            if (wanted == 1) list.coords.push_back(layout.column_vector ? r : c);
            else {
                list.coords.push_back(r);
                list.coords.push_back(c);
            }
            list.values.push_back(value);
        };
        while (std::optional<io::MatrixMarketEntry> e = io::read_matrix_market_entry(sc, h, layout)) {
            if (count == size.entries)
                sc.fail(fmt::format("more entries than the {} declared on the size line (line {})",
                                    size.entries, size.size_line));
            ++count;
            add(e->row, e->col, e->value);
            if (e->mirrored) add(e->col, e->row, e->mirror_value);
        }
        if (count < size.entries)
            sc.fail(fmt::format("the file ends after {} of the {} entries declared on the size "
                                "line (line {})",
                                count, size.entries, size.size_line));
        return build([&] {
            return Tensor::from_coordinates(shape, type, fill, format, list, options.duplicates);
        });
    }

    // Array: the stored triangle (or everything), column by column. Every size below comes from
    // the size line, so each product is checked: one that wraps would allocate a small buffer
    // that the values then overrun.
    int64_t n = size.rows;
    auto too_large = [&](std::string_view what) {
        sc.fail_at(size.size_line, fmt::format("a {} x {} array is too large: {} does not fit a 64-bit "
                                          "integer",
                                          size.rows, size.cols, what));
    };
    std::optional<int64_t> elements = io::checked_mul(size.rows, size.cols);
    if (!elements) too_large("rows x columns");
    // n(n+1)/2 and n(n-1)/2, halving the even factor first so that no step overflows early.
    auto triangle = [&](int64_t a, int64_t b) {
        std::optional<int64_t> t = a % 2 == 0 ? io::checked_mul(a / 2, b) : io::checked_mul(a, b / 2);
        if (!t) too_large("the number of stored values");
        return *t;
    };
    int64_t expected = h.symmetry == Symmetry::General     ? *elements
                       : h.symmetry == Symmetry::Symmetric ? triangle(n, n + 1)
                       : n == 0                            ? 0
                                                           : triangle(n, n - 1);
    // Each value takes a line of at least two bytes (one for the last), so a file cannot hold
    // more values than that: refuse before allocating the dense buffer, not after.
    if (expected > 0 && static_cast<uint64_t>(expected - 1) > text.size() / 2)
        sc.fail_at(size.size_line, fmt::format("the size line declares a {} x {} array ({} values), but "
                                          "the file has only {} bytes",
                                          size.rows, size.cols, expected, text.size()));
    std::vector<Scalar> dense;
    try {
        dense.assign(static_cast<size_t>(*elements), Scalar::zero(parse_as));
    } catch (const std::exception&) {
        sc.fail_at(size.size_line, fmt::format("a {} x {} array is too large", size.rows, size.cols));
    }
    int64_t count = 0, i = 0, j = 0;
    auto ignore_fill = [](std::string_view, int64_t) {};
    auto advance = [&] {
        ++i;
        if (i == size.rows) {
            ++j;
            i = h.symmetry == Symmetry::General ? 0 : h.symmetry == Symmetry::Symmetric ? j : j + 1;
        }
    };
    if (h.symmetry == Symmetry::Skew) i = 1;
    while (next_data_line(sc, ignore_fill)) {
        if (count == expected)
            sc.fail(fmt::format("more values than the {} the size line (line {}) implies",
                                expected, size.size_line));
        Scalar v = sc.parse_value(sc.token(), parse_as);
        if (std::string_view extra = sc.token(); !extra.empty())
            sc.fail(fmt::format("unexpected {} after the value (array files hold one value per "
                                "line)",
                                quote_input(extra)));
        dense[static_cast<size_t>(i * size.cols + j)] = v;
        if (h.symmetry == Symmetry::Symmetric) dense[static_cast<size_t>(j * size.cols + i)] = v;
        if (h.symmetry == Symmetry::Skew) dense[static_cast<size_t>(j * size.cols + i)] = negate(sc, v);
        ++count;
        advance();
    }
    if (count < expected)
        sc.fail(fmt::format("the file ends after {} of the {} values the size line (line {}) "
                            "implies",
                            count, expected, size.size_line));
    return build([&] { return Tensor::from_dense(shape, type, fill, format, dense); });
}

} // namespace

Tensor read_matrix_market(const std::string& path, const ReadOptions& options) {
    return read_text(io::read_file(path), path, options);
}

Tensor read_matrix_market(std::istream& in, const std::string& name, const ReadOptions& options) {
    std::ostringstream text;
    text << in.rdbuf();
    return read_text(text.str(), name, options);
}

} // namespace siskin
