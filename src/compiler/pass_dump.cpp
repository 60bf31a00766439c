#include "compiler/pass_dump.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

PassDump::PassDump(const std::optional<std::string>& requested,
                   const std::vector<std::string>& passes) {
    if (requested) {
        requested_ = *requested;
    } else if (const char* env = std::getenv("SISKIN_DUMP_AFTER")) {
        requested_ = env;
    }
    if (requested_.empty() || requested_ == "all") return;
    if (std::find(passes.begin(), passes.end(), requested_) == passes.end())
        throw Error(fmt::format("no compiler pass is named '{}' (dump after one of: {}, or all)",
                                requested_, fmt::join(passes, ", ")));
}

bool PassDump::wanted(const std::string& pass) const {
    return requested_ == "all" || requested_ == pass;
}

void PassDump::show(const std::string& pass, const std::string& text) {
    if (wanted(pass))
        std::cerr << "=== after " << pass << " ===\n"
                  << (text == last_ ? std::string("(unchanged)\n") : text);
    last_ = text;
}

void PassDump::input(const ir::Program& program) {
    if (requested_.empty()) return;
    last_ = ir::print(program) + "\n";
    if (requested_ == "all") std::cerr << "=== input ===\n" << last_;
}

void PassDump::after(const std::string& pass, const ir::Program& program) {
    if (requested_.empty()) return;
    show(pass, ir::print(program) + "\n");
}

void PassDump::after_text(const std::string& pass, const std::string& text) {
    if (requested_.empty()) return;
    show(pass, text.empty() || text.back() == '\n' ? text : text + "\n");
}

} // namespace siskin::compiler
