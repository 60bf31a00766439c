// The SuiteSparse:GraphBLAS half of `siskin_native`: matrices built once from CSR arrays, each
// operation timed here in C++ from creating its output to GrB_wait (GraphBLAS may defer work
// until then), single-threaded (GxB_NTHREADS = 1), results handed back as coordinate tuples.
#include <chrono>
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" { // GraphBLAS.h declares its C functions without extern "C"
#include <GraphBLAS.h>
}
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void ok(GrB_Info info, const char* what) {
    if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
        throw std::runtime_error(std::string("GraphBLAS ") + what + " failed: info " + std::to_string(info));
}

using IntArray = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;
using F64Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// An owned GrB_Matrix or GrB_Vector (freed with the object).
struct GbMatrix {
    GrB_Matrix m = nullptr;
    ~GbMatrix() { if (m) GrB_Matrix_free(&m); }
};
struct GbVector {
    GrB_Vector v = nullptr;
    ~GbVector() { if (v) GrB_Vector_free(&v); }
};
using MatrixPtr = std::shared_ptr<GbMatrix>;
using VectorPtr = std::shared_ptr<GbVector>;

GrB_Index nrows(const GbMatrix& a) { GrB_Index n; ok(GrB_Matrix_nrows(&n, a.m), "nrows"); return n; }
GrB_Index ncols(const GbMatrix& a) { GrB_Index n; ok(GrB_Matrix_ncols(&n, a.m), "ncols"); return n; }

MatrixPtr from_coo(int64_t rows, int64_t cols, const IntArray& I, const IntArray& J, const F64Array& X) {
    auto a = std::make_shared<GbMatrix>();
    ok(GrB_Matrix_new(&a->m, GrB_FP64, static_cast<GrB_Index>(rows), static_cast<GrB_Index>(cols)), "Matrix_new");
    ok(GxB_Matrix_Option_set(a->m, GxB_FORMAT, GxB_BY_ROW), "set by row");
    ok(GrB_Matrix_build_FP64(a->m, reinterpret_cast<const GrB_Index*>(I.data()),
                             reinterpret_cast<const GrB_Index*>(J.data()), X.data(),
                             static_cast<GrB_Index>(X.size()), GrB_PLUS_FP64), "Matrix_build");
    ok(GrB_Matrix_wait(a->m, GrB_MATERIALIZE), "wait");
    return a;
}

// A boolean matrix (every stored entry true) or a sparse vector, bool or float64, from
// coordinates; stored_by_col holds the matrix by column (GraphBLAS's CSC).
using BoolArray = py::array_t<bool, py::array::c_style | py::array::forcecast>;
MatrixPtr bool_from_coo(int64_t rows, int64_t cols, const IntArray& I, const IntArray& J) {
    auto a = std::make_shared<GbMatrix>();
    ok(GrB_Matrix_new(&a->m, GrB_BOOL, static_cast<GrB_Index>(rows), static_cast<GrB_Index>(cols)), "Matrix_new");
    ok(GxB_Matrix_Option_set(a->m, GxB_FORMAT, GxB_BY_ROW), "set by row");
    std::unique_ptr<bool[]> x(new bool[static_cast<size_t>(I.size())]);
    for (py::ssize_t k = 0; k < I.size(); ++k) x[static_cast<size_t>(k)] = true;
    ok(GrB_Matrix_build_BOOL(a->m, reinterpret_cast<const GrB_Index*>(I.data()),
                             reinterpret_cast<const GrB_Index*>(J.data()), x.get(),
                             static_cast<GrB_Index>(I.size()), GrB_LOR), "Matrix_build");
    ok(GrB_Matrix_wait(a->m, GrB_MATERIALIZE), "wait");
    return a;
}
void store_by_col(const MatrixPtr& a) {
    ok(GxB_Matrix_Option_set(a->m, GxB_FORMAT, GxB_BY_COL), "set by column");
    ok(GrB_Matrix_wait(a->m, GrB_MATERIALIZE), "wait");
}
VectorPtr sparse_vector(int64_t n, const IntArray& I, const F64Array& X, bool boolean) {
    auto v = std::make_shared<GbVector>();
    ok(GrB_Vector_new(&v->v, boolean ? GrB_BOOL : GrB_FP64, static_cast<GrB_Index>(n)), "Vector_new");
    ok(GrB_Vector_build_FP64(v->v, reinterpret_cast<const GrB_Index*>(I.data()), X.data(),
                             static_cast<GrB_Index>(X.size()), boolean ? GrB_LOR : GrB_MIN_FP64), "Vector_build");
    ok(GrB_Vector_wait(v->v, GrB_MATERIALIZE), "wait");
    return v;
}

