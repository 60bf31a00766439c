#pragma once
// The level formats a tensor's storage tree is made of, and their registry.
//
// A level stores the coordinates of one or more tensor dimensions for every fibre its parent
// level holds. Positions number the entries of a level: the root's parent has the single position
// 0, and each level maps a parent position p to a range of its own positions (its fibre):
//
//   fibre(p)              -> [begin, end)          positions of the fibre under parent position p
//   coordinates(q)        -> i_1..i_k              the coordinates stored at position q
//   fibre_entry(p, k)     -> q, coords, length     the k-th entry of fibre p (extension below)
//   locate(p, i_1..i_k)   -> q or nothing          the position of given coordinates in fibre p
//   build(entries)        -> buffers, positions    storage for sorted unique entries
//
// This is the runtime face: buffers (LevelStorage) stay apart from the level classes, which are
// stateless singletons. The compiler adds a codegen face (unfurl into looplets, writing) to the
// same classes. A new level format is one file defining a LevelFormat plus one line in
// registry.cpp.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lowering/level_properties.hpp"
#include "siskin/format.hpp"
#include "siskin/tensor.hpp"

namespace siskin::lowering {
class LevelCodegen; // lowering/level_face.hpp: what lowering asks of a level
class LeafCodegen;
}

namespace siskin::levels {

using lowering::LevelCodegen;
using lowering::BufferRole;
using lowering::LevelProperties;


struct BufferSpec {
    std::string name;
    ValueType type;
    BufferRole role;
};

/// The entries [begin, end) of one fibre: its positions, except where the level's fibre_entry
/// maps entries to positions (sparsebytemap: entries index its sorted coordinate list).
struct FibreRange {
    int64_t begin = 0;
    int64_t end = 0;
};

/// One entry of a fibre (LevelFormat::fibre_entry): its position and how many consecutive
/// coordinates of the level's last mode it covers (more than 1 only for levels with runs).
struct FibreEntry {
    int64_t position = 0;
    int64_t length = 1;
};

/// Entries a level is built from: sorted in storage order and unique, with the position each
/// entry's prefix has in the parent level (nondecreasing). coords holds ndims numbers per entry,
/// in tensor dimension order.
struct LevelInput {
    int64_t num_parents = 1;
    std::span<const int64_t> parents;
    std::span<const int64_t> coords;
    int ndims = 0;
    // The entries' values, already of the tensor's type, and the fill (nullptr for storage
    // built without entries' values). A level that merges equal values or equal sub-fibres
    // (runlist) needs them; `last` says whether the leaf comes right below.
    std::span<const Scalar> values;
    const Scalar* fill = nullptr;
    bool last = false;
    int64_t size() const { return static_cast<int64_t>(parents.size()); }
    int64_t coord(int64_t entry, int mode) const { return coords[entry * ndims + mode]; }
    /// The coordinates of an entry as "(1, 4)", for error messages.
    std::string entry_text(int64_t entry) const;
};

/// What building one level yields: its storage (with the index width it chose) and, per input
/// entry, the position the entry's prefix has in this level, or kDropped for an entry the level
/// leaves out (a runlist merging a sub-fibre into an equal one before it): the levels below and
/// the leaf never see it.
inline constexpr int64_t kDropped = -1;
struct LevelBuild {
    LevelStorage storage;
    std::vector<int64_t> positions;
    int64_t num_positions = 0;
};

class LevelFormat {
public:
    LevelFormat() = default;
    LevelFormat(const LevelFormat&) = delete;
    LevelFormat& operator=(const LevelFormat&) = delete;
    virtual ~LevelFormat() = default;

    /// Canonical name, as spelled in formats ("dense").
    virtual std::string_view name() const = 0;
    /// Other accepted spellings ("d").
    virtual std::vector<std::string_view> aliases() const { return {}; }
    virtual LevelProperties properties() const = 0;
    /// The buffers of a level of this format; spec.index_bits must be 32 or 64.
    virtual std::vector<BufferSpec> buffers(const LevelSpec& spec) const = 0;

    // ---- Runtime face, extension: levels whose fibres are not one position per coordinate ----
    // (runlist: a position covers a run of coordinates; sparsebytemap: positions p*n+i for only
    // some i; sparseband: positions of gaps hold the fill). The defaults fit dense, sparselist
    // and coo, which do not override them.

    /// Throws Error when this level cannot be level `k` of `format` (e.g. runlist must be last).
    virtual void check_place(const Format& format, size_t k) const;
    /// Entry k of fibre `parent` (fibre(parent).begin <= k < end), in storage order: writes its
    /// coordinates (the first of a run) into `coords` and returns its position and how many
    /// consecutive coordinates of the level's last mode it covers. Default: position k,
    /// coordinates(k), length 1.
    virtual FibreEntry fibre_entry(const LevelStorage& s, std::span<const int64_t> shape,
                              int64_t parent, int64_t k, std::span<int64_t> coords) const;
    /// How many positions of the level hold entries, given how many positions its parent level
    /// has and how many of those hold entries (fewer under a sparsebytemap, whose unused slots
    /// p*n+i still own fibres). Default: num_positions(num_parents) for levels whose fibres
    /// under unused parents are empty, num_positions(used_parents) for full levels (dense).
    virtual int64_t num_stored(const LevelStorage& s, std::span<const int64_t> shape,
                               int64_t num_parents, int64_t used_parents) const;
    // ---- end of the extension ----

