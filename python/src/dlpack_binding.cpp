// DLPack export of dense tensors (Tensor.__dlpack__): a capsule over the tensor's own values
// buffer, with strides for its axis order, that keeps the tensor alive until the consumer
// (numpy.from_dlpack, torch, ...) calls the deleter. Nothing is copied. Import goes through
// NumPy's consumer (python/siskin/_dlpack.py), whose arrays siskin then borrows.
#include <fmt/format.h>

#include <dlpack/dlpack.h>

#include "bindings.hpp"
#include "siskin/error.hpp"

namespace siskin::python {

namespace {

// DLPack 0.6 (Debian 12's header, and what NumPy 1.24 reads) has no bool type.
DLDataType dlpack_type(ValueType type) {
    auto make = [](DLDataTypeCode code, int bytes) {
        return DLDataType{static_cast<uint8_t>(code), static_cast<uint8_t>(8 * bytes), 1};
    };
    switch (type) {
    case ValueType::Int8: return make(kDLInt, 1);
    case ValueType::Int16: return make(kDLInt, 2);
    case ValueType::Int32: return make(kDLInt, 4);
    case ValueType::Int64: return make(kDLInt, 8);
    case ValueType::UInt8: return make(kDLUInt, 1);
    case ValueType::UInt16: return make(kDLUInt, 2);
    case ValueType::UInt32: return make(kDLUInt, 4);
    case ValueType::UInt64: return make(kDLUInt, 8);
    case ValueType::Float32: return make(kDLFloat, 4);
    case ValueType::Float64: return make(kDLFloat, 8);
    default: break;
    }
    throw Error(fmt::format("__dlpack__: DLPack {} has no {} type (convert with astype first)",
                            DLPACK_VERSION / 100.0, type_name(type)));
}

// What the managed tensor points into: its shape and strides, and the tensor they describe.
struct Export {
    DLManagedTensor managed{};
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    py::object tensor;
};

// Called by the consumer when it is done, from any thread: the reference drops under the GIL.
void release(DLManagedTensor* managed) {
    auto* held = static_cast<Export*>(managed->manager_ctx);
    if (!Py_IsInitialized()) return; // at shutdown: left to the process's end
    py::gil_scoped_acquire gil;
    delete held;
}

// A capsule nobody consumed (still named "dltensor") frees its tensor; a consumed one was
// renamed "used_dltensor" and belongs to the consumer.
void release_unconsumed(PyObject* capsule) {
    if (!PyCapsule_IsValid(capsule, "dltensor")) return;
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (managed && managed->deleter) managed->deleter(managed);
}

py::capsule to_dlpack(const py::object& self) {
    const Tensor& t = self.cast<const Tensor&>();
    std::optional<std::vector<int>> order = dense_order(t);
    if (!order)
        throw Error(fmt::format("__dlpack__ exports dense memory, but the tensor is stored as '{}': "
                                "convert it first (asformat('dense'))",
                                t.format().to_string()));
    auto held = std::make_unique<Export>();
    held->managed.dl_tensor.dtype = dlpack_type(t.type());
    held->shape = t.shape();
    // The values run over the levels' modes outermost first: the last mode moves by 1.
    held->strides.assign(held->shape.size(), 1);
    int64_t stride = 1;
    for (auto m = order->rbegin(); m != order->rend(); ++m) {
        held->strides[static_cast<size_t>(*m)] = stride;
        stride *= held->shape[static_cast<size_t>(*m)];
    }
    held->tensor = self;
    // DLPack 0.6 cannot say read-only, so the consumer may write: no finiteness is kept.
    t.values().share_writes();
    DLTensor& dl = held->managed.dl_tensor;
    dl.data = const_cast<void*>(static_cast<const void*>(t.values().data<char>()));
    dl.device = DLDevice{kDLCPU, 0};
    dl.ndim = static_cast<int32_t>(held->shape.size());
    dl.shape = held->shape.data();
    dl.strides = held->strides.data();
    dl.byte_offset = 0;
    held->managed.manager_ctx = held.get();
    held->managed.deleter = release;
    PyObject* capsule = PyCapsule_New(&held->managed, "dltensor", release_unconsumed);
    if (!capsule) throw py::error_already_set();
    held.release();
    return py::reinterpret_steal<py::capsule>(capsule);
}

} // namespace

void bind_dlpack(py::module_& m) {
    m.def("to_dlpack", &to_dlpack, py::arg("tensor"),
          "A DLPack capsule over a dense tensor's values (zero copy; the tensor lives until the "
          "consumer releases it).");
}

} // namespace siskin::python