// How GraphBLAS holds a vector now (its choice: GxB_AUTO_SPARSITY): "hypersparse", "sparse",
// "bitmap" or "full".
std::string sparsity_name(int s) {
    switch (s) {
    case GxB_HYPERSPARSE: return "hypersparse";
    case GxB_SPARSE: return "sparse";
    case GxB_BITMAP: return "bitmap";
    case GxB_FULL: return "full";
    default: return "unknown";
    }
}
std::string vector_sparsity(const VectorPtr& v) {
    int s = 0;
    ok(GxB_Vector_Option_get(v->v, GxB_SPARSITY_STATUS, &s), "sparsity status");
    return sparsity_name(s);
}

// The semirings of the masked products: (or, and) on bool, (min, +) on float64.
GrB_Semiring semiring(const std::string& name) {
    if (name == "or_and") return GrB_LOR_LAND_SEMIRING_BOOL;
    if (name == "min_plus") return GrB_MIN_PLUS_SEMIRING_FP64;
    throw std::runtime_error("unknown semiring " + name);
}
// Structural mask, output replaced (the output is new: nothing outside the mask survives),
// complemented or not: siskin's `if m[i]` / `if !m[i]` on a mask whose stored values are true.
GrB_Descriptor mask_descriptor(bool complement) { return complement ? GrB_DESC_RSC : GrB_DESC_RS; }

// A full (every entry present) vector or row-major matrix from a dense NumPy array.
VectorPtr dense_vector(const F64Array& x) {
    auto v = std::make_shared<GbVector>();
    auto n = static_cast<GrB_Index>(x.size());
    ok(GrB_Vector_new(&v->v, GrB_FP64, n), "Vector_new");
    for (GrB_Index i = 0; i < n; ++i) ok(GrB_Vector_setElement_FP64(v->v, x.data()[i], i), "setElement");
    ok(GrB_Vector_wait(v->v, GrB_MATERIALIZE), "wait");
    return v;
}
MatrixPtr dense_matrix(const F64Array& b) {
    if (b.ndim() != 2) throw std::runtime_error("dense_matrix needs a 2-D array");
    auto a = std::make_shared<GbMatrix>();
    auto r = static_cast<GrB_Index>(b.shape(0)), c = static_cast<GrB_Index>(b.shape(1));
    ok(GrB_Matrix_new(&a->m, GrB_FP64, r, c), "Matrix_new");
    ok(GxB_Matrix_Option_set(a->m, GxB_FORMAT, GxB_BY_ROW), "set by row");
    for (GrB_Index i = 0; i < r; ++i)
        for (GrB_Index j = 0; j < c; ++j) ok(GrB_Matrix_setElement_FP64(a->m, b.data()[i * c + j], i, j), "setElement");
    ok(GrB_Matrix_wait(a->m, GrB_MATERIALIZE), "wait");
    return a;
}

py::tuple matrix_tuples(const GbMatrix& a) {
    GrB_Index n;
    ok(GrB_Matrix_nvals(&n, a.m), "nvals");
    py::array_t<uint64_t> I(n), J(n);
    py::array_t<double> X(n);
    GrB_Index got = n;
    ok(GrB_Matrix_extractTuples_FP64(reinterpret_cast<GrB_Index*>(I.mutable_data()),
                                     reinterpret_cast<GrB_Index*>(J.mutable_data()), X.mutable_data(), &got, a.m),
       "extractTuples");
    return py::make_tuple(nrows(a), ncols(a), I, J, X);
}
py::tuple vector_tuples(const GbVector& v) {
    GrB_Index n, size;
    ok(GrB_Vector_nvals(&n, v.v), "nvals");
    ok(GrB_Vector_size(&size, v.v), "size");
    py::array_t<uint64_t> I(n);
    py::array_t<double> X(n);
    GrB_Index got = n;
    ok(GrB_Vector_extractTuples_FP64(reinterpret_cast<GrB_Index*>(I.mutable_data()), X.mutable_data(), &got, v.v),
       "extractTuples");
    return py::make_tuple(size, I, X);
}

