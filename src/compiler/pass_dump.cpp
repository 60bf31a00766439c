#include "compiler/pass_dump.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::compiler {

PassDump::PassDump(const std::optional<std::string>& requested,
                   const std::vector<std::string>& stages) {
    if (requested) {
        requested_ = *requested;
    } else if (const char* env = std::getenv("SISKIN_DUMP_AFTER")) {
        requested_ = env;
    }
    if (requested_ == "list") {
        std::cerr << fmt::format("{}\n", fmt::join(stages, "\n"));
        requested_.clear();
    }
    if (requested_.empty() || requested_ == "all") return;
    if (std::find(stages.begin(), stages.end(), requested_) == stages.end())
        throw Error(fmt::format("no compiler stage is named '{}' (dump after one of: {}, or all)",
                                requested_, fmt::join(stages, ", ")));
}

namespace {

std::string ending_in_newline(const std::string& text) {
    return text.empty() || text.back() == '\n' ? text : text + "\n";
}

} // namespace

void PassDump::input(const ir::Program& program) {
    if (requested_.empty()) return;
    last_ = ending_in_newline(ir::print(program));
    if (requested_ == "all") std::cerr << "=== input ===\n" << last_;
}

void PassDump::after(std::string_view stage, const std::string& text) {
    if (requested_.empty()) return;
    std::string t = ending_in_newline(text);
    if (requested_ == "all" || requested_ == stage)
        std::cerr << "=== after " << stage << " ===\n" << (t == last_ ? std::string("(unchanged)\n") : t);
    last_ = t;
}

} // namespace siskin::compiler
