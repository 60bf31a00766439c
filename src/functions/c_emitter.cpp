// Emits checked function code as C. Operator calls go through c_expression, the same template
// instantiation the code generator uses for builtins, so the helpers of siskin_ops.h give the
// operators' exact semantics.
#include "functions/c_emitter.hpp"

#include <xxhash.h>

#include <fmt/format.h>

#include "codegen/c_literal.hpp"
#include "siskin/error.hpp"

namespace siskin::functions {

namespace {

class Emitter {
public:
    explicit Emitter(const Code& code) : code_(code) {
        // "v_" keeps user names clear of C keywords and macros (NAN, isnan); a name declared in
        // two sibling blocks gets its slot number too.
        for (size_t k = 0; k < code.slot_names.size(); ++k) {
            size_t same = 0;
            for (const auto& n : code.slot_names) same += n == code.slot_names[k];
            names_.push_back(same > 1 ? fmt::format("v_{}_{}", code.slot_names[k], k)
                                      : "v_" + code.slot_names[k]);
        }
    }

    std::string function(const std::string& c_name) {
        std::string params;
        for (size_t k = 0; k < code_.params.size(); ++k)
            params += fmt::format("{}{} {}", k ? ", " : "", c_type_name(code_.params[k]),
                                  names_[k]);
        out_ = fmt::format("static inline {} {}({}) {{\n", c_type_name(code_.result), c_name,
                           params);
        for (const CodeCase& c : code_.cases) {
            std::string test;
            for (size_t k = 0; k < c.fixed.size(); ++k) {
                if (!c.fixed[k]) continue;
                const Scalar& v = *c.fixed[k];
                std::string one = v.is_nan() ? fmt::format("isnan({})", names_[k])
                                             : fmt::format("{} == {}", names_[k],
                                                           cast::c_literal(v));
                test += (test.empty() ? "" : " && ") + one;
            }
            out_ += fmt::format("    if ({}) return {}; /* case {} */\n", test, expr(c.result),
                                c.text);
        }
        stmts(code_.body, 1);
        out_ += "}\n";
        return out_;
    }

private:
    const Code& code_;
    std::vector<std::string> names_;
    std::string out_;

    static std::string pad(int depth) { return std::string(4 * depth, ' '); }

    void stmts(const std::vector<CodeStmt>& list, int depth) {
        for (const CodeStmt& s : list) stmt(s, depth);
    }

    void stmt(const CodeStmt& s, int depth) {
        switch (s.kind) {
        case CodeStmtKind::Set:
            out_ += pad(depth) +
                    (s.declares ? fmt::format("{} ", c_type_name(code_.slot_types[s.slot])) : "") +
                    fmt::format("{} = {};\n", names_[s.slot], expr(s.expr));
            return;
        case CodeStmtKind::If:
            out_ += pad(depth) + fmt::format("if ({}) {{\n", expr(s.expr));
            stmts(s.body, depth + 1);
            if (!s.else_body.empty()) {
                out_ += pad(depth) + "} else {\n";
                stmts(s.else_body, depth + 1);
            }
            out_ += pad(depth) + "}\n";
            return;
        case CodeStmtKind::While:
            out_ += pad(depth) + fmt::format("while ({}) {{\n", expr(s.expr));
            stmts(s.body, depth + 1);
            out_ += pad(depth) + "}\n";
            return;
        case CodeStmtKind::Return:
            out_ += pad(depth) + fmt::format("return {};\n", expr(s.expr));
            return;
        case CodeStmtKind::Block:
            out_ += pad(depth) + "{\n";
            stmts(s.body, depth + 1);
            out_ += pad(depth) + "}\n";
            return;
        }
        SISKIN_ASSERT(false, "unknown statement kind");
    }

    std::string expr(const CodeExpr& e) {
        switch (e.kind) {
        case CodeExprKind::Constant: return cast::c_literal(e.value);
        case CodeExprKind::Slot: return names_[e.slot];
        case CodeExprKind::Call:
        case CodeExprKind::And:
        case CodeExprKind::Or:
        case CodeExprKind::Select: {
            std::vector<ValueType> types;
            std::vector<std::string> args;
            for (const CodeExpr& a : e.args) {
                types.push_back(a.type);
                args.push_back(expr(a));
            }
            return c_expression(*e.op, types, args);
        }
        case CodeExprKind::Convert: {
            ValueType from = e.args[0].type;
            std::string inner = expr(e.args[0]);
            std::string_view to = c_type_name(e.type);
            if (is_float(from) && is_integer(e.type))
                return fmt::format("(({}){}({}))", to,
                                   // siskin_ops.h: Scalar::cast's NaN and saturation rules
                                   is_signed_integer(e.type) ? "siskin_f2i64" : "siskin_f2u64",
                                   inner);
            return fmt::format("(({})({}))", to, inner);
        }
        }
        SISKIN_ASSERT(false, "unknown expression kind");
    }
};

} // namespace

std::string c_function_name(const std::string& canonical_text, const Code& code) {
    std::string key = canonical_text;
    for (const Operator* op : code.calls) key += "\n" + op->c_template;
    uint64_t h = XXH64(key.data(), key.size(), 0);
    return fmt::format("siskin_udf_{}_{:08x}", code.name, static_cast<uint32_t>(h));
}

std::string emit_c_definition(const Code& code, const std::string& c_name) {
    std::string out;
    for (const Operator* op : code.calls) out += op->c_definition;
    std::string guard = "SISKIN_DEFINED_" + c_name;
    out += fmt::format("#ifndef {0}\n#define {0}\n", guard);
    out += Emitter(code).function(c_name);
    out += "#endif\n";
    return out;
}

} // namespace siskin::functions
