// `siskin check-function FILE`: defines the functions of FILE and checks every property they
// declare, and every special case, on sample values. One line per function that holds, one per
// counterexample; the exit status is non-zero when anything is violated.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"

namespace siskin::cli {

namespace {

// What was checked, for the line of a function whose claims all hold.
std::string claims(const FunctionDef& def) {
    std::vector<std::string> parts;
    const FunctionProperties& p = def.properties();
    if (p.commutative) parts.emplace_back("commutative");
    if (p.associative) parts.emplace_back("associative");
    if (p.idempotent) parts.emplace_back("idempotent");
    if (p.identity) parts.push_back("identity " + p.identity->value.to_string());
    if (p.annihilator) parts.push_back("annihilator " + p.annihilator->value.to_string());
    if (def.space_ast()) parts.emplace_back("space");
    size_t cases = def.cases().size();
    if (cases) parts.push_back(fmt::format("{} case{}", cases, cases == 1 ? "" : "s"));
    std::string out;
    for (size_t k = 0; k < parts.size(); ++k) out += (k ? ", " : "") + parts[k];
    if (out.empty()) return "no properties declared; types agree";
    return out + (parts.size() == 1 && cases <= 1 ? " holds" : " hold");
}

void check_file(const std::string& path) {
    std::string text = read_text_file(path, "functions");
    std::vector<FunctionDef> defs = define_functions(text, path);
    if (defs.empty()) throw Error(fmt::format("'{}' defines no function", path));
    size_t violations = 0;
    for (const FunctionDef& def : defs) {
        std::vector<PropertyViolation> found = check_function(def);
        if (found.empty()) {
            std::cout << fmt::format("{}: ok: {}\n", def.name(), claims(def));
            continue;
        }
        for (const PropertyViolation& v : found)
            std::cout << fmt::format("{}: {} does not hold: {}\n", def.name(), v.property,
                                     v.message);
        violations += found.size();
    }
    std::cout.flush();
    if (violations)
        throw Error(fmt::format("{} counterexample{} to declared properties in '{}'", violations,
                                violations == 1 ? "" : "s", path));
}

} // namespace

void add_check_function_command(CLI::App& app) {
    auto path = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand(
        "check-function",
        "Check the properties and special cases that a file's functions declare");
    cmd->add_option("file", *path, "File of def and case forms")->required();
    cmd->callback([path] { check_file(*path); });
}

} // namespace siskin::cli
