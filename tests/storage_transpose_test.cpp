// Tensor::convert between CSR and CSC takes the counting-sort path (src/tensor/transpose.cpp).
// Its storage must be exactly what the general builder makes from the same entries: the same
// pos, crd and values, explicit fills dropped, index widths chosen alike.
#include <cmath>
#include <random>

#include "storage_helpers.hpp"
#include "tensor/transpose.hpp"

namespace siskin::testing {
namespace {

// A random m x n matrix of `type` in `format`, with about a third of its stored entries equal
// to the fill (explicit fills that a conversion must drop).
Tensor random_with_explicit_fills(int64_t m, int64_t n, ValueType type, const Scalar& fill,
                                  const std::string& format, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double r = u(rng);
            if (r < 0.1) list.add(std::vector<int64_t>{i, j}, fill);
            else if (r < 0.3) list.add(std::vector<int64_t>{i, j}, Scalar::of(std::floor(u(rng) * 9) + 1).cast(type));
        }
    return Tensor::from_coordinates({m, n}, type, fill, Format::parse(format, 2), list);
}

// The general builder's result for the same values: stored entries other than the fill.
Tensor rebuilt(const Tensor& t, const Format& format) {
    CoordinateList list;
    list.ndims = 2;
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (!v.same(t.fill())) list.add(c, v);
    });
    return Tensor::from_coordinates(t.shape(), t.type(), t.fill(), format, list);
}

void expect_same_storage(const Tensor& got, const Tensor& want) {
    ASSERT_EQ(got.format().to_string(), want.format().to_string());
    ASSERT_EQ(got.num_levels(), want.num_levels());
    for (int k = 0; k < got.num_levels(); ++k) {
        EXPECT_EQ(got.level(k).names, want.level(k).names) << k;
        for (size_t b = 0; b < got.level(k).buffers.size(); ++b) {
            EXPECT_EQ(got.level(k).buffers[b].type(), want.level(k).buffers[b].type());
            EXPECT_EQ(ints(got.level(k).buffers[b]), ints(want.level(k).buffers[b])) << k << " " << b;
        }
    }
    ASSERT_EQ(got.values().size(), want.values().size());
    for (int64_t p = 0; p < got.values().size(); ++p)
        EXPECT_TRUE(got.values().get(p).same(want.values().get(p))) << p;
    EXPECT_TRUE(got.equals(want));
}

TEST(StorageTranspose, CsrToCscMatchesTheGeneralBuilder) {
    struct Case {
        ValueType type;
        Scalar fill;
    };
    const Case cases[] = {{ValueType::Float64, Scalar::of(0.0)},   {ValueType::Float64, Scalar::of(2.5)},
                          {ValueType::Float64, Scalar::of(NAN)},   {ValueType::Float32, Scalar::of(1.0)},
                          {ValueType::Int64, Scalar::of(int64_t{7})}, {ValueType::Int8, Scalar::of(int64_t{0})},
                          {ValueType::UInt16, Scalar::of(int64_t{3})}, {ValueType::Bool, Scalar::of(false)}};
    uint64_t seed = 1;
    for (const Case& c : cases) {
        for (const char* from : {"csr", "csc", "csr@64", "csc@32"}) {
            for (const char* to : {"csc", "csr", "csc@64", "csr@32"}) {
                Tensor t = random_with_explicit_fills(13, 29, c.type, c.fill, from, seed++);
                Format target = Format::parse(to, 2);
                Tensor got = t.convert(target);
                expect_same_storage(got, rebuilt(t, target));
                EXPECT_TRUE(got.equals(t)) << from << " -> " << to;
            }
        }
    }
}

TEST(StorageTranspose, SharedOverThreadsItIsTheSameTranspose) {
    // One share per thread however small (least_share_work 1): each thread counts and scatters a
    // share of the old rows, and the storage is the one-pass transpose's, byte for byte. Rows 0
    // and 5 are empty, row 3 is full, the last column is full but for the empty rows (one long
    // new fibre that every share writes a part of), a third of the other entries are explicit
    // fills.
    auto matrix = [](int64_t m, int64_t n, const char* format, uint64_t seed) {
        Tensor t = random_with_explicit_fills(m, n, ValueType::Float64, Scalar::of(0.0), format, seed);
        CoordinateList list;
        list.ndims = 2;
        t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
            if (c[0] != 0 && c[0] != 5 && c[0] != 3 && c[1] != n - 1) list.add(c, v);
        });
        for (int64_t j = 0; m > 3 && j < n; ++j) list.add(std::vector<int64_t>{3, j}, Scalar::of(double(j + 1)));
        for (int64_t i = 0; n > 0 && i < m; ++i)
            if (i != 0 && i != 5 && i != 3) list.add(std::vector<int64_t>{i, n - 1}, Scalar::of(double(i + 2)));
        return Tensor::from_coordinates({m, n}, ValueType::Float64, Scalar::of(0.0), Format::parse(format, 2), list);
    };
    const std::pair<std::vector<int64_t>, const char*> cases[] = {
        {{41, 37}, "csr"}, {{37, 41}, "csc@64"}, {{6, 300}, "csr"}, {{300, 6}, "csc"}, {{0, 5}, "csr"}, {{5, 0}, "csr"}};
    uint64_t seed = 90;
    for (const auto& [shape, from] : cases) {
        Tensor t = matrix(shape[0], shape[1], from, seed++);
        Format target = Format::parse(std::string(from).starts_with("csr") ? "csc" : "csr", 2);
        Tensor serial = t.convert(target);
        for (int threads : {1, 2, 3, 7}) {
            auto got = detail::transpose_compressed(t, target, threads, 1);
            ASSERT_TRUE(got.has_value());
            for (size_t b = 0; b < 2; ++b)
                EXPECT_EQ(ints(got->levels[1].buffers[b]), ints(serial.level(1).buffers[b]))
                    << from << " " << shape[0] << "x" << shape[1] << " threads " << threads << " buffer " << b;
            ASSERT_EQ(got->values.size(), serial.values().size());
            for (int64_t p = 0; p < serial.values().size(); ++p)
                EXPECT_TRUE(got->values.get(p).same(serial.values().get(p))) << p;
        }
    }
}

TEST(StorageTranspose, EmptyAndDegenerateShapes) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{0, 5}, {5, 0}, {1, 1}, {4, 4}}) {
        Tensor t(shape, ValueType::Float64, Scalar::of(0.0), Format::csr());
        Tensor got = t.convert(Format::csc());
        expect_same_storage(got, rebuilt(t, Format::csc()));
        EXPECT_EQ(got.stored(), 0);
    }
}

} // namespace
} // namespace siskin::testing
