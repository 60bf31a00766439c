#pragma once
// The driver is written in the vocabulary of the floors below it: the lowering tree and the
// per-kernel state (lowering/), the looplet kinds (looplets/) and the simplifier (simplify/).
// Each of those areas has a namespace of its own; the compiler's files see all three.

namespace siskin::lowering {}
namespace siskin::looplets {}
namespace siskin::simplify {}

namespace siskin::compiler {
using namespace lowering;
using namespace looplets;
using namespace simplify;
} // namespace siskin::compiler
