#include "arguments.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/value.hpp"

namespace siskin::cli {

std::pair<std::string, std::string> parse_assignment(const std::string& text,
                                                     const std::string& option) {
    auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw Error(fmt::format("{} expects NAME=VALUE, got '{}'", option, text));
    return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<int64_t> parse_shape(const std::string& text, int ndims, const std::string& what) {
    std::vector<int64_t> shape;
    size_t at = 0;
    for (;;) {
        size_t x = text.find('x', at);
        std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
        int64_t n = 0;
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
        if (part.empty() || ec != std::errc() || end != part.data() + part.size() || n < 0)
            throw Error(fmt::format("{}: '{}' is not a size (a shape is sizes joined by x, as in "
                                    "30x30)",
                                    what, part));
        shape.push_back(n);
        if (x == std::string::npos) break;
        at = x + 1;
    }
    if (static_cast<int>(shape.size()) != ndims)
        throw Error(fmt::format("{}: the shape has {} sizes, but the program uses the tensor with "
                                "{} subscripts",
                                what, shape.size(), ndims));
    return shape;
}

namespace {
// Paths are quoted whole (up to PATH_MAX): a message must say which file.
constexpr size_t kPathBytes = 4096;
} // namespace

bool is_format_spelling(std::string_view text) {
    // A spelling fits one number of dimensions ("csr" two, "coo(0,1,2)" three), which a path
    // argument does not tell; any number a tensor file can have will do.
    for (int ndims = 1; ndims <= 16; ++ndims) {
        try {
            Format::parse(text, ndims);
            return true;
        } catch (const Error&) {
        }
    }
    return false;
}

FileArgument parse_file_argument(const std::string& text, const std::string& option) {
    FileArgument arg{text, std::nullopt};
    // The format follows the last ':' (format spellings never contain one, and general ones
    // contain '/', so the split cannot look for the end of the path instead), but only when
    // it is a format spelling: in "out_0:5:2.tns" every ':' belongs to the path.
    auto colon = text.rfind(':');
    if (colon != std::string::npos && colon + 1 == text.size())
        throw Error(fmt::format("{} expects FILE[:FORMAT], got {} (nothing after the ':')", option,
                                quote_input(text, kPathBytes)));
    if (colon != std::string::npos && is_format_spelling(text.substr(colon + 1))) {
        arg.path = text.substr(0, colon);
        arg.format = text.substr(colon + 1);
    }
    if (arg.path.empty())
        throw Error(
            fmt::format("{} expects FILE[:FORMAT], got {}", option, quote_input(text, kPathBytes)));
    return arg;
}

TensorArgument parse_tensor_argument(const std::string& text, const std::string& option) {
    auto [name, rest] = parse_assignment(text, option);
    FileArgument file = parse_file_argument(rest, option);
    return {name, file.path, file.format};
}

Tensor read_file_argument(const std::string& path, const ReadOptions& options) {
    std::error_code ec;
    auto colon = path.rfind(':');
    if (colon != std::string::npos && !std::filesystem::exists(path, ec) &&
        std::filesystem::exists(path.substr(0, colon), ec))
        throw Error(fmt::format("{} does not exist, and {} after its last ':' is not a format "
                                "spelling (see `Formats` in README.md), so it is not {} read in "
                                "that format",
                                quote_input(path, kPathBytes), quote_input(path.substr(colon + 1)),
                                quote_input(path.substr(0, colon), kPathBytes)));
    return read_tensor(path, options);
}

std::map<std::string, int> access_arity(const ir::Program& program) {
    std::map<std::string, int> arity;
    ir::visit(program.body, {}, [&](const ir::Expr& e) {
        if (const auto* a = e->as<ir::Access>())
            arity.emplace(a->tensor, static_cast<int>(a->indices.size()));
    });
    return arity;
}

Scalar parse_fill(const std::string& text, std::optional<ValueType> type) {
    if (type) return Scalar::parse(text, *type);
    if (text == "true" || text == "false") return Scalar::parse(text, ValueType::Bool);
    return Scalar::parse(text, ValueType::Float64);
}

int dimensions_of(const std::map<std::string, int>& arity, const std::string& name,
                  const std::string& option) {
    auto it = arity.find(name);
    if (it == arity.end())
        throw Error(fmt::format("{} names tensor '{}', which the program does not use", option, name));
    return it->second;
}

std::optional<ValueType> TensorOptions::type_of(const std::string& name) const {
    auto it = types.find(name);
    return it == types.end() ? std::nullopt : std::optional(it->second);
}

TensorOptions parse_tensor_options(const std::map<std::string, int>& arity,
                                   const std::vector<std::string>& types,
                                   const std::vector<std::string>& fills) {
    TensorOptions o;
    for (const auto& t : types) {
        auto [name, spelling] = parse_assignment(t, "--type");
        dimensions_of(arity, name, "--type");
        o.types[name] = parse_type(spelling);
    }
    for (const auto& f : fills) {
        auto [name, value] = parse_assignment(f, "--fill");
        dimensions_of(arity, name, "--fill");
        o.fills[name] = parse_fill(value, o.type_of(name));
    }
    return o;
}

void add_declared_fills(const ir::Program& program, TensorOptions& o) {
    for (const auto& decl : program.fills) {
        auto it = o.fills.find(decl.tensor);
        if (it == o.fills.end()) {
            o.fills.emplace(decl.tensor, decl.value);
        } else if (!decl.matches(it->second) && !it->second.same_value(decl.value)) {
            throw Error(fmt::format("--fill {}={} contradicts the program's declaration {}",
                                    decl.tensor, it->second.to_string(), decl.describe()));
        }
    }
}

std::string read_text_file(const std::string& path, const std::string& what) {
    std::string cannot = fmt::format("cannot read {} file {}", what, quote_input(path, kPathBytes));
    // A directory opens and reads as empty text, which would be an empty program.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(cannot + ": it is a directory");
    std::ifstream in(path);
    if (!in) throw Error(cannot);
    std::stringstream text;
    text << in.rdbuf();
    if (in.bad()) throw Error(cannot);
    return text.str();
}

std::string program_text(const std::string& argument) {
    bool from_file = !argument.empty() && argument[0] == '@';
    std::string text = from_file ? read_text_file(argument.substr(1), "program") : argument;
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw Error(from_file ? fmt::format("the program file {} is empty",
                                            quote_input(argument.substr(1), kPathBytes))
                              : std::string("the program is empty"));
    return text;
}

bool list_stages(const std::string& dump_after) {
    if (dump_after != "list") return false;
    std::cout << fmt::format("{}\n", fmt::join(compiler_passes(), "\n"));
    return true;
}

} // namespace siskin::cli
