#pragma once
// How one tensor of a kernel is reached from the generated C: its buffers (by slot in the
// kernel's `buffers` argument, and the locals the prologue unpacks them into), the C variables
// holding its dimensions, and its levels' faces and properties, looked up once when it is bound.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/c_ast.hpp"
#include "lowering/level_properties.hpp"
#include "siskin/format.hpp"
#include "siskin/value.hpp"

namespace siskin::lowering {

class LevelCodegen;
class LeafCodegen;

struct BufferBinding {
    int slot = 0;          // index into the kernel's buffers argument
    std::string name;      // the level's name for it ("pos", "crd", "values")
    BufferRole role = BufferRole::Values;
    ValueType type = ValueType::Int64;
    std::string raw;       // local `siskin_buffer *` variable
    std::string data;      // local typed data pointer variable
    bool output = false;   // writable (and growable)
    cast::Expr data_var() const { return cast::var(data); }
    cast::Expr raw_var() const { return cast::var(raw); }
    /// The number of elements in use, for inputs too (whose siskin_buffer has no local).
    cast::Expr size_var() const {
        cast::Expr buffer = output ? raw_var() : cast::at(cast::var(kKernelBuffers), cast::lit(Scalar::of(int64_t{slot})));
        return cast::Field::make(buffer, "size");
    }
    /// The kernel's parameter holding every buffer (`siskin_buffer *buffers[]`).
    static constexpr const char* kKernelBuffers = "buffers";
};

struct TensorBinding {
    std::string name;
    Format format;
    ValueType type = ValueType::Float64;
    Scalar fill;
    bool finite = false; // every stored value finite (inputs only)
    bool output = false;
    /// A kernel temporary (workspaces pass) that the kernel empties again after each read.
    bool workspace = false;
    /// An output that starts from the values it holds (TensorSignature::keep_contents): not set
    /// to the fill first, and no write may be skipped for leaving an element at its fill.
    bool keep_contents = false;
    /// An output written through compound subscripts in coordinate order (a collapse, see
    /// compiler/ordered_writes.hpp): an append-only level is written by the innermost loop of its
    /// subscript, below the loops the subscript also runs over.
    bool collapsed_in_order = false;
    std::vector<cast::Expr> dims;                    // per tensor dimension
    std::vector<std::vector<BufferBinding>> levels;  // per level, in LevelStorage order
    std::optional<BufferBinding> values;             // none for a pattern leaf
    /// Per level, what its format offers lowering (bind looks each level up once).
    struct LevelFacts {
        const LevelCodegen* face = nullptr;
        LevelProperties properties;
    };
    std::vector<LevelFacts> level_facts;
    const LeafCodegen* leaf_face = nullptr;

    int num_levels() const { return static_cast<int>(format.levels().size()); }
    const BufferBinding& buffer(int level, std::string_view name) const;
    /// The dimension a level's sub-mode indexes.
    cast::Expr level_dim(int level, int sub = 0) const;
    /// The index type of a level (its crd/pos element type).
    ValueType index_type(int level) const;
    /// The codegen face of a level, and of the leaf.
    const LevelCodegen& level(int level) const;
    const LeafCodegen& leaf() const;
    const LevelProperties& properties(int level) const;
};

} // namespace siskin::lowering
