// A compiled kernel and its run-time binding: buffers in ABI order, dimensions, the checks the
// generated code relies on, the call, and the status turned into an Error.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/count_work.hpp"
#include "compiler/finite.hpp"
#include "compiler/kernel_impl.hpp"
#include "compiler/pipeline.hpp"
#include "io/checked.hpp"
#include "ir/affine.hpp"
#include "tensor/assemble.hpp"
#include "tensor/describe.hpp"
#include "tensor/transpose.hpp"
#include "levels/level_format.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "tensor/buffer_memory.hpp"

namespace siskin {

using compiler::KernelPlan;

namespace {

constexpr int kErrAlloc = 1;         // SISKIN_ERR_ALLOC of the prelude
constexpr int kErrCoordinate = 3;    // SISKIN_ERR_COORDINATE
constexpr int kErrIndexOverflow = 2; // SISKIN_ERR_INDEX_OVERFLOW
constexpr int kErrSize = 4;          // SISKIN_ERR_SIZE
constexpr int kErrStructure = 5;     // SISKIN_ERR_STRUCTURE

// The elements of `shape` stored by the dense levels at the top of `format` (every position of
// them is allocated whatever the data), or nothing when that product does not fit an int64_t.
std::optional<int64_t> dense_top_positions(const std::vector<int64_t>& shape, const Format& format) {
    int64_t positions = 1;
    for (const auto& level : format.levels()) {
        if (!levels::properties_of(level).implicit) break;
        for (int m : level.modes) {
            auto next = io::checked_mul(positions, shape.at(static_cast<size_t>(m)));
            if (!next) return std::nullopt;
            positions = *next;
        }
    }
    return positions;
}

using detail::shape_text;

// Visits t's buffers in ABI order; T is Tensor or const Tensor.
template <class T, class Visit> void for_each_abi_buffer(T& t, Visit&& visit) {
    for (int k = 0; k < t.num_levels(); ++k) {
        auto& level = t.level(k);
        for (const auto& spec : levels::level_format(level.spec.kind).buffers(level.spec))
            visit(level.buffer(spec.name));
    }
    if (t.format().leaf() == Leaf::Element) visit(t.values());
}

// Appends t's buffers in ABI order; an output's (reset) are emptied and also listed in `owned`.
// owned: the buffers added, each with its slot (its index in out).
void add_buffers(Tensor& t, std::vector<RawBuffer*>& out, bool reset,
                 std::vector<std::pair<Buffer*, int>>* owned = nullptr) {
    for_each_abi_buffer(t, [&](Buffer& b) {
        if (reset) b.raw().size = 0;
        if (owned) owned->emplace_back(&b, static_cast<int>(out.size()));
        out.push_back(&b.raw());
    });
}

bool holds_borrowed(Tensor& t) {
    bool borrowed = false;
    for_each_abi_buffer(t, [&](Buffer& b) { borrowed = borrowed || b.borrowed(); });
    return borrowed;
}

// An input's buffers, which the kernel only reads (the ABI passes them as non-const): taken
// through the const side, so a buffer keeps what it knows of its values (Buffer::known_finite).
void add_input_buffers(const Tensor& t, std::vector<RawBuffer*>& out) {
    for_each_abi_buffer(t, [&](const Buffer& b) { out.push_back(const_cast<RawBuffer*>(&b.raw())); });
}

// The generated code reads sliced dimensions in place, trusting that every slice lies inside
// its dimension and gives as many elements as its index takes.
template <class Dim>
void check_slices(const std::vector<compiler::SliceCheck>& checks, const Dim& dim) {
    std::map<std::string, std::pair<int64_t, const compiler::SliceCheck*>> lengths;
    auto sliced = [](const compiler::SliceCheck& c) {
        return fmt::format("{}'s dimension {} sliced {}", c.dim.tensor, c.dim.mode,
                           ir::slice_text(c.slice));
    };
    for (const auto& c : checks) {
        int64_t n = dim(c.dim);
        int64_t len = ir::resolve_slice(c.slice, n, fmt::format("dimension {} of {}", c.dim.mode, c.dim.tensor))
                          .length;
        if (c.index_dim && dim(*c.index_dim) != len)
            throw Error(fmt::format("index {} ranges over {}'s dimension {} (size {}) and {} "
                                    "(size {})",
                                    c.index, c.index_dim->tensor, c.index_dim->mode,
                                    dim(*c.index_dim), sliced(c), len));
        if (len < c.at_least)
            throw Error(fmt::format("the loop over {} runs up to {}, but {} has {} elements",
                                    c.index, c.at_least - 1, sliced(c), len));
        auto [it, first] = lengths.emplace(c.index, std::pair{len, &c});
        if (!first && it->second.first != len && !c.at_least)
            throw Error(fmt::format("index {} ranges over {} (size {}) and {} (size {})", c.index,
                                    sliced(*it->second.second), it->second.first, sliced(c), len));
    }
}

// A compound subscript stays inside its dimension over the ranges its indices take in this run
// (the verifier's check, for kernels run on other shapes than the ones they were compiled for).
template <class Dim> void check_affine(const compiler::AffineCheck& c, const Dim& dim) {
    std::map<std::string, ir::IndexRange<int64_t>> ranges;
    std::vector<std::string> text;
    for (const auto& [index, r] : c.ranges) {
        ir::IndexRange<int64_t> x = std::holds_alternative<compiler::DimRef>(r)
                                        ? ir::IndexRange<int64_t>{0, dim(std::get<compiler::DimRef>(r))}
                                        : ir::IndexRange<int64_t>{std::get<0>(r).first, std::get<0>(r).second};
        if (x.hi <= x.lo) return; // never evaluated
        ranges.emplace(index, x);
        text.push_back(fmt::format("{} over {}:{}", index, x.lo, x.hi));
    }
    auto [lo, hi] = ir::affine_span<int64_t>(
        c.affine, "", [&](const std::string& i) { return ranges.at(i); },
        ir::checked_int_ops(fmt::format("{}[{}]", c.dim.tensor, c.text)));
    int64_t n = dim(c.dim);
    if (lo >= 0 && hi < n) return;
    throw Error(fmt::format("the subscript {} of {} reads coordinates {}..{} of its dimension {} "
                            "(size {}) when {}",
                            c.text, c.dim.tensor, lo, hi, c.dim.mode, n, fmt::join(text, ", ")));
}

std::atomic<int64_t> run_count{0};

} // namespace

int64_t kernel_runs() { return run_count.load(); }

void Kernel::Impl::run(const std::map<std::string, const Tensor*>& given,
                       std::map<std::string, Tensor>& outputs, bool check_finite) const {
    ++run_count;
    // Transposed temporaries (concordize): the source is checked against the signature the
    // kernel was compiled for, then converted.
    std::map<std::string, const Tensor*> inputs = given;
    std::map<std::string, Tensor> temps;
    int transpose_team = 0; // the largest team of this run's transposes
    auto transposed = [&](const Tensor& source, const Format& format) {
        int team = 1;
        Tensor out = detail::convert_on_threads(source, format, plan.threads, &team);
        transpose_team = std::max(transpose_team, team);
        return out;
    };
    for (const auto& t : plan.transposes) {
        auto it = given.find(t.source);
        if (it == given.end() || !it->second)
            throw Error(fmt::format("input {} of the kernel is missing", t.source));
        TensorSignature got = TensorSignature::of(*it->second);
        if (!t.source_signature.matches(got))
            throw Error(fmt::format("input {} is {}, but the kernel was compiled for {}", t.source,
                                    got.to_string(), t.source_signature.to_string()));
        if (t.source_signature.finite && check_finite && !finite_values(*it->second))
            throw Error(fmt::format("input {} holds inf or NaN, but the kernel was compiled for "
                                    "finite values only",
                                    t.source));
        auto pos = temps.emplace(t.temp, transposed(*it->second, t.signature.format)).first;
        inputs[t.temp] = &pos->second;
    }
    std::map<std::string, const Tensor*> all;
    for (const auto& name : plan.inputs) {
        auto it = inputs.find(name);
        if (it == inputs.end() || !it->second)
            throw Error(fmt::format("input {} of the kernel is missing", name));
        const TensorSignature& want = plan.signatures.at(name);
        TensorSignature got = TensorSignature::of(*it->second);
        if (!want.matches(got))
            throw Error(fmt::format("input {} is {}, but the kernel was compiled for {}", name,
                                    got.to_string(), want.to_string()));
        if (want.finite && check_finite && !temps.count(name) && !finite_values(*it->second))
            throw Error(fmt::format("input {} holds inf or NaN, but the kernel was compiled for "
                                    "finite values only",
                                    name));
        all.emplace(name, it->second);
    }
    std::map<std::string, Tensor> scratch; // workspaces and routed outputs' temporaries
    for (const auto& r : plan.routes) {
        auto it = outputs.find(r.output);
        if (it == outputs.end()) throw Error(fmt::format("output {} of the kernel is missing", r.output));
        const TensorSignature& want = plan.signatures.at(r.output);
        TensorSignature got = TensorSignature::of(it->second);
        if (!want.matches(got))
            throw Error(fmt::format("output {} is {}, but the kernel was compiled for {}", r.output,
                                    got.to_string(), want.to_string()));
        scratch.emplace(r.temp, detail::unbuilt_tensor(it->second.shape(), r.signature.type,
                                                       r.signature.fill, r.signature.format));
    }
    // After the call: each routed output converted from its temporary.
    auto deliver_routes = [&] {
        for (const auto& r : plan.routes)
            outputs.at(r.output) = transposed(scratch.at(r.temp), plan.signatures.at(r.output).format);
        last_transpose_team.store(transpose_team);
    };
    for (const auto& w : plan.workspaces) {
        // A workspace is as long as a dimension of its output, or of that output's temporary.
        const Tensor* like = nullptr;
        if (auto it = scratch.find(w.like.tensor); it != scratch.end()) like = &it->second;
        else if (auto out = outputs.find(w.like.tensor); out != outputs.end()) like = &out->second;
        if (!like) throw Error(fmt::format("output {} of the kernel is missing", w.like.tensor));
        const TensorSignature& s = plan.signatures.at(w.name);
        std::vector<int64_t> shape{like->shape().at(static_cast<size_t>(w.like.mode))};
        scratch.emplace(w.name, detail::unbuilt_tensor(shape, s.type, s.fill, s.format));
    }
    auto output = [&](const std::string& name) -> Tensor& {
        auto it = scratch.find(name);
        return it != scratch.end() ? it->second : outputs.at(name);
    };
    for (const auto& name : plan.outputs) {
        if (scratch.count(name)) {
            all.emplace(name, &scratch.at(name));
            continue;
        }
        auto it = outputs.find(name);
        if (it == outputs.end()) throw Error(fmt::format("output {} of the kernel is missing", name));
        const TensorSignature& want = plan.signatures.at(name);
        TensorSignature got = TensorSignature::of(it->second);
        if (!want.matches(got))
            throw Error(fmt::format("output {} is {}, but the kernel was compiled for {}", name,
                                    got.to_string(), want.to_string()));
        all.emplace(name, &it->second);
    }
    auto dim = [&](const compiler::DimRef& d) {
        return all.at(d.tensor)->shape().at(static_cast<size_t>(d.mode));
    };
    for (const auto& cls : plan.dim_classes)
        for (const auto& d : cls)
            if (dim(d) != dim(cls.front()))
                throw Error(fmt::format("dimension {} of {} is {}, but dimension {} of {} is {}; "
                                        "the program indexes both with the same loop index",
                                        d.mode, d.tensor, dim(d), cls.front().mode,
                                        cls.front().tensor, dim(cls.front())));
    for (const auto& c : plan.checks)
        if (dim(c.dim) < c.at_least)
            throw Error(fmt::format("the program reads {} at coordinate {} of dimension {}, but "
                                    "that dimension has size {}",
                                    c.dim.tensor, c.at_least - 1, c.dim.mode, dim(c.dim)));

    check_slices(plan.slice_checks, dim);
    for (const auto& c : plan.affine_checks) check_affine(c, dim);
    if (plan.forwarded) {
        output(plan.forwarded->output) = std::move(temps.at(plan.forwarded->temp));
        deliver_routes();
        if (work_counter) last_work.store(0);
        last_kernel_team.store(1);
        return;
    }

    // A dense output allocates a position per element: a shape whose product wraps past 2^63
    // would size it small, and the kernel would write past its end.
    // And what those positions need below them (the next level's pos array, or the values)
    // follows the shape too: more than the machine's memory is an error before the kernel runs.
    for (const auto& name : plan.outputs) {
        const Tensor& t = output(name);
        std::optional<int64_t> positions = dense_top_positions(t.shape(), t.format());
        if (!positions)
            throw Error(fmt::format("output {} of shape {} is stored {}, which needs a position for "
                                    "each of its elements, and their number does not fit 64 bits; "
                                    "ask for a sparse format for it",
                                    name, shape_text(t.shape()), t.format().to_string()));
        const auto& levels = t.format().levels();
        size_t below = 0;
        while (below < levels.size() && levels::properties_of(levels[below]).implicit) ++below;
        try {
            if (below == levels.size()) {
                if (t.format().leaf() == Leaf::Element)
                    detail::check_shape_storage(t.shape(), t.format(), static_cast<int>(below), *positions,
                                                type_size(t.type()), "its values");
            } else if (levels[below].kind == "sparselist" || levels[below].kind == "coo") {
                detail::check_shape_storage(t.shape(), t.format(), static_cast<int>(below), *positions,
                                            sizeof(int64_t), "the pos array of its " + levels[below].kind + " level");
            }
        } catch (const Error& e) {
            throw Error("output " + name + ": " + e.message());
        }
    }

    std::vector<RawBuffer*> buffers;
    std::vector<int64_t> dims;
    for (const auto& name : plan.inputs) {
        const Tensor& t = *all.at(name);
        add_input_buffers(t, buffers);
        dims.insert(dims.end(), t.shape().begin(), t.shape().end());
    }
    std::vector<std::pair<Buffer*, int>> written;
    for (const auto& name : plan.outputs) {
        Tensor& t = output(name);
        bool keep = plan.signatures.at(name).keep_contents;
        if (keep) {
            // The kernel writes into the values as they are: all of them must be there.
            std::optional<int64_t> positions = dense_top_positions(t.shape(), Format::dense(t.ndims()));
            if (!positions || t.values().size() != *positions)
                throw Error(fmt::format("output {} starts from its values, but it holds {} of "
                                        "its shape's {} elements",
                                        name, t.values().size(), shape_text(t.shape())));
        }
        // A recycled output keeps its buffers' sizes: the kernel reads what the tensor held to
        // clear only that (KernelPlan::recycled_outputs). Borrowed memory is never written, so a
        // tensor holding some starts empty.
        bool recycled = !keep && plan.recycled_outputs.count(name) > 0 && !holds_borrowed(t);
        // Room hints are for outputs the kernel builds anew, not for one it updates in place.
        add_buffers(t, buffers, !keep && !recycled, keep ? nullptr : &written);
        dims.insert(dims.end(), t.shape().begin(), t.shape().end());
    }
    SISKIN_ASSERT(static_cast<int>(buffers.size()) == plan.num_buffers,
                  "the tensors have a different number of buffers than the kernel expects");
    std::vector<int64_t> hints;
    {
        std::lock_guard lock(size_hints_mutex);
        hints = size_hints;
    }
    for (size_t k = 0; k < hints.size() && k < written.size(); ++k)
        buffer_memory::reserve(*written[k].first, hints[k],
                               plan.zeroed_room.count(written[k].second) > 0);
    dims.push_back(kernel_thread_cap()); // the call's thread cap (bind.hpp)
    if (largest_team) std::atomic_ref<int>(*largest_team).store(1, std::memory_order_relaxed);
    int status = entry(buffers.data(), dims.data());
    last_kernel_team.store(largest_team ? std::atomic_ref<int>(*largest_team).load(std::memory_order_relaxed) : 1);
    if (status == 0) {
        std::lock_guard lock(size_hints_mutex);
        size_hints.resize(written.size());
        for (size_t k = 0; k < written.size(); ++k) size_hints[k] = written[k].first->raw().size;
    }
    if (work_counter) last_work.store(*work_counter);
    auto outputs_text = [&] {
        std::string text;
        for (const auto& name : plan.visible_outputs)
            text += fmt::format("{}{} of shape {} ({})", text.empty() ? "" : ", ", name,
                                shape_text(output(name).shape()), output(name).format().to_string());
        return text;
    };
    if (status == kErrAlloc)
        throw Error(fmt::format("the compiled kernel ran out of memory while building its outputs: {}",
                                outputs_text()));
    if (status == kErrSize)
        throw Error(fmt::format("the compiled kernel stopped: the size of a buffer of its outputs "
                                "does not fit 64 bits: {}",
                                outputs_text()));
    if (status == kErrStructure)
        throw Error(fmt::format("the compiled kernel wrote more than its outputs' levels can hold "
                                "(a sparsepoint fibre holds one entry, a sparseinterval fibre one "
                                "run of one value); the outputs are not written: {}",
                                outputs_text()));
    if (status == kErrIndexOverflow) {
        std::string narrow;
        for (const auto& name : plan.visible_outputs)
            for (const auto& level : plan.signatures.at(name).format.levels())
                if (!levels::properties_of(level).implicit && level.index_bits == 32) {
                    narrow += (narrow.empty() ? "" : ", ") + name;
                    break;
                }
        throw IndexOverflow(fmt::format("output {} has more entries than its 32-bit indices can "
                                        "address; ask for 64-bit indices (e.g. csr@64) or leave "
                                        "the width out",
                                        narrow.empty() ? "?" : narrow));
    }
    if (status == kErrCoordinate)
        throw Error(fmt::format("a computed subscript took a coordinate outside its tensor ({}); "
                                "the outputs are not written",
                                fmt::join(plan.computed, ", ")));
    if (status != 0)
        throw Error(fmt::format("the compiled kernel failed with status {}", status), Error::Kind::Internal);
    deliver_routes();
}

const std::string& Kernel::c_source() const { return impl_->plan.c_source; }
const std::vector<std::string>& Kernel::inputs() const { return impl_->plan.inputs; }
const std::vector<std::string>& Kernel::outputs() const { return impl_->plan.visible_outputs; }
const TensorSignature& Kernel::signature(const std::string& tensor) const {
    auto it = impl_->plan.signatures.find(tensor);
    if (it == impl_->plan.signatures.end())
        throw Error(fmt::format("the kernel has no tensor {}", tensor));
    return it->second;
}
codegen::CacheStatus Kernel::cache() const { return impl_->jit.cache; }
double Kernel::compile_ms() const { return impl_->jit.compile_ms; }
int64_t Kernel::last_work() const { return impl_->last_work.load(); }

std::map<std::string, Tensor> Kernel::prepare(
    const std::map<std::string, std::vector<int64_t>>& shapes) const {
    std::map<std::string, Tensor> out;
    for (const auto& name : impl_->plan.visible_outputs) {
        auto it = shapes.find(name);
        if (it == shapes.end()) throw Error(fmt::format("no shape given for output {}", name));
        const TensorSignature& s = impl_->plan.signatures.at(name);
        out.emplace(name, Tensor(it->second, s.type, s.fill, s.format));
    }
    return out;
}

std::map<std::string, Tensor> Kernel::Impl::unbuilt_outputs(
    const std::map<std::string, std::vector<int64_t>>& shapes) const {
    std::map<std::string, Tensor> out;
    for (const auto& name : plan.visible_outputs) {
        auto it = shapes.find(name);
        if (it == shapes.end()) throw Error(fmt::format("no shape given for output {}", name));
        const TensorSignature& s = plan.signatures.at(name);
        out.emplace(name, detail::unbuilt_tensor(it->second, s.type, s.fill, s.format));
    }
    return out;
}

void Kernel::run(const std::map<std::string, const Tensor*>& inputs,
                 std::map<std::string, Tensor>& outputs) const {
    impl_->run(inputs, outputs, true);
}

std::string generate_c(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& tensors,
                       const CompileOptions& options) {
    return compiler::plan_kernel(program, tensors, options).c_source;
}

std::shared_ptr<const Kernel> compile(const ir::Program& program,
                                      const std::map<std::string, TensorSignature>& tensors,
                                      const CompileOptions& options) {
    auto impl = std::make_shared<Kernel::Impl>();
    impl->plan = compiler::plan_kernel(program, tensors, options);
    codegen::JitOptions jit = options.jit;
    jit.openmp = jit.openmp || impl->plan.openmp;
    impl->jit = codegen::jit_compile(impl->plan.c_source, jit);
    impl->entry = impl->jit.library->function<int(RawBuffer**, const int64_t*)>(compiler::kKernelSymbol);
    if (options.count_work)
        impl->work_counter = static_cast<const int64_t*>(impl->jit.library->symbol(compiler::kWorkCounterSymbol));
    if (impl->plan.openmp) impl->largest_team = static_cast<int*>(impl->jit.library->symbol(kLargestTeamSymbol));
    return std::make_shared<const Kernel>(impl);
}

} // namespace siskin
