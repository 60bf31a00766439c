#pragma once
// A storage format: the tree of levels a tensor is stored in, outermost level first.
//
// Spelling (Format::parse / Format::to_string round-trip):
//   preset     dense | csr | csc | dcsr | dcsc | coo | csf | csf(2,0,1)   optionally "@32"/"@64"
//   general    level "/" level ... ["/" leaf]
//   level      name "(" mode {"," mode} ")" ["@32" | "@64"]
//   leaf       element | pattern          (default element)
// e.g. csr == "dense(0)/sparselist(1)/element", csc == "dense(1)/sparselist(0)",
//      coo == "coo(0,1)", a 3-D CSF in mode order 2,0,1 == "sparselist(2)/sparselist(0)/sparselist(1)".
// Level names: dense (d), sparselist (s, compressed), coo, sparseband (band), runlist (rle),
// sparsebytemap (bytemap); src/levels/ describes their storage.
// A level without "@" chooses its index width (int32 if the data fits, else int64) when a tensor is
// built; the tensor's format then records the width it chose.
#include <string>
#include <string_view>
#include <vector>

namespace siskin {

struct LevelSpec {
    std::string kind;       // registered level name, canonical spelling ("dense", "sparselist", "coo")
    std::vector<int> modes; // tensor dimensions stored by this level: one, or several for coo
    int index_bits = 0;     // 32 or 64; 0 = choose when built
    bool operator==(const LevelSpec&) const = default;
};

enum class Leaf { Element, Pattern };

class Format {
public:
    Format() = default;
    Format(std::vector<LevelSpec> levels, Leaf leaf);

    /// Parses a spelling for a tensor of `ndims` dimensions; throws Error naming the bad part.
    static Format parse(std::string_view spelling, int ndims);
    /// The general spelling, which parse() reads back to an equal Format.
    std::string to_string() const;

    static Format dense(int ndims);
    static Format csr();
    static Format csc();
    static Format dcsr();
    static Format dcsc();
    static Format coo(int ndims);
    /// Compressed sparse fiber: every level a sparselist, in the given mode order (default 0..n-1).
    static Format csf(int ndims, std::vector<int> mode_order = {});

    const std::vector<LevelSpec>& levels() const { return levels_; }
    Leaf leaf() const { return leaf_; }
    int ndims() const;
    /// mode_order()[k] = the tensor dimension stored at storage position k (levels flattened).
    std::vector<int> mode_order() const;
    /// The same format with every unset index width set to `bits`.
    Format with_index_bits(int bits) const;

    bool operator==(const Format&) const = default;

private:
    std::vector<LevelSpec> levels_;
    Leaf leaf_ = Leaf::Element;
};

} // namespace siskin
