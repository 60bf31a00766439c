#pragma once
// The pass dump (`--dump-after PASS|all`, $SISKIN_DUMP_AFTER): the pipeline driver calls after()
// once per pass with the program as that pass left it; the dump prints it to stderr when the
// pass was asked for, or "(unchanged)" when it is the text printed last.
#include <optional>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

class PassDump {
public:
    /// `requested`: a pass name, "all", or unset to read $SISKIN_DUMP_AFTER. `passes`: the
    /// pipeline's list; a name not in it is an Error listing them.
    PassDump(const std::optional<std::string>& requested, const std::vector<std::string>& passes);

    /// Before the first pass: remembers the input program (printed first under "all").
    void input(const ir::Program& program);
    /// After pass `pass`, whose result is `program` (the IR passes' output; the others hand on
    /// the program they were given).
    void after(const std::string& pass, const ir::Program& program);
    /// After a pass whose result is text rather than IR (print: the C source).
    void after_text(const std::string& pass, const std::string& text);

private:
    bool wanted(const std::string& pass) const;
    void show(const std::string& pass, const std::string& text);

    std::string requested_; // empty: no dump
    std::string last_;
};

} // namespace siskin::compiler