// Each operation: (milliseconds, result). The clock covers the new output, the operation and
// GrB_wait; freeing the result happens after, when Python drops it.
py::tuple mxv(const MatrixPtr& a, const VectorPtr& x, bool transpose) {
    auto y = std::make_shared<GbVector>();
    auto t0 = Clock::now();
    ok(GrB_Vector_new(&y->v, GrB_FP64, transpose ? ncols(*a) : nrows(*a)), "Vector_new");
    ok(GrB_mxv(y->v, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, a->m, x->v,
               transpose ? GrB_DESC_T0 : nullptr), "mxv");
    ok(GrB_Vector_wait(y->v, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    return py::make_tuple(ms, y);
}
py::tuple masked_mxv(const MatrixPtr& a, const VectorPtr& x, const VectorPtr& mask, bool complement,
                     const std::string& ring) {
    auto y = std::make_shared<GbVector>();
    auto t0 = Clock::now();
    ok(GrB_Vector_new(&y->v, ring == "or_and" ? GrB_BOOL : GrB_FP64, nrows(*a)), "Vector_new");
    ok(GrB_mxv(y->v, mask->v, nullptr, semiring(ring), a->m, x->v, mask_descriptor(complement)), "mxv");
    ok(GrB_Vector_wait(y->v, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    return py::make_tuple(ms, y);
}
py::tuple masked_mxm(const MatrixPtr& a, const MatrixPtr& b, const MatrixPtr& mask, bool complement,
                     const std::string& ring) {
    auto c = std::make_shared<GbMatrix>();
    auto t0 = Clock::now();
    ok(GrB_Matrix_new(&c->m, ring == "or_and" ? GrB_BOOL : GrB_FP64, nrows(*a), ncols(*b)), "Matrix_new");
    ok(GrB_mxm(c->m, mask->m, nullptr, semiring(ring), a->m, b->m, mask_descriptor(complement)), "mxm");
    ok(GrB_Matrix_wait(c->m, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    return py::make_tuple(ms, c);
}
py::tuple mxm(const MatrixPtr& a, const MatrixPtr& b) {
    auto c = std::make_shared<GbMatrix>();
    auto t0 = Clock::now();
    ok(GrB_Matrix_new(&c->m, GrB_FP64, nrows(*a), ncols(*b)), "Matrix_new");
    ok(GrB_mxm(c->m, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, a->m, b->m, nullptr), "mxm");
    ok(GrB_Matrix_wait(c->m, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    return py::make_tuple(ms, c);
}
py::tuple ewise(const MatrixPtr& a, const MatrixPtr& b, bool add) {
    auto c = std::make_shared<GbMatrix>();
    auto t0 = Clock::now();
    ok(GrB_Matrix_new(&c->m, GrB_FP64, nrows(*a), ncols(*a)), "Matrix_new");
    if (add)
        ok(GrB_Matrix_eWiseAdd_BinaryOp(c->m, nullptr, nullptr, GrB_PLUS_FP64, a->m, b->m, nullptr), "eWiseAdd");
    else
        ok(GrB_Matrix_eWiseMult_BinaryOp(c->m, nullptr, nullptr, GrB_TIMES_FP64, a->m, b->m, nullptr), "eWiseMult");
    ok(GrB_Matrix_wait(c->m, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    return py::make_tuple(ms, c);
}
// Row sums (transpose = false) or column sums (transpose = true) into a vector.
py::tuple reduce_vector(const MatrixPtr& a, bool transpose) {
    auto y = std::make_shared<GbVector>();
    auto t0 = Clock::now();
    ok(GrB_Vector_new(&y->v, GrB_FP64, transpose ? ncols(*a) : nrows(*a)), "Vector_new");
    ok(GrB_Matrix_reduce_Monoid(y->v, nullptr, nullptr, GrB_PLUS_MONOID_FP64, a->m,
                                transpose ? GrB_DESC_T0 : nullptr), "reduce");
    ok(GrB_Vector_wait(y->v, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    return py::make_tuple(ms, y);
}
// min or max over every element: GraphBLAS reduces stored entries only, so the implicit zeros
// are folded in afterwards when the matrix is not full (an O(1) step, inside the clock).
py::tuple reduce_scalar(const MatrixPtr& a, bool is_min) {
    auto t0 = Clock::now();
    double s = 0;
    ok(GrB_Matrix_reduce_FP64(&s, nullptr, is_min ? GrB_MIN_MONOID_FP64 : GrB_MAX_MONOID_FP64, a->m, nullptr),
       "reduce");
    GrB_Index n;
    ok(GrB_Matrix_nvals(&n, a->m), "nvals");
    if (n < nrows(*a) * ncols(*a)) s = is_min ? std::min(s, 0.0) : std::max(s, 0.0);
    double ms = ms_since(t0);
    return py::make_tuple(ms, s);
}
// CSR -> CSC: the transpose held by row has exactly the arrays of A held by column.
py::tuple transpose(const MatrixPtr& a) {
    auto c = std::make_shared<GbMatrix>();
    auto t0 = Clock::now();
    ok(GrB_Matrix_new(&c->m, GrB_FP64, ncols(*a), nrows(*a)), "Matrix_new");
    ok(GrB_transpose(c->m, nullptr, nullptr, a->m, nullptr), "transpose");
    ok(GrB_Matrix_wait(c->m, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    return py::make_tuple(ms, c);
}


// The graph algorithms of bench/peers/finch.py, written with GrB calls as LAGraph writes them.
// Each returns (milliseconds, results as int64/float64 arrays); the clock covers every GrB
// call from the first vector to the last wait, not the extraction into NumPy.
py::array_t<int64_t> int64_entries(GrB_Vector v, GrB_Index n, int64_t missing) {
    GrB_Index k;
    ok(GrB_Vector_nvals(&k, v), "nvals");
    std::vector<GrB_Index> I(k);
    std::vector<int64_t> X(k);
    ok(GrB_Vector_extractTuples_INT64(I.data(), X.data(), &k, v), "extractTuples");
    py::array_t<int64_t> out(static_cast<py::ssize_t>(n));
    std::fill(out.mutable_data(), out.mutable_data() + n, missing);
    for (GrB_Index t = 0; t < k; ++t) out.mutable_data()[I[t]] = X[t];
    return out;
}

// Push BFS from one source (LAGraph's basic push: q<!pi> = q any.secondi A, the frontier
// carrying each new vertex's parent): levels (-1 unreached) and parents (the source its own).
py::tuple bfs(const MatrixPtr& a, int64_t source) {
    GrB_Index n = nrows(*a), src = static_cast<GrB_Index>(source);
    GbVector q, pi, v;
    auto t0 = Clock::now();
    ok(GrB_Vector_new(&q.v, GrB_INT64, n), "Vector_new");
    ok(GrB_Vector_new(&pi.v, GrB_INT64, n), "Vector_new");
    ok(GrB_Vector_new(&v.v, GrB_INT64, n), "Vector_new");
    ok(GrB_Vector_setElement_INT64(q.v, source, src), "setElement");
    ok(GrB_Vector_setElement_INT64(pi.v, source, src), "setElement");
    ok(GrB_Vector_setElement_INT64(v.v, 0, src), "setElement");
    for (int64_t level = 1;; ++level) {
        ok(GrB_vxm(q.v, pi.v, nullptr, GxB_ANY_SECONDI_INT64, q.v, a->m, GrB_DESC_RSC), "vxm");
        GrB_Index frontier;
        ok(GrB_Vector_nvals(&frontier, q.v), "nvals");
        if (frontier == 0) break;
        ok(GrB_Vector_assign(pi.v, q.v, nullptr, q.v, GrB_ALL, n, GrB_DESC_S), "assign parents");
        ok(GrB_Vector_assign_INT64(v.v, q.v, nullptr, level, GrB_ALL, n, GrB_DESC_S), "assign levels");
    }
    ok(GrB_Vector_wait(pi.v, GrB_MATERIALIZE), "wait");
    ok(GrB_Vector_wait(v.v, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    return py::make_tuple(ms, int64_entries(v.v, n, -1), int64_entries(pi.v, n, -1));
}

// Bellman-Ford (LAGraph_BF_basic's loop: d = d min (d min.+ W) until d stops changing, at
// most n passes) with parents: p(j) = any i with d(i) + W(i, j) == d(j), found with
// R = diag(d) min.+ W min.+ diag(-d) and a select of its zeros. Sources are their own parents.
bool same_vector(GrB_Vector x, GrB_Vector y) {
    GrB_Index nx, ny;
    ok(GrB_Vector_nvals(&nx, x), "nvals");
    ok(GrB_Vector_nvals(&ny, y), "nvals");
    if (nx != ny) return false;
    GrB_Index n, ne;
    ok(GrB_Vector_size(&n, x), "size");
    GbVector eq;
    ok(GrB_Vector_new(&eq.v, GrB_BOOL, n), "Vector_new");
    ok(GrB_Vector_eWiseMult_BinaryOp(eq.v, nullptr, nullptr, GrB_EQ_FP64, x, y, nullptr), "eWiseMult");
    ok(GrB_Vector_nvals(&ne, eq.v), "nvals");
    if (ne != nx) return false;
    bool all = true;
    ok(GrB_Vector_reduce_BOOL(&all, nullptr, GrB_LAND_MONOID_BOOL, eq.v, nullptr), "reduce");
    return all;
}
py::tuple bellman_ford(const MatrixPtr& w, const IntArray& sources) {
    GrB_Index n = nrows(*w);
    GbVector d, e, negd, p;
    GbMatrix D, R, Dn, R2, S;
    auto t0 = Clock::now();
    ok(GrB_Vector_new(&d.v, GrB_FP64, n), "Vector_new");
    for (py::ssize_t k = 0; k < sources.size(); ++k)
        ok(GrB_Vector_setElement_FP64(d.v, 0.0, static_cast<GrB_Index>(sources.data()[k])), "setElement");
    for (GrB_Index pass = 0; pass < n; ++pass) {
        ok(GrB_Vector_dup(&e.v, d.v), "dup");
        ok(GrB_vxm(e.v, nullptr, GrB_MIN_FP64, GrB_MIN_PLUS_SEMIRING_FP64, d.v, w->m, nullptr), "vxm");
        bool done = same_vector(d.v, e.v);
        std::swap(d.v, e.v);
        GrB_Vector_free(&e.v);
        if (done) break;
    }
    ok(GrB_Matrix_diag(&D.m, d.v, 0), "diag");
    ok(GrB_Matrix_new(&R.m, GrB_FP64, n, n), "Matrix_new");
    ok(GrB_mxm(R.m, nullptr, nullptr, GrB_MIN_PLUS_SEMIRING_FP64, D.m, w->m, nullptr), "mxm");
    ok(GrB_Vector_new(&negd.v, GrB_FP64, n), "Vector_new");
    ok(GrB_Vector_apply(negd.v, nullptr, nullptr, GrB_AINV_FP64, d.v, nullptr), "apply");
    ok(GrB_Matrix_diag(&Dn.m, negd.v, 0), "diag");
    ok(GrB_Matrix_new(&R2.m, GrB_FP64, n, n), "Matrix_new");
    ok(GrB_mxm(R2.m, nullptr, nullptr, GrB_MIN_PLUS_SEMIRING_FP64, R.m, Dn.m, nullptr), "mxm");
    ok(GrB_Matrix_new(&S.m, GrB_FP64, n, n), "Matrix_new");
    ok(GrB_Matrix_select_FP64(S.m, nullptr, nullptr, GrB_VALUEEQ_FP64, R2.m, 0.0, nullptr), "select");
    ok(GrB_Vector_new(&p.v, GrB_INT64, n), "Vector_new");
    ok(GrB_vxm(p.v, nullptr, nullptr, GxB_ANY_SECONDI_INT64, d.v, S.m, nullptr), "vxm");
    for (py::ssize_t k = 0; k < sources.size(); ++k)
        ok(GrB_Vector_setElement_INT64(p.v, sources.data()[k], static_cast<GrB_Index>(sources.data()[k])),
           "setElement");
    ok(GrB_Vector_wait(p.v, GrB_MATERIALIZE), "wait");
    double ms = ms_since(t0);
    GrB_Index k;
    ok(GrB_Vector_nvals(&k, d.v), "nvals");
    std::vector<GrB_Index> I(k);
    std::vector<double> X(k);
    ok(GrB_Vector_extractTuples_FP64(I.data(), X.data(), &k, d.v), "extractTuples");
    py::array_t<double> dist(static_cast<py::ssize_t>(n));
    std::fill(dist.mutable_data(), dist.mutable_data() + n, std::numeric_limits<double>::infinity());
    for (GrB_Index t = 0; t < k; ++t) dist.mutable_data()[I[t]] = X[t];
    return py::make_tuple(ms, dist, int64_entries(p.v, n, -1));
}

// Triangle count of the strict lower triangle L as LAGraph's default (Sandia_LUT) writes it:
// C<L> = L * L' over plus_pair (each entry counts the common neighbours k < j of an edge
// i > j), then the sum of C. The clock covers the product, its wait and the reduction.
py::tuple triangle_count(const MatrixPtr& l) {
    GbMatrix c;
    auto t0 = Clock::now();
    ok(GrB_Matrix_new(&c.m, GrB_INT64, nrows(*l), nrows(*l)), "Matrix_new");
    ok(GrB_mxm(c.m, l->m, nullptr, GxB_PLUS_PAIR_INT64, l->m, l->m, GrB_DESC_ST1), "mxm");
    int64_t count = 0;
    ok(GrB_Matrix_reduce_INT64(&count, nullptr, GrB_PLUS_MONOID_INT64, c.m, nullptr), "reduce");
    double ms = ms_since(t0);
    return py::make_tuple(ms, count);
}

} // namespace

void bind_graphblas(py::module_& m) {
    ok(GrB_init(GrB_NONBLOCKING), "init");
    ok(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, 1), "set nthreads");
    auto g = m.def_submodule("graphblas", "SuiteSparse:GraphBLAS, single-threaded unless set_nthreads says");
    g.attr("version") = std::to_string(GxB_IMPLEMENTATION_MAJOR) + "." + std::to_string(GxB_IMPLEMENTATION_MINOR) +
                        "." + std::to_string(GxB_IMPLEMENTATION_SUB);
    g.def("nthreads", [] { int n = 0; ok(GxB_Global_Option_get(GxB_GLOBAL_NTHREADS, &n), "get nthreads"); return n; });
    g.def("set_nthreads", [](int n) { ok(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, n), "set nthreads"); });
    py::class_<GbMatrix, MatrixPtr>(g, "Matrix").def("tuples", &matrix_tuples);
    py::class_<GbVector, VectorPtr>(g, "Vector").def("tuples", &vector_tuples);
    g.def("from_coo", &from_coo);
    g.def("dense_vector", &dense_vector);
    g.def("dense_matrix", &dense_matrix);
    g.def("mxv", &mxv);
    g.def("mxm", &mxm);
    g.def("bool_from_coo", &bool_from_coo);
    g.def("store_by_col", &store_by_col);
    g.def("sparse_vector", &sparse_vector);
    g.def("masked_mxv", &masked_mxv);
    g.def("vector_sparsity", &vector_sparsity);
    g.def("masked_mxm", &masked_mxm);
    g.def("ewise", &ewise);
    g.def("reduce_vector", &reduce_vector);
    g.def("reduce_scalar", &reduce_scalar);
    g.def("transpose", &transpose);
    g.def("bfs", &bfs);
    g.def("bellman_ford", &bellman_ford);
    g.def("triangle_count", &triangle_count);
}
