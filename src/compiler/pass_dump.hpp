#pragma once
// The pass dump (`--dump-after STAGE|all|list`, $SISKIN_DUMP_AFTER): the pipeline driver runs its
// stage list (pipeline.cpp) and hands the dump what each stage left — the program IR, the
// lowering tree, the C emitted so far or the C after a cleanup pass — which it prints to stderr
// when that stage was asked for, or "(unchanged)" when it is the text printed last.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "siskin/ir/program.hpp"

namespace siskin::compiler {

class PassDump {
public:
    /// `requested`: a stage name, "all", "list" (prints the stage names), or unset to read
    /// $SISKIN_DUMP_AFTER. `stages`: the pipeline's list; a name not in it is an Error listing them.
    PassDump(const std::optional<std::string>& requested, const std::vector<std::string>& stages);

    /// Before the first stage: remembers the input program (printed first under "all").
    void input(const ir::Program& program);
    /// Whether any stage is shown: the driver builds the texts only then (all of them, since a
    /// stage's text is compared with the one before it to say "(unchanged)").
    bool active() const { return !requested_.empty(); }
    /// After `stage`, which left `text`.
    void after(std::string_view stage, const std::string& text);

private:
    std::string requested_; // empty: no dump
    std::string last_;
};

} // namespace siskin::compiler
