#pragma once
// The typed facts of a level format that code outside src/levels asks instead of its name: a
// level format answers them (LevelFormat::properties), and a bound tensor carries them per level
// (TensorBinding::properties). Buffers carry a role, so what cares about positions (the 32-bit
// overflow check, the index widening) finds them whatever a level names them.

namespace siskin::lowering {

/// What a level can do, as named fields rather than a row of booleans.
struct LevelProperties {
    int min_modes = 1;   // tensor dimensions one level covers: at least ...
    int max_modes = 1;   // ... and at most (coo: any number)
    bool full = false;   // every coordinate of a fibre has a position (dense)
    bool ordered = true; // positions of a fibre hold increasing coordinates
    bool unique = true;  // no coordinate appears twice in a fibre
    // Runtime-face extension for levels whose positions are not one stored coordinate each:
    bool runs = false;        // a position may cover several consecutive coordinates (runlist)
    bool stores_fill = false; // build makes positions no entry names, holding the fill (band gaps)
    // For lowering:
    /// Stores nothing: the position of coordinate i in fibre p is p * n + i, found and written by
    /// arithmetic alone (dense). A format of implicit levels and values is a dense array.
    bool implicit = false;
    /// Written only in coordinate order, each coordinate once per fibre (an in-order append);
    /// else positions can be written in any order (dense, sparsebytemap as a last level).
    bool append_only = false;
    /// Locating a coordinate costs a load or two, no search (sparsepoint, sparseinterval: one
    /// region per fibre), so a read out of loop order locates instead of reading a transposed
    /// copy, which the level could not even hold (a transposed permutation's column has many rows).
    bool direct_locate = false;
    /// Written fibre by fibre at the end of what is stored: fibre p's entries take the positions
    /// pos[p] .. pos[p+1]-1 of the level's Positions buffer, counted by the level variable
    /// "count", and every other buffer of the level (and the leaf's) holds one element per
    /// position (sparselist). A parallel loop over the fibres can then give each thread buffers
    /// of its own and join them in order (compiler/parallel_marks.hpp).
    bool appends_fibres = false;
};

/// What a level's (or the leaf's) buffer holds.
enum class BufferRole {
    Positions,   // per parent position, where its fibre starts (P+1 prefix sums: pos, ofs)
    Coordinates, // stored coordinates or coordinate bounds (crd, idx, right, srt)
    Flags,       // one byte per slot (a bytemap's tbl)
    Values,      // the leaf's values
};

} // namespace siskin::lowering
