#include "compiler/bind.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "compiler/finite.hpp"
#include "compiler/ordered_writes.hpp"
#include "levels/leaf_format.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/visit.hpp"
#include "wrappers/slice.hpp"
#include "compiler/affine_extents.hpp"
#include "ir/affine.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

// Union-find over dimension keys ("T#k") and loop indices ("=i").
class Classes {
public:
    std::string find(const std::string& k) {
        auto it = parent_.find(k);
        if (it == parent_.end()) {
            parent_[k] = k;
            return k;
        }
        if (it->second == k) return k;
        std::string root = find(it->second);
        parent_[k] = root;
        return root;
    }
    void unite(const std::string& a, const std::string& b) { parent_[find(a)] = find(b); }

private:
    std::map<std::string, std::string> parent_;
};

std::string dim_key(const std::string& tensor, int mode) { return fmt::format("{}#{}", tensor, mode); }

void check_signature(const std::string& name, const TensorSignature& sig) {
    if (sig.format.ndims() != sig.ndims)
        throw Error(fmt::format("the signature of {} gives {} dimensions, but its format '{}' "
                                "stores {}",
                                name, sig.ndims, sig.format.to_string(), sig.format.ndims()));
    for (const auto& level : sig.format.levels()) {
        if (level.index_bits != 32 && level.index_bits != 64)
            throw Error(fmt::format("the format of {} ('{}') must give every level an index width "
                                    "(@32 or @64) to be compiled",
                                    name, sig.format.to_string()));
    }
    if (sig.format.leaf() == Leaf::Pattern && sig.type != ValueType::Bool)
        throw Error(fmt::format("{} has a pattern leaf, so its type must be bool", name));
}

// An output that only plain copies of finite inputs of its type write, fills finite on both
// sides (finite.hpp's copied_from): its stored values are theirs or their fill.
bool copies_finite_values(const ir::Program& program, const std::string& name,
                          const std::map<std::string, TensorSignature>& signatures) {
    auto from = copied_from(program, name);
    if (!from) return false;
    const TensorSignature& out = signatures.at(name);
    auto finite = [](const Scalar& v) { return std::isfinite(v.as_double()); };
    if (!finite(out.fill)) return false;
    for (const auto& x : *from) {
        auto it = signatures.find(x);
        if (it == signatures.end() || !it->second.finite || it->second.type != out.type ||
            !finite(it->second.fill))
            return false;
    }
    return true;
}

} // namespace

std::vector<std::string> KernelTensors::order() const {
    std::vector<std::string> all = inputs;
    all.insert(all.end(), outputs.begin(), outputs.end());
    return all;
}

