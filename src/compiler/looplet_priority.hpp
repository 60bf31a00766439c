#pragma once
// The one table that decides which looplet lowering runs when a loop body holds several kinds.
//
//   Shift > Thunk > Switch > Run > Spike > Sequence > Jumper > Stepper > Lookup
//
// Shifts are pushed into their body first. Thunks run their set-up once, before any split.
// Switches expose their cases early. Runs and spikes come before anything that loops, so the
// simplifier sees fill values as soon as possible (a Run(0) factor removes a whole region).
// Sequences split into phases before a loop is built (control flow hoisted out of loops).
// Jumpers lead steppers (galloping). Lookups are what is left: a plain for loop.
#include <vector>

#include "looplets/looplet.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

int looplet_priority(LoopletKind k);
/// The kind with the highest priority; kinds must not be empty.
LoopletKind highest_priority(const std::vector<LoopletKind>& kinds);

} // namespace siskin::compiler
