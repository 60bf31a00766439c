#include "distributed/parallel_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "distributed/agreement.hpp"
#include "io/frostt_entries.hpp"
#include "io/matrix_market_entries.hpp"
#include "io/text_scanner.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

namespace {

// An open file read by byte ranges.
class File {
public:
    explicit File(const std::string& path) : path_(path) {
        fd_ = ::open(path.c_str(), O_RDONLY);
        if (fd_ < 0) throw Error(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
        struct stat st{};
        if (::fstat(fd_, &st) != 0) throw Error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
        size_ = static_cast<int64_t>(st.st_size);
    }
    File(const File&) = delete;
    ~File() { ::close(fd_); }
    int64_t size() const { return size_; }
    // Bytes [begin, end) of the file (fewer at its end).
    std::string read(int64_t begin, int64_t end) const {
        end = std::min(end, size_);
        std::string out(static_cast<size_t>(std::max<int64_t>(end - begin, 0)), '\0');
        size_t done = 0;
        while (done < out.size()) {
            ssize_t n = ::pread(fd_, out.data() + done, out.size() - done,
                                static_cast<off_t>(begin) + static_cast<off_t>(done));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw Error(fmt::format("cannot read '{}': {}", path_, std::strerror(errno)));
            if (n == 0) break;
            done += static_cast<size_t>(n);
        }
        out.resize(done);
        return out;
    }
    // The first line start at or after `at` (a line starts at 0 or after a newline).
    int64_t line_start_from(int64_t at) const {
        if (at <= 0) return 0;
        constexpr int64_t kStep = 1 << 16;
        for (int64_t from = at - 1; from < size_; from += kStep) {
            std::string chunk = read(from, from + kStep);
            size_t nl = chunk.find('\n');
            if (nl != std::string::npos) return from + static_cast<int64_t>(nl) + 1;
        }
        return size_;
    }

private:
    std::string path_;
    int fd_ = -1;
    int64_t size_ = 0;
};

// The preamble of a Matrix Market file: the prefix of the file it takes, read with a prefix that
// doubles until the size line is in it.
struct Preamble {
    io::MatrixMarketPreamble header;
    io::MatrixMarketLayout layout;
    int64_t data_offset = 0; // the byte after the size line
    int64_t data_line = 0;   // the number of the line after the size line
};

Preamble read_preamble(const File& file, const std::string& path, const ReadOptions& options) {
    for (int64_t prefix = 1 << 16;; prefix *= 2) {
        std::string text = file.read(0, prefix);
        bool whole = static_cast<int64_t>(text.size()) == file.size();
        size_t last_newline = text.rfind('\n');
        // Parse only whole lines unless the prefix is the whole file.
        std::string_view lines = whole ? std::string_view(text)
                                 : last_newline == std::string::npos
                                     ? std::string_view()
                                     : std::string_view(text).substr(0, last_newline + 1);
        io::TextScanner sc(lines, path);
        try {
            Preamble p;
            p.header = io::read_matrix_market_preamble(sc);
            p.layout = io::matrix_market_layout(p.header, options, sc);
            if (!p.header.coordinate && p.header.symmetry != io::MatrixMarketSymmetry::General)
                throw Error(fmt::format("{}: a distributed read takes general array files (this "
                                        "one stores a triangle)",
                                        path),
                            Error::Kind::Unsupported);
            // The scanner stands on the size line; the entries start on the next line.
            size_t at = 0;
            for (int64_t line = 1; line < sc.line_number(); ++line) at = lines.find('\n', at) + 1;
            size_t end = lines.find('\n', at);
            p.data_offset = end == std::string_view::npos ? static_cast<int64_t>(lines.size())
                                                          : static_cast<int64_t>(end) + 1;
            p.data_line = sc.line_number() + 1;
            return p;
        } catch (const Error&) {
            if (whole) throw; // the whole file was read: the error is real
        }
    }
}

// This rank's values of a general array file: one value a line, column by column; a value's
// coordinates follow from the number of values before it (MPI_Exscan).
EntryWords read_array_part(io::TextScanner& sc, const io::MatrixMarketPreamble& h,
                           const io::MatrixMarketLayout& layout, EntryWords out, MPI_Comm comm) {
    int rank = 0, p = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    std::vector<Scalar> values;
    collectively(comm, [&] {
        while (sc.next_line()) {
            std::string_view rest = sc.rest();
            if (rest.empty() || rest.front() == '%') continue;
            Scalar v = sc.parse_value(sc.token(), layout.parse_as);
            if (std::string_view extra = sc.token(); !extra.empty())
                sc.fail(fmt::format("unexpected {} after the value (array files hold one value per "
                                    "line)",
                                    quote_input(extra)));
            values.push_back(v.cast(layout.type));
        }
    });
    long long mine = static_cast<long long>(values.size()), before = 0, total = 0;
    MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (rank == 0) before = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
    collectively(comm, [&] {
        // rows x cols was checked against the file's size by the preamble's reader only for a
        // serial read; here each value's index is checked instead.
        __int128 expected = static_cast<__int128>(h.rows) * h.cols;
        if (total > expected && before + mine > expected)
            throw Error(fmt::format("{}: more values than the {} the size line (line {}) implies",
                                    sc.name(), static_cast<long long>(expected), h.size_line));
        if (total < expected && rank == p - 1)
            sc.fail(fmt::format("the file ends after {} of the {} values the size line (line {}) "
                                "implies",
                                total, static_cast<long long>(expected), h.size_line));
        bool vector = layout.shape.size() == 1;
        for (size_t k = 0; k < values.size(); ++k) {
            int64_t at = before + static_cast<int64_t>(k), i = at % h.rows, j = at / h.rows;
            if (values[k].same_value(layout.fill)) continue;
            if (vector) out.add(layout.column_vector ? i : j, 0, values[k]);
            else out.add(i, j, values[k]);
        }
    });
    return out;
}

} // namespace

namespace {

// This rank's share of the bytes [data_offset, end of file), split evenly: the lines that start
// in it, and the number of newlines in them.
struct Share {
    std::string text;
    long long newlines = 0;
};

Share read_share(const File& file, int64_t data_offset, int rank, int p) {
    int64_t bytes = file.size() - data_offset;
    auto nominal = [&](int r) { return data_offset + static_cast<int64_t>(static_cast<__int128>(bytes) * r / p); };
    int64_t first = rank == 0 ? data_offset : file.line_start_from(nominal(rank));
    int64_t last = rank == p - 1 ? file.size() : file.line_start_from(nominal(rank + 1));
    Share s;
    s.text = file.read(first, std::max(last, first));
    s.newlines = static_cast<long long>(std::count(s.text.begin(), s.text.end(), '\n'));
    return s;
}

// The number of lines before this rank's share, in the whole of the shares.
long long lines_before(long long newlines, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    long long before = 0;
    MPI_Exscan(&newlines, &before, 1, MPI_LONG_LONG, MPI_SUM, comm);
    return rank == 0 ? 0 : before;
}

// The comments before a .tns file's first entry, and where that entry is.
struct FrosttPreamble {
    std::optional<std::vector<int64_t>> shape;
    std::optional<std::pair<std::string, int64_t>> fill_text;
    int nd = -1;             // from the shape comment, the read options, or the first entry
    int64_t data_offset = 0; // the first entry line's first byte (the file's size when none)
    int64_t data_line = 1;
};

FrosttPreamble read_frostt_preamble(const File& file, const std::string& path, const ReadOptions& options) {
    for (int64_t prefix = 1 << 16;; prefix *= 2) {
        std::string text = file.read(0, prefix);
        bool whole = static_cast<int64_t>(text.size()) == file.size();
        io::TextScanner sc(text, path);
        FrosttPreamble p;
        size_t offset = 0;
        bool found = false;
        while (sc.next_line()) {
            std::string_view line = sc.line();
            size_t start = offset;
            offset = static_cast<size_t>(line.data() - text.data()) + line.size();
            offset = std::min(text.find('\n', offset) == std::string::npos ? text.size() : text.find('\n', offset) + 1,
                              text.size());
            bool complete = whole || text.find('\n', start) != std::string::npos;
            if (!complete) break; // the line goes on past the prefix
            std::string_view rest = sc.rest();
            if (rest.empty()) continue;
            if (rest.front() == '#') {
                bool had_shape = p.shape.has_value();
                io::parse_frostt_comment(sc, rest.substr(1), p.shape, p.fill_text);
                if (!had_shape && p.shape) {
                    io::check_frostt_rank(sc, static_cast<int64_t>(p.shape->size()));
                    if (options.shape && *options.shape != *p.shape)
                        sc.fail(fmt::format("the file's shape [{}] differs from the requested shape [{}]",
                                            fmt::join(*p.shape, ", "), fmt::join(*options.shape, ", ")));
                }
                continue;
            }
            p.data_offset = static_cast<int64_t>(start);
            p.data_line = sc.line_number();
            int64_t fields = 0;
            for (std::string_view tok = sc.token(); !tok.empty(); tok = sc.token()) ++fields;
            int64_t rank = p.shape ? static_cast<int64_t>(p.shape->size())
                           : options.shape ? static_cast<int64_t>(options.shape->size())
                                           : fields - 1;
            io::check_frostt_rank(sc, rank);
            p.nd = static_cast<int>(rank);
            found = true;
            break;
        }
        if (found) return p;
        if (whole) {
            p.data_offset = file.size();
            p.data_line = sc.line_number();
            p.nd = p.shape ? static_cast<int>(p.shape->size()) : options.shape ? static_cast<int>(options.shape->size()) : -1;
            return p;
        }
    }
}

// This rank's entries of a .tns file.
EntryWords read_frostt_part(const std::string& path, MPI_Comm comm, const ReadOptions& options) {
    int p = 0, rank = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    std::optional<File> file;
    FrosttPreamble pre;
    Share share;
    ValueType type = options.type.value_or(ValueType::Float64);
    int wanted = options.ndims.value_or(2);
    collectively(comm, [&] {
        file.emplace(path);
        pre = read_frostt_preamble(*file, path, options);
        share = read_share(*file, pre.data_offset, rank, p);
    });
    io::TextScanner sc(share.text, path, pre.data_line + lines_before(share.newlines, comm));
    std::vector<int64_t> largest, coords;
    std::vector<Scalar> values;
    collectively(comm, [&] {
        const std::vector<int64_t>* shape = pre.shape ? &*pre.shape : options.shape ? &*options.shape : nullptr;
        std::vector<std::string_view> tokens;
        std::optional<std::vector<int64_t>> late_shape;
        std::optional<std::pair<std::string, int64_t>> late_fill;
        while (sc.next_line()) {
            std::string_view rest = sc.rest();
            if (rest.empty()) continue;
            if (rest.front() == '#') {
                io::parse_frostt_comment(sc, rest.substr(1), late_shape, late_fill);
                if (late_shape)
                    sc.fail(pre.shape ? "a second shape comment" : "the shape comment must come before the entries");
                if (late_fill)
                    throw Error(fmt::format("{}:{}: a fill comment after the first entry (a distributed read "
                                            "takes it before the entries)",
                                            path, sc.line_number()),
                                Error::Kind::Unsupported);
                continue;
            }
            tokens.clear();
            for (std::string_view tok = sc.token(); !tok.empty(); tok = sc.token()) tokens.push_back(tok);
            Scalar value;
            io::parse_frostt_entry(sc, tokens, pre.nd, shape, type, largest, coords, value);
            values.push_back(value);
        }
    });
    EntryWords out;
    out.type = type;
    std::vector<long long> mine(static_cast<size_t>(std::max(pre.nd, 0)), 0), all(mine.size(), 0);
    for (size_t m = 0; m < largest.size(); ++m) mine[m] = largest[m];
    MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_LONG_LONG, MPI_MAX, comm);
    collectively(comm, [&] {
        std::vector<int64_t> shape = pre.shape ? *pre.shape
                                     : options.shape ? *options.shape
                                                     : std::vector<int64_t>(all.begin(), all.end());
        if (pre.nd < 0)
            throw Error(fmt::format("{}: no entries and no shape: give the shape in a '# shape: ...' comment "
                                    "or in the read options",
                                    path));
        if (static_cast<int>(shape.size()) != wanted)
            throw Error(fmt::format("'{}' holds a tensor of {} dimensions; a distributed {} has {}", path,
                                    shape.size(), wanted == 2 ? "matrix" : "vector", wanted));
        out.shape = wanted == 2 ? shape : std::vector<int64_t>{shape[0], 1};
        out.fill = Scalar::zero(type);
        if (options.fill) out.fill = *options.fill;
        else if (pre.fill_text) {
            try {
                out.fill = Scalar::parse(pre.fill_text->first, type);
            } catch (const Error& e) {
                throw Error("fill comment: " + e.message(), Error::Kind::User,
                            SourceLocation{path, pre.fill_text->second, 0});
            }
        }
        for (size_t k = 0; k < values.size(); ++k) {
            if (wanted == 2) out.add(coords[2 * k], coords[2 * k + 1], values[k]);
            else out.add(coords[k], 0, values[k]);
        }
    });
    return out;
}

// This rank's entries of a Matrix Market file.
EntryWords read_matrix_market_part(const std::string& path, MPI_Comm comm, const ReadOptions& options) {
    int p = 0, rank = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    std::optional<File> file;
    Preamble pre;
    Share share;
    collectively(comm, [&] {
        file.emplace(path);
        pre = read_preamble(*file, path, options);
        share = read_share(*file, pre.data_offset, rank, p);
    });
    const std::string& text = share.text;
    long long first_line = pre.data_line + lines_before(share.newlines, comm);

    const io::MatrixMarketPreamble& h = pre.header;
    const io::MatrixMarketLayout& layout = pre.layout;
    EntryWords out;
    out.type = layout.type;
    out.fill = layout.fill;
    out.leaf = layout.format.leaf();
    bool vector = layout.shape.size() == 1;
    out.shape = vector ? std::vector<int64_t>{layout.shape[0], 1} : layout.shape;
    long long parsed = 0;
    io::TextScanner sc(text, path, first_line);
    if (!h.coordinate) return read_array_part(sc, h, layout, std::move(out), comm);
    collectively(comm, [&] {
        auto add = [&](int64_t r, int64_t c, const Scalar& v) {
            Scalar value = v.cast(layout.type);
            if (vector) out.add(layout.column_vector ? r : c, 0, value);
            else out.add(r, c, value);
        };
        while (std::optional<io::MatrixMarketEntry> e = io::read_matrix_market_entry(sc, h, layout)) {
            ++parsed;
            add(e->row, e->col, e->value);
            if (e->mirrored) add(e->col, e->row, e->mirror_value);
        }
    });
    // The entry count of the size line, checked as the serial reader does: the rank that parsed
    // the first entry beyond it names that entry's line.
    long long before = 0, total = 0;
    MPI_Exscan(&parsed, &before, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (rank == 0) before = 0;
    MPI_Allreduce(&parsed, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
    collectively(comm, [&] {
        if (total > h.entries && before + parsed > h.entries) {
            // Parse again up to the first entry past the count, for its line number.
            io::TextScanner again(text, path, first_line);
            for (long long k = before; io::read_matrix_market_entry(again, h, layout); ++k)
                if (k == h.entries)
                    again.fail(fmt::format("more entries than the {} declared on the size line "
                                           "(line {})",
                                           h.entries, h.size_line));
        }
        if (total < h.entries && rank == p - 1)
            sc.fail(fmt::format("the file ends after {} of the {} entries declared on the size "
                                "line (line {})",
                                total, h.entries, h.size_line));
    });
    return out;
}

} // namespace

EntryWords read_my_part(const std::string& path, MPI_Comm comm, const ReadOptions& options) {
    std::string lower = path;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.ends_with(".mtx")) return read_matrix_market_part(path, comm, options);
    if (lower.ends_with(".tns")) return read_frostt_part(path, comm, options);
    collectively(comm, [&] {
        throw Error(fmt::format("'{}': unknown tensor file extension (expected .mtx or .tns)", path));
    });
    return {};
}

} // namespace siskin::distributed