KernelTensors bind_tensors(LowerCtx& ctx, const ir::Program& program,
                           const std::map<std::string, TensorSignature>& signatures) {
    KernelTensors kt;
    kt.inputs = program.inputs();
    kt.outputs = program.outputs();
    for (const auto& name : kt.order()) {
        auto it = signatures.find(name);
        if (it == signatures.end())
            throw Error(fmt::format("no signature given for tensor {} of the program", name));
        bool output = std::find(kt.outputs.begin(), kt.outputs.end(), name) != kt.outputs.end();
        check_signature(name, it->second);
        auto b = std::make_unique<TensorBinding>();
        b->name = name;
        b->format = it->second.format;
        b->type = it->second.type;
        b->fill = it->second.fill.cast(it->second.type);
        b->finite = output ? copies_finite_values(program, name, signatures) : it->second.finite;
        b->output = output;
        if (it->second.keep_contents) {
            if (!output)
                throw Error(fmt::format("the signature of {} keeps its contents, but the program "
                                        "only reads {}: only an output can start from its values",
                                        name, name));
            if (it->second.format.leaf() != Leaf::Element ||
                !levels::all_levels_implicit(it->second.format))
                throw Error(fmt::format("output {} keeps its contents, which compiled code does for "
                                        "dense outputs only, and its format is {} (compute it "
                                        "dense and convert, as evaluate_compiled does)",
                                        name, it->second.format.to_string()),
                            Error::Kind::Unsupported);
            b->keep_contents = true;
        }
        b->collapsed_in_order = output && writes_collapsed_in_order(program, name, b->format);
        kt.bindings.emplace(name, std::move(b));
    }

    // Which dimensions a loop index ties together. Loops with a given range don't: their
    // tensors only need to be large enough (checked by the host).
    std::set<std::string> ranged;
    ir::visit(program.body, [&](const ir::Stmt& s) {
        if (const auto* f = s->as<ir::For>(); f && f->lo) ranged.insert(f->index);
    });
    Classes classes;
    ir::visit(program.body, {}, [&](const ir::Expr& e) {
        const auto* a = e->as<ir::Access>();
        if (!a || !kt.bindings.count(a->tensor)) return;
        for (size_t k = 0; k < a->indices.size(); ++k) {
            const auto* idx = a->indices[k]->as<ir::Index>();
            // A sliced dimension is not the index's extent (the host checks the slice's length).
            if (idx && !idx->slice && !ranged.count(idx->name))
                classes.unite(dim_key(a->tensor, static_cast<int>(k)), "=" + idx->name);
        }
    });

    // The prologue: one local per class of dimensions, one per buffer.
    auto i64 = cast::Type::of(ValueType::Int64);
    cast::Expr dims = cast::var("dims"), buffers = cast::var(BufferBinding::kKernelBuffers);
    std::map<std::string, cast::Expr> class_var;
    std::map<std::string, std::vector<DimRef>> members;
    int dim_slot = 0;
    for (const auto& name : kt.order()) {
        TensorBinding& t = *kt.bindings.at(name);
        for (int k = 0; k < t.format.ndims(); ++k, ++dim_slot) {
            std::string root = classes.find(dim_key(name, k));
            members[root].push_back({name, k});
            auto it = class_var.find(root);
            if (it == class_var.end()) {
                std::string v = ctx.fresh(fmt::format("{}_dim{}", name, k));
                ctx.emit(cast::Decl::make(i64.as_const(), v, cast::at(dims, c_int(dim_slot))));
                it = class_var.emplace(root, cast::var(v)).first;
            }
            t.dims.push_back(it->second);
        }
    }
    for (auto& [root, refs] : members)
        if (refs.size() > 1) kt.dim_classes.push_back(refs);
    // The first sliced access of every index, for indices that no plain access sizes.
    std::map<std::string, cast::Expr> slice_extent;
    ir::visit(program.body, {}, [&](const ir::Expr& e) {
        const auto* a = e->as<ir::Access>();
        if (!a || !kt.bindings.count(a->tensor)) return;
        for (size_t k = 0; k < a->indices.size(); ++k) {
            const auto* idx = a->indices[k]->as<ir::Index>();
            if (!idx || !idx->slice || slice_extent.count(idx->name)) continue;
            const TensorBinding& t = *kt.bindings.at(a->tensor);
            if (k >= t.dims.size()) continue; // an arity mismatch, reported elsewhere
            slice_extent.emplace(idx->name, ctx.local(idx->name + "_extent",
                                                      wrappers::slice_length(*idx->slice, t.dims[k])));
        }
    });
    ir::visit(program.body, [&](const ir::Stmt& s) {
        const auto* f = s->as<ir::For>();
        if (!f || ranged.count(f->index)) return;
        std::string root = classes.find("=" + f->index);
        if (auto m = members.find(root); m != members.end()) kt.index_dim.emplace(f->index, m->second.front());
        auto it = class_var.find(root);
        if (it == class_var.end()) {
            if (auto sl = slice_extent.find(f->index); sl != slice_extent.end()) {
                kt.index_extent.emplace(f->index, sl->second);
                return;
            }
        }
        if (it != class_var.end()) kt.index_extent.emplace(f->index, it->second);
    });
    std::map<std::string, int64_t> starts, ends;
    ir::visit(program.body, [&](const ir::Stmt& s) {
        const auto* f = s->as<ir::For>();
        if (!f || !f->lo) return;
        auto lo = ir::constant_of(f->lo), hi = ir::constant_of(f->hi);
        if (lo && hi) starts[f->index] = *lo, ends[f->index] = *hi;
    });
    bind_affine_extents(ctx, program, kt, starts, ends);
    ir::visit(program.body, [&](const ir::Stmt& s) {
        const auto* f = s->as<ir::For>();
        if (!f || ranged.count(f->index) || kt.index_extent.count(f->index)) return;
        throw Error(fmt::format("cannot tell the extent of loop {}: no tensor is indexed by {} "
                                "alone; give it a range (for {} in lo:hi)",
                                f->index, f->index, f->index));
    });

    int slot = 0;
    auto bind_buffer = [&](TensorBinding& t, const levels::BufferSpec& spec) {
        const std::string& buffer = spec.name;
        const ValueType type = spec.type;
        BufferBinding b;
        b.slot = slot++;
        b.name = buffer;
        b.role = spec.role;
        b.type = type;
        b.output = t.output;
        b.data = ctx.fresh(t.name + "_" + buffer);
        cast::Expr raw = cast::at(buffers, c_int(b.slot));
        if (t.output) {
            b.raw = ctx.fresh(t.name + "_" + buffer + "_buf");
            ctx.emit(cast::Decl::make(cast::Type::named("siskin_buffer").pointer(), b.raw, raw));
            raw = b.raw_var();
        }
        cast::Type data = t.output ? cast::Type::of(type).pointer()
                                   : cast::Type::of(type).as_const().pointer().restricted();
        cast::Type cast_to = t.output ? cast::Type::of(type).pointer() : cast::Type::of(type).as_const().pointer();
        ctx.emit(cast::Decl::make(data, b.data, cast::Cast::make(cast_to, cast::Field::make(raw, "data"))));
        return b;
    };
    for (const auto& name : kt.order()) {
        TensorBinding& t = *kt.bindings.at(name);
        for (const auto& spec : t.format.levels()) {
            const levels::LevelFormat& format = levels::level_format(spec.kind);
            t.level_facts.push_back({&levels::level_codegen(spec.kind), format.properties()});
            std::vector<BufferBinding> level;
            for (const auto& bs : format.buffers(spec)) level.push_back(bind_buffer(t, bs));
            t.levels.push_back(std::move(level));
        }
        const levels::LeafFormat& leaf = levels::leaf_format(t.format.leaf());
        t.leaf_face = &levels::leaf_codegen(t.format.leaf());
        for (const auto& bs : leaf.buffers(t.type)) t.values = bind_buffer(t, bs);
    }
    kt.num_buffers = slot;
    kt.num_dims = dim_slot;
    return kt;
}

} // namespace siskin::compiler
