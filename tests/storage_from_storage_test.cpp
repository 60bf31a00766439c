// Tensor::from_storage over borrowed buffers (Buffer::borrow): equal to the tensor the builders
// make, sharing the caller's memory, keeping its owner alive, never writing it; and every
// broken layout refused with a message that names the level and the position.
#include <memory>
#include <random>

#include <gtest/gtest.h>

#include "siskin/compiler.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"
#include "siskin/tensor.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::throws_error;

namespace {

// Vectors the test owns, borrowed by buffers; `alive` says whether any buffer still holds them.
template <class T> struct Owned {
    std::shared_ptr<std::vector<T>> data;
    Buffer borrow(ValueType type) const {
        return Buffer::borrow(type, data->data(), static_cast<int64_t>(data->size()), data);
    }
};
template <class T> Owned<T> owned(std::vector<T> v) { return {std::make_shared<std::vector<T>>(std::move(v))}; }

// A random csr matrix (as coordinates) and its arrays.
struct Csr {
    int64_t rows, cols;
    std::vector<int32_t> pos, crd;
    std::vector<double> values;
    CoordinateList coordinates;
};

Csr random_csr(std::mt19937& rng, int64_t rows, int64_t cols) {
    Csr m{rows, cols, {0}, {}, {}, CoordinateList{2, {}, {}}};
    std::uniform_real_distribution<double> value(-1, 1);
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j)
            if (rng() % 3 == 0) {
                double v = value(rng);
                m.crd.push_back(static_cast<int32_t>(j));
                m.values.push_back(v);
                int64_t c[2] = {i, j};
                m.coordinates.add(c, Scalar::of(v));
            }
        m.pos.push_back(static_cast<int32_t>(m.crd.size()));
    }
    return m;
}

Tensor csr_over(const Owned<int32_t>& pos, const Owned<int32_t>& crd, const Owned<double>& values,
                std::vector<int64_t> shape) {
    std::vector<std::map<std::string, Buffer>> levels(2);
    levels[1].emplace("pos", pos.borrow(ValueType::Int32));
    levels[1].emplace("crd", crd.borrow(ValueType::Int32));
    return Tensor::from_storage(std::move(shape), ValueType::Float64, Scalar::of(0.0), Format::csr(),
                                std::move(levels), values.borrow(ValueType::Float64));
}

} // namespace

TEST(StorageFromStorage, CsrOverBorrowedArraysEqualsTheBuiltTensorAndComputesTheSame) {
    std::mt19937 rng(20);
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{0, 3}, {1, 1}, {7, 5}, {30, 40}}) {
        Csr m = random_csr(rng, rows, cols);
        auto pos = owned(m.pos), crd = owned(m.crd);
        auto values = owned(m.values);
        Tensor t = csr_over(pos, crd, values, {rows, cols});
        Tensor built = Tensor::from_coordinates({rows, cols}, ValueType::Float64, Scalar::of(0.0),
                                                Format::csr(), m.coordinates);
        EXPECT_TRUE(t.equals(built));
        EXPECT_EQ(t.format().to_string(), "dense(0)@32/sparselist(1)@32");
        EXPECT_EQ(t.values().data<double>(), values.data->data()); // in place
        std::vector<double> ones(static_cast<size_t>(cols), 1.0);
        std::vector<Scalar> x_values;
        for (double v : ones) x_values.push_back(Scalar::of(v));
        Tensor x = Tensor::from_dense({cols}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), x_values);
        auto program = ir::parse_program("y[i] += A[i,j] * x[j]");
        auto got = evaluate_compiled(program, {{"A", &t}, {"x", &x}});
        auto want = evaluate_reference(program, {{"A", &built}, {"x", &x}});
        ASSERT_EQ(got.at("y").shape(), want.at("y").shape());
        for (int64_t i = 0; i < rows; ++i)
            EXPECT_NEAR(got.at("y").at({i}).as_double(), want.at("y").at({i}).as_double(), 1e-12);
    }
}

TEST(StorageFromStorage, TheOwnerLivesAsLongAsABufferUsesItsMemory) {
    auto values = owned(std::vector<double>{1, 2, 3});
    std::weak_ptr<std::vector<double>> alive = values.data;
    {
        Tensor t = Tensor::from_storage({3}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), {{}},
                                        values.borrow(ValueType::Float64));
        values.data.reset();
        EXPECT_FALSE(alive.expired());
        Tensor copy = t; // a copy owns its memory
        EXPECT_FALSE(copy.values().borrowed());
        EXPECT_TRUE(copy.equals(t));
    }
    EXPECT_TRUE(alive.expired());
}

