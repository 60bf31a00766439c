#include "compiler/tensor_binding.hpp"

#include "siskin/error.hpp"

namespace siskin::compiler {

const BufferBinding& TensorBinding::buffer(int level, std::string_view buffer_name) const {
    for (const auto& b : levels.at(static_cast<size_t>(level)))
        if (b.name == buffer_name) return b;
    SISKIN_ASSERT(false, "tensor " + name + " has no buffer " + std::string(buffer_name) +
                             " at level " + std::to_string(level));
}

cast::Expr TensorBinding::level_dim(int level, int sub) const {
    const auto& spec = format.levels().at(static_cast<size_t>(level));
    return dims.at(static_cast<size_t>(spec.modes.at(static_cast<size_t>(sub))));
}

ValueType TensorBinding::index_type(int level) const {
    int bits = format.levels().at(static_cast<size_t>(level)).index_bits;
    SISKIN_ASSERT(bits == 32 || bits == 64, "level of " + name + " without an index width");
    return bits == 32 ? ValueType::Int32 : ValueType::Int64;
}

} // namespace siskin::compiler
