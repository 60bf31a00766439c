// Defining functions: one process-wide table of user definitions beside the operator registry.
// A name means one thing per process: defining it again is fine with the same definition (the
// same program parsed twice) and an Error with a different one, unless the caller asks to
// replace it.
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "functions/ast.hpp"
#include "functions/operator_adapter.hpp"
#include "functions/parser.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"

namespace siskin {

namespace {

struct Table {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<const FunctionDef>, std::less<>> defs;
};

Table& table() {
    static Table t;
    return t;
}

std::string place(const FunctionDef& def) {
    if (!def.where()) return "in C++";
    const SourceLocation& w = *def.where();
    return fmt::format("at {}:{}:{}", w.file, w.line, w.column);
}

} // namespace

Operator function_operator(const FunctionDef& def) { return functions::build_function(def).op; }

std::shared_ptr<const FunctionDef> find_function(std::string_view name) {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    auto it = t.defs.find(name);
    return it == t.defs.end() ? nullptr : it->second;
}

const Operator& define_function(const FunctionDef& def, Redefinition mode) {
    const std::string& name = def.name();
    if (mode == Redefinition::Refuse) {
        if (auto existing = find_function(name)) {
            if (existing->to_string() == def.to_string()) return find_operator(name);
            throw Error(fmt::format("function {} is already defined differently ({}); give this "
                                    "definition another name",
                                    name, place(*existing)),
                        Error::Kind::User, def.where());
        }
        if (lookup_operator(name))
            throw Error(fmt::format("{} is a builtin operator; give the function another name",
                                    name),
                        Error::Kind::User, def.where());
    }
    // Checking may look up other functions, so it runs outside the lock.
    Operator op = function_operator(def);
    Table& t = table();
    std::lock_guard lock(t.mutex);
    register_operator(std::move(op));
    t.defs[name] = std::make_shared<const FunctionDef>(def);
    return find_operator(name);
}

std::vector<FunctionDef> parse_functions(std::string_view text, std::string_view source_name) {
    auto source = std::make_shared<functions::Source>(
        functions::Source{std::string(text), std::string(source_name)});
    ir::SourceText src{source->text, source->name};
    ir::TokenCursor in(src);
    std::vector<FunctionDef> defs = functions::parse_definitions(in, source);
    if (in.peek().kind != ir::TokenKind::End) in.fail_expected("'def' or 'case'", in.peek());
    return defs;
}

std::vector<FunctionDef> define_functions(std::string_view text, std::string_view source_name) {
    std::vector<FunctionDef> defs = parse_functions(text, source_name);
    for (const FunctionDef& d : defs) define_function(d);
    return defs;
}

} // namespace siskin