TEST(StorageFromStorage, WritesCopyBorrowedMemoryFirstAndChangesByTheOwnerAreSeen) {
    auto values = owned(std::vector<double>{1, 2, 3});
    Buffer b = values.borrow(ValueType::Float64);
    (*values.data)[1] = 20;
    EXPECT_EQ(b.get(1).as_double(), 20);
    b.set(0, Scalar::of(9.0));
    EXPECT_FALSE(b.borrowed());
    EXPECT_EQ((*values.data)[0], 1); // the owner's memory was not written
    EXPECT_EQ(b.get(0).as_double(), 9);
    EXPECT_EQ(b.get(1).as_double(), 20);
    Buffer grown = values.borrow(ValueType::Float64);
    grown.push_back(Scalar::of(4.0));
    EXPECT_EQ(grown.size(), 4);
    EXPECT_EQ((*values.data).size(), 3u);
}

TEST(StorageFromStorage, CooLevelOverCoordinateArrays) {
    auto pos = owned(std::vector<int64_t>{0, 3});
    auto rows = owned(std::vector<int64_t>{0, 0, 2});
    auto cols = owned(std::vector<int64_t>{1, 3, 0});
    auto values = owned(std::vector<double>{1, 2, 3});
    std::vector<std::map<std::string, Buffer>> levels(1);
    levels[0].emplace("pos", pos.borrow(ValueType::Int64));
    levels[0].emplace("crd0", rows.borrow(ValueType::Int64));
    levels[0].emplace("crd1", cols.borrow(ValueType::Int64));
    Tensor t = Tensor::from_storage({3, 4}, ValueType::Float64, Scalar::of(0.0), Format::coo(2), std::move(levels),
                                    values.borrow(ValueType::Float64));
    EXPECT_EQ(t.at({0, 3}).as_double(), 2);
    EXPECT_EQ(t.at({2, 0}).as_double(), 3);
    EXPECT_EQ(t.at({1, 1}).as_double(), 0);
    EXPECT_EQ(t.format().to_string(), "coo(0,1)@64");
}

TEST(StorageFromStorage, BrokenLayoutsAreRefusedWithWhereAndWhat) {
    auto values2 = owned(std::vector<double>{1, 2});
    auto check = [&](std::vector<int32_t> pos, std::vector<int32_t> crd, std::vector<std::string> parts) {
        auto p = owned(std::move(pos)), c = owned(std::move(crd));
        EXPECT_TRUE(throws_error([&] { csr_over(p, c, values2, {2, 3}); }, parts));
    };
    check({0, 2, 1}, {0, 1}, {"level 1 (sparselist)", "pos decreases"});
    check({1, 1, 2}, {0, 1}, {"pos[0] is 1"});
    check({0, 2}, {0, 1}, {"pos holds 2 positions", "needs 3"});
    check({0, 1, 2}, {0, 3}, {"coordinate 3", "outside dimension 1"});
    check({0, 1, 2}, {0, -1}, {"coordinate -1"});
    check({0, 2, 2}, {2, 1}, {"fibre 0", "sorted and unique"});
    check({0, 2, 2}, {1, 1}, {"sorted and unique"});
    check({0, 1, 3}, {0, 1}, {"crd holds 2 coordinates"});
    auto p = owned(std::vector<int32_t>{0, 1, 2}), c = owned(std::vector<int32_t>{0, 1});
    auto three = owned(std::vector<double>{1, 2, 3});
    EXPECT_TRUE(throws_error([&] { csr_over(p, c, three, {2, 3}); }, {"values hold 3", "store 2"}));
    // Mixed index widths, a wrong value type, an unknown buffer, a level it cannot check.
    auto wide = owned(std::vector<int64_t>{0, 1});
    std::vector<std::map<std::string, Buffer>> mixed(2);
    mixed[1].emplace("pos", p.borrow(ValueType::Int32));
    mixed[1].emplace("crd", wide.borrow(ValueType::Int64));
    EXPECT_TRUE(throws_error([&] {
        Tensor::from_storage({2, 3}, ValueType::Float64, Scalar::of(0.0), Format::csr(), std::move(mixed),
                             values2.borrow(ValueType::Float64));
    }, {"mix int32 and int64"}));
    EXPECT_TRUE(throws_error([&] {
        Tensor::from_storage({2}, ValueType::Int64, Scalar::of(int64_t{0}), Format::dense(1), {{}},
                             values2.borrow(ValueType::Float64));
    }, {"values hold float64", "int64"}));
    std::vector<std::map<std::string, Buffer>> unknown(1);
    unknown[0].emplace("idx", wide.borrow(ValueType::Int64));
    EXPECT_TRUE(throws_error([&] {
        Tensor::from_storage({2}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), std::move(unknown),
                             values2.borrow(ValueType::Float64));
    }, {"no buffer 'idx'"}));
    try {
        Tensor::from_storage({2}, ValueType::Float64, Scalar::of(0.0), Format::parse("runlist(0)", 1), {{}},
                             values2.borrow(ValueType::Float64));
        ADD_FAILURE() << "a runlist level was taken";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::Unsupported);
    }
}