    /// Builds the level for `in`; spec.index_bits == 0 chooses the width (see choose_index_bits).
    virtual LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                             const LevelInput& in) const = 0;
    /// Positions of the whole level, given how many its parent has.
    virtual int64_t num_positions(const LevelStorage& s, std::span<const int64_t> shape,
                                  int64_t num_parents) const = 0;
    virtual FibreRange fibre(const LevelStorage& s, std::span<const int64_t> shape,
                             int64_t parent) const = 0;
    /// Writes the coordinates at `position` into out (one per mode of the level, in spec order).
    virtual void coordinates(const LevelStorage& s, std::span<const int64_t> shape,
                             int64_t position, std::span<int64_t> out) const = 0;
    /// The position of `coords` (one per mode, in spec order) in fibre `parent`, if stored.
    virtual std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t> shape,
                                          int64_t parent, std::span<const int64_t> coords) const = 0;

    /// The codegen face (unfurling into looplets, writing from generated C); nullptr for a
    /// level the compiler cannot handle yet.
    virtual const LevelCodegen* codegen() const { return nullptr; }
};

/// The level format of a name or alias; nullptr when none is registered.
const LevelFormat* find_level_format(std::string_view name);
/// Like find_level_format, but throws Error listing the known names.
const LevelFormat& level_format(std::string_view name);
/// Every registered level format, in registration order.
const std::vector<const LevelFormat*>& level_formats();
/// "dense (d), sparselist (s, compressed), coo": for error messages.
std::string known_level_names();

/// The properties of a level of a format (a registry lookup of its kind).
LevelProperties properties_of(const LevelSpec& spec);
/// Whether every level of `format` is implicit: it stores no coordinates, as a dense array.
bool all_levels_implicit(const Format& format);
/// Whether no level of `format` is append-only: every level takes writes in any order (dense,
/// sparsebytemap, sparsehash), so no loop order needs a workspace or a temporary to write it.
bool all_levels_take_any_order(const Format& format);
/// For error messages: the levels that take writes in any order (those not append_only), and
/// example formats of `ndims` dimensions made of them: "dense (d), sparsebytemap (bytemap) or
/// sparsehash (hash), such as dense(0)/dense(1), dense(0)/sparsebytemap(1), ... or
/// sparsehash(0)/sparsehash(1)".
std::string random_write_formats(int ndims);
/// Whether `format` is a compressed matrix: an implicit level over one sparselist level, with
/// values (the layout of the counting-sort transpose, tensor/transpose.cpp).
bool is_compressed_matrix(const Format& format);

// Helpers the level files share.

/// The index width a level uses: `requested` when set (Error if `largest` does not fit in it),
/// else 32 when `largest` fits in int32, else 64.
int choose_index_bits(int requested, int64_t largest, std::string_view level_name);
ValueType index_type(int bits);
/// A buffer of index type `bits` holding `values`.
Buffer make_index_buffer(int bits, std::span<const int64_t> values);

/// Reads an Int32 or Int64 buffer as int64 values.
class IndexReader {
public:
    explicit IndexReader(const Buffer& b);
    int64_t operator[](int64_t i) const {
        return narrow_ ? static_cast<const int32_t*>(data_)[i] : static_cast<const int64_t*>(data_)[i];
    }
    int64_t size() const { return size_; }

private:
    const void* data_;
    int64_t size_;
    bool narrow_;
};

/// Stores `arrays` (name, values) as the index buffers of a built level, in that order, at the
/// width choose_index_bits gives `largest` (the biggest number any of them may hold).
void store_index_buffers(LevelBuild& out, const LevelSpec& spec, int64_t largest, std::string_view level,
                         const std::vector<std::pair<std::string, std::span<const int64_t>>>& arrays);
/// Turns entry counts per fibre (fibre p's at [p+1], 0 at [0]) into the pos array's prefix sums.
void prefix_sums(std::vector<int64_t>& pos);
/// Fibre `parent` of a level with a pos array: the entries pos[parent] .. pos[parent+1]-1.
FibreRange pos_fibre(const LevelStorage& s, int64_t parent);
/// The first k in [lo, hi) with sorted[k] >= value, hi when none: a fibre's binary search.
int64_t first_at_least(const IndexReader& sorted, int64_t lo, int64_t hi, int64_t value);

/// check_place of the levels whose runs hold leaf values (sparserunlist, sparseinterval,
/// packbits: only runlist holds runs of sub-fibres): throws Error unless level k is the last of
/// `format`; `why` says what the level holds.
void require_last_level(const Format& format, size_t k, std::string_view level, std::string_view why);

/// The extent of a level's k-th mode.
inline int64_t mode_extent(const LevelSpec& spec, std::span<const int64_t> shape, int k) {
    return shape[static_cast<size_t>(spec.modes[static_cast<size_t>(k)])];
}

} // namespace siskin::levels
