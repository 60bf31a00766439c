#include "compiler/looplet_priority.hpp"

#include "siskin/error.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

int looplet_priority(LoopletKind k) {
    switch (k) {
    case LoopletKind::Shift: return 9;
    case LoopletKind::Thunk: return 8;
    case LoopletKind::Switch: return 7;
    case LoopletKind::Run: return 6;
    case LoopletKind::Spike: return 5;
    case LoopletKind::Sequence: return 4;
    case LoopletKind::Jumper: return 3;
    case LoopletKind::Stepper: return 2;
    case LoopletKind::Lookup: return 1;
    }
    SISKIN_ASSERT(false, "unknown looplet kind");
}

LoopletKind highest_priority(const std::vector<LoopletKind>& kinds) {
    SISKIN_ASSERT(!kinds.empty(), "no looplet to lower");
    LoopletKind best = kinds.front();
    for (LoopletKind k : kinds)
        if (looplet_priority(k) > looplet_priority(best)) best = k;
    return best;
}

} // namespace siskin::compiler
