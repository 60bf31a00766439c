// TensorStatistics: one pass over a tensor's stored entries, and a cache of them keyed by the
// tensor's contents, so a tensor planned for again (a kernel called in a loop, `siskin explain`
// then `run`) is not scanned again.
#include <algorithm>
#include <list>
#include <mutex>
#include <utility>

#include <xxhash.h>

#include "siskin/planner.hpp"

namespace siskin {

TensorStatistics TensorStatistics::of(const Tensor& t) {
    TensorStatistics s;
    s.shape = t.shape();
    // Counts per coordinate take memory in the dimension, not in the entries: a dimension far
    // longer than what is stored (a 2^40 x 2^40 matrix of six entries) is not counted, and the
    // planner weighs no plans for it.
    const int64_t countable = std::max<int64_t>(int64_t{1} << 24, 4 * t.stored());
    for (int64_t n : s.shape) {
        if (n > countable) {
            s.per_coordinate.clear();
            break;
        }
        s.per_coordinate.emplace_back(static_cast<size_t>(n), 0);
    }
    const bool counted = s.per_coordinate.size() == s.shape.size();
    // Storage position k (levels flattened) holds dimension mode[k]; entries come in storage
    // order, so the entries sharing a prefix of storage positions are consecutive.
    const std::vector<int> mode = t.format().mode_order();
    const size_t depth = mode.size();
    s.level_entries.assign(depth, 0);
    s.max_fibre.assign(depth, 0);
    std::vector<int64_t> previous(depth, -1), run(depth, 0);
    bool first = true;
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (v.same(t.fill())) return; // a stored fill (or a fill run) is no entry
        ++s.entries;
        if (counted)
            for (size_t d = 0; d < c.size(); ++d) ++s.per_coordinate[d][static_cast<size_t>(c[d])];
        // The first storage position where this entry leaves the previous one's prefix: a new
        // prefix there and below, one more child in the fibre above it.
        size_t k = 0;
        while (!first && k < depth && previous[k] == c[static_cast<size_t>(mode[k])]) ++k;
        for (size_t d = k; d < depth; ++d) {
            ++s.level_entries[d];
            run[d] = d == k && !first ? run[d] + 1 : 1;
            s.max_fibre[d] = std::max(s.max_fibre[d], run[d]);
            previous[d] = c[static_cast<size_t>(mode[d])];
        }
        first = false;
    });
    return s;
}

double TensorStatistics::mean_fibre(size_t level) const {
    double above = level == 0 ? 1.0 : static_cast<double>(level_entries.at(level - 1));
    return above > 0 ? static_cast<double>(level_entries.at(level)) / above : 0.0;
}

namespace {

// What a tensor's statistics are a function of: the bytes of every buffer (a 128-bit hash and
// the length of each), its shape, format and fill. Keyed by content, not by address: a tensor
// freed and another allocated at the same addresses, or index arrays rewritten in place, get
// their own statistics. Hashing reads each buffer once at memory speed, a small part of what
// the scan costs (a visit per stored entry and a count per dimension).
struct StorageKey {
    std::vector<XXH128_hash_t> hashes;
    std::vector<int64_t> sizes;
    std::string description;
    bool operator==(const StorageKey& o) const {
        if (hashes.size() != o.hashes.size() || sizes != o.sizes || description != o.description) return false;
        for (size_t k = 0; k < hashes.size(); ++k)
            if (!XXH128_isEqual(hashes[k], o.hashes[k])) return false;
        return true;
    }
};

StorageKey key_of(const Tensor& t) {
    StorageKey k;
    auto add = [&](const Buffer& b) {
        k.hashes.push_back(XXH3_128bits(b.data<void>(), static_cast<size_t>(b.size()) * type_size(b.type())));
        k.sizes.push_back(b.size());
        k.description += type_name(b.type());
        k.description += ' ';
    };
    for (int l = 0; l < t.num_levels(); ++l)
        for (const Buffer& b : t.level(l).buffers) add(b);
    add(t.values());
    for (int64_t n : t.shape()) k.sizes.push_back(n);
    k.description += t.format().to_string() + " " + t.fill().to_string();
    return k;
}

} // namespace

std::shared_ptr<const TensorStatistics> statistics_of(const Tensor& t) {
    // The most recently used first; a few dozen tensors are planned for at a time.
    constexpr size_t kKept = 64;
    static std::mutex mutex;
    static std::list<std::pair<StorageKey, std::shared_ptr<const TensorStatistics>>> cache;
    StorageKey key = key_of(t);
    {
        std::lock_guard lock(mutex);
        for (auto it = cache.begin(); it != cache.end(); ++it)
            if (it->first == key) {
                cache.splice(cache.begin(), cache, it);
                return it->second;
            }
    }
    auto s = std::make_shared<const TensorStatistics>(TensorStatistics::of(t));
    std::lock_guard lock(mutex);
    cache.emplace_front(std::move(key), s);
    if (cache.size() > kKept) cache.pop_back();
    return s;
}

} // namespace siskin
