// User functions from Python: a `def` in the function-body language (docs/syntax.md,
// "Functions"), with properties given as keyword arguments added to those the text declares,
// registered so that programs can call it; the definition can be checked and called on numbers.
#include <fmt/format.h>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"
#include "siskin/operators.hpp"

namespace siskin::python {

namespace {

// An identity or annihilator from Python: a number, or (number, argument position).
std::pair<Scalar, std::optional<int>> declared_value(const py::handle& value) {
    if (py::isinstance<py::tuple>(value)) {
        auto t = value.cast<py::tuple>();
        if (t.size() != 2)
            throw Error("an identity or annihilator with a position is (value, position)");
        return {scalar_from_python(t[0]), t[1].cast<int>()};
    }
    return {scalar_from_python(value), std::nullopt};
}

struct Properties {
    std::optional<bool> commutative, associative, idempotent;
    py::object identity, annihilator;
    bool annihilator_finite_only = false;
    std::optional<std::string> space;
    std::vector<std::string> cases;
    std::optional<int64_t> step_limit;
};

class Function {
public:
    Function(const std::string& text, const Properties& p, bool replace) {
        auto defs = parse_functions(text, "<function>");
        if (defs.size() != 1)
            throw Error(fmt::format("siskin.function takes one `def`, got {}", defs.size()));
        FunctionDef def = std::move(defs.front());
        if (p.commutative) def.commutative(*p.commutative);
        if (p.associative) def.associative(*p.associative);
        if (p.idempotent) def.idempotent(*p.idempotent);
        if (!p.identity.is_none()) {
            auto [value, position] = declared_value(p.identity);
            def.identity(value, position);
        }
        if (!p.annihilator.is_none()) {
            auto [value, position] = declared_value(p.annihilator);
            def.annihilator(value, position, p.annihilator_finite_only);
        }
        if (p.space) def.space(*p.space);
        for (const auto& c : p.cases) def.special_case(c);
        if (p.step_limit) def.step_limit(*p.step_limit);
        define_function(def, replace ? Redefinition::Replace : Redefinition::Refuse);
        def_ = std::make_shared<const FunctionDef>(std::move(def));
    }

    const std::string& name() const { return def_->name(); }
    std::string text() const { return def_->to_string(); }

    // Every declared property, case and space tested on sample values: "property: message".
    std::vector<std::string> check() const {
        std::vector<std::string> out;
        for (const auto& v : check_function(*def_)) out.push_back(v.property + ": " + v.message);
        return out;
    }

    // The function on Python numbers (the interpreter that the reference evaluator uses).
    py::object call(const py::args& args) const {
        std::vector<Scalar> values;
        for (const auto& a : args) values.push_back(scalar_from_python(a));
        const Operator& op = find_operator(def_->name());
        if (static_cast<int>(values.size()) != op.arity)
            throw Error(fmt::format("{} takes {} arguments, got {}", def_->name(), op.arity, values.size()));
        return scalar_to_python(op.evaluate(values));
    }

private:
    std::shared_ptr<const FunctionDef> def_;
};

} // namespace

void bind_functions(py::module_& m) {
    py::class_<Function>(m, "Function")
        .def(py::init([](const std::string& text, std::optional<bool> commutative,
                         std::optional<bool> associative, std::optional<bool> idempotent,
                         const py::object& identity, const py::object& annihilator,
                         bool annihilator_finite_only, std::optional<std::string> space,
                         std::vector<std::string> cases, std::optional<int64_t> step_limit, bool replace) {
                 Properties p{commutative, associative, idempotent, identity, annihilator,
                              annihilator_finite_only, std::move(space), std::move(cases), step_limit};
                 return std::make_unique<Function>(text, p, replace);
             }),
             py::arg("text"), py::arg("commutative"), py::arg("associative"), py::arg("idempotent"),
             py::arg("identity"), py::arg("annihilator"), py::arg("annihilator_finite_only"),
             py::arg("space"), py::arg("cases"), py::arg("step_limit"), py::arg("replace"))
        .def_property_readonly("name", &Function::name)
        .def_property_readonly("text", &Function::text)
        .def("check", &Function::check)
        .def("__call__", &Function::call);
}

} // namespace siskin::python
