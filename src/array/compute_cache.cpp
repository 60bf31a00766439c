#include "array/compute_cache.hpp"

#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>

#include "array/node.hpp"

namespace siskin::array_detail {

namespace {

// Appends fixed-width fields: the key is compared, never read, so no separators are needed
// beyond the lengths written before variable-length parts.
class KeyWriter {
public:
    std::string text;
    void number(int64_t v) { text.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void word(const std::string& s) {
        number(static_cast<int64_t>(s.size()));
        text += s;
    }
    void scalar(const Scalar& s) {
        alignas(8) unsigned char bytes[8] = {};
        s.store(bytes); // the exact bits: -0.0 and NaN payloads are other keys, never merged
        number(static_cast<int64_t>(s.type()));
        text.append(reinterpret_cast<const char*>(bytes), sizeof bytes);
    }
    void numbers(const std::vector<int64_t>& v) {
        number(static_cast<int64_t>(v.size()));
        for (int64_t x : v) number(x);
    }
};

class KeyBuilder {
public:
    ExpressionKey key;

    void node(const Array& a) {
        const Array::Node& n = a.node();
        // A node met again (a shared subexpression, computed once into a temporary) is named
        // by its first visit.
        auto [it, fresh] = seen_.emplace(&n, static_cast<int64_t>(seen_.size()));
        if (!fresh) {
            w_.number(-1 - it->second);
            return;
        }
        w_.number(static_cast<int64_t>(n.kind));
        w_.numbers(n.shape);
        w_.number(static_cast<int64_t>(n.type));
        w_.scalar(n.fill);
        w_.number(n.weak);
        w_.word(n.op);
        w_.number(static_cast<int64_t>(n.sources.size()));
        for (const DimSource& s : n.sources) {
            w_.number(s.from ? *s.from : -1);
            w_.number(s.offset);
            w_.number(s.stride);
        }
        w_.number(static_cast<int64_t>(n.reduced.size()));
        for (bool r : n.reduced) w_.number(r);
        w_.number(static_cast<int64_t>(n.labels.size()));
        for (const auto& l : n.labels) w_.numbers(std::vector<int64_t>(l.begin(), l.end()));
        w_.numbers(std::vector<int64_t>(n.out_labels.begin(), n.out_labels.end()));
        w_.number(n.axis);
        if (n.kind == Array::Node::Kind::Tensor) tensor(n);
        w_.number(static_cast<int64_t>(n.children.size()));
        for (const Array& c : n.children) node(c);
    }

    ExpressionKey finish() {
        key.text = std::move(w_.text);
        return std::move(key);
    }
    KeyWriter& writer() { return w_; }

private:
    // A tensor by its signature and the order it first appears in (the same tensor object read
    // twice is one input of the program).
    void tensor(const Array::Node& n) {
        const Tensor* t = n.tensor.get();
        auto [it, fresh] = tensors_.emplace(t, static_cast<int64_t>(key.tensors.size()));
        if (fresh) key.tensors.push_back(t);
        w_.number(it->second);
        w_.word(n.name);
        w_.word(t->format().to_string());
        w_.number(static_cast<int64_t>(t->type()));
        w_.scalar(t->fill());
        w_.numbers(t->shape());
    }

    KeyWriter w_;
    std::map<const Array::Node*, int64_t> seen_;
    std::map<const Tensor*, int64_t> tensors_;
};

// The environment that decides how a kernel is compiled (jit.cpp, cache.cpp).
constexpr const char* kCompileEnvironment[] = {"SISKIN_CC",         "SISKIN_CFLAGS",
                                               "SISKIN_CC_TIMEOUT", "SISKIN_MAX_C_BYTES",
                                               "SISKIN_CACHE_DIR",  "XDG_CACHE_HOME"};

void jit_options(KeyWriter& w, const codegen::JitOptions& j) {
    w.word(j.compiler ? *j.compiler : "\x01" "default");
    w.number(j.flags ? static_cast<int64_t>(j.flags->size()) : -1);
    if (j.flags)
        for (const auto& f : *j.flags) w.word(f);
    w.word(j.cache_dir ? *j.cache_dir : "\x01" "default");
    w.number(j.compile_timeout_s ? static_cast<int64_t>(*j.compile_timeout_s * 1e6) : -1);
    w.number(j.max_c_bytes ? static_cast<int64_t>(*j.max_c_bytes) : -1);
    w.number(j.openmp);
}

struct Cache {
    std::mutex mutex;
    // Most recently used first: each key with the programs compiled for it (several when an
    // input's finiteness differed between computes).
    std::list<std::pair<std::string, std::vector<std::shared_ptr<const CachedCompute>>>> entries;
};

Cache& cache() {
    static Cache c;
    return c;
}

constexpr size_t kKeysKept = 64;
constexpr size_t kProgramsPerKey = 4;

} // namespace

std::optional<ExpressionKey> expression_key(const Array& root, const Format& format,
                                            const ComputeOptions& options) {
    const CompileOptions& c = options.compile;
    if (options.interpret || c.count_work || c.dump_after) return std::nullopt;
    if (const char* dump = std::getenv("SISKIN_DUMP_AFTER"); dump && *dump) return std::nullopt;
    KeyBuilder b;
    KeyWriter& w = b.writer();
    w.word(format.to_string());
    w.number(kernel_threads(c.threads));
    w.number(c.reassociate);
    w.number(c.max_position_32);
    w.number(c.parallel_min_work);
    w.number(options.plan.as_written);
    w.number(options.plan.candidate ? static_cast<int64_t>(*options.plan.candidate) : -1);
    jit_options(w, c.jit);
    for (const char* name : kCompileEnvironment) {
        const char* v = std::getenv(name);
        w.word(v ? v : "\x01unset");
    }
    b.node(root);
    return b.finish();
}

std::map<std::string, const Tensor*> bind_inputs(const CachedCompute& compiled, const ExpressionKey& key) {
    std::map<std::string, const Tensor*> inputs;
    for (const auto& [name, k] : compiled.inputs) inputs.emplace(name, key.tensors.at(k));
    return inputs;
}

std::shared_ptr<const CachedCompute> find_compiled(const ExpressionKey& key) {
    std::vector<std::shared_ptr<const CachedCompute>> candidates;
    {
        std::lock_guard lock(cache().mutex);
        auto& entries = cache().entries;
        for (auto it = entries.begin(); it != entries.end(); ++it)
            if (it->first == key.text) {
                entries.splice(entries.begin(), entries, it);
                candidates = it->second;
                break;
            }
    }
    // Scanned outside the lock: a scan reads the whole of a tensor's values.
    for (const auto& c : candidates)
        if (c->compiled.inputs_finite(bind_inputs(*c, key))) return c;
    return nullptr;
}

void keep_compiled(const ExpressionKey& key, std::shared_ptr<const CachedCompute> compiled) {
    std::lock_guard lock(cache().mutex);
    auto& entries = cache().entries;
    auto it = entries.begin();
    while (it != entries.end() && it->first != key.text) ++it;
    if (it == entries.end()) {
        entries.emplace_front(key.text, std::vector<std::shared_ptr<const CachedCompute>>{});
        it = entries.begin();
    } else {
        entries.splice(entries.begin(), entries, it);
    }
    auto& programs = it->second;
    // A program for finite values first: it is the faster one when the inputs allow it.
    if (compiled->compiled.finite_inputs.empty()) programs.push_back(std::move(compiled));
    else programs.insert(programs.begin(), std::move(compiled));
    if (programs.size() > kProgramsPerKey) programs.pop_back();
    if (entries.size() > kKeysKept) entries.pop_back();
}

} // namespace siskin::array_detail
