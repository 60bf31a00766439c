#include "looplets/looplet.hpp"

namespace siskin::looplets {

std::string_view looplet_kind_name(LoopletKind k) {
    switch (k) {
    case LoopletKind::Lookup: return "Lookup";
    case LoopletKind::Run: return "Run";
    case LoopletKind::Spike: return "Spike";
    case LoopletKind::Sequence: return "Sequence";
    case LoopletKind::Stepper: return "Stepper";
    case LoopletKind::Jumper: return "Jumper";
    case LoopletKind::Switch: return "Switch";
    case LoopletKind::Thunk: return "Thunk";
    case LoopletKind::Shift: return "Shift";
    }
    return "?";
}

} // namespace siskin::looplets
