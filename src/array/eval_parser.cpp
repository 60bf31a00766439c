// The expression language of `siskin eval`: NumPy's spelling of array expressions, parsed
// straight into lazy Arrays. Python's precedence (comparisons below | ^ &, then shifts,
// + -, * / // % @, unary - + ~, **, then .T, calls and [indexing]); errors point into the text
// with the caret of program errors (ir::SourceText).
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <variant>

#include <fmt/format.h>

#include "array/node.hpp"
#include "ir/lexer.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

using namespace array_detail;

namespace {

enum class Tok { Name, Int, Float, String, Symbol, End };

struct Token {
    Tok kind;
    std::string text;
    ir::Position pos;
    bool is(std::string_view s) const { return kind == Tok::Symbol && text == s; }
};

std::vector<Token> tokenize(const ir::SourceText& src) {
    static const std::string_view three[] = {"..."};
    static const std::string_view two[] = {"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->"};
    static const std::string_view one = "()[],:.=+-*/%@&|^~<>";
    const std::string_view s = src.text;
    std::vector<Token> out;
    int line = 1, col = 1;
    size_t i = 0;
    auto at = [&](size_t k) { return ir::Position{line, col + static_cast<int>(k - i)}; };
    auto advance = [&](size_t to) {
        for (; i < to; ++i) {
            if (s[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
    };
    while (i < s.size()) {
        char c = s[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            advance(i + 1);
            continue;
        }
        size_t j = i;
        Tok kind = Tok::Symbol;
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
            kind = Tok::Name;
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            kind = Tok::Int;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            if (j < s.size() && s[j] == '.' && s.substr(j, 3) != "...") {
                kind = Tok::Float;
                for (++j; j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]));) ++j;
            }
            if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
                size_t k = j + 1;
                if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
                if (k >= s.size() || !std::isdigit(static_cast<unsigned char>(s[k])))
                    src.fail(at(k), "expected the digits of an exponent");
                kind = Tok::Float;
                for (j = k; j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]));) ++j;
            }
        } else if (c == '\'' || c == '"') {
            j = s.find(c, i + 1);
            if (j == std::string_view::npos) src.fail(at(i), "this string has no closing quote");
            out.push_back({Tok::String, std::string(s.substr(i + 1, j - i - 1)), at(i)});
            advance(j + 1);
            continue;
        } else {
            for (auto t : three)
                if (s.substr(i, t.size()) == t) j = i + t.size();
            for (auto t : two)
                if (j == i && s.substr(i, 2) == t) j = i + 2;
            if (j == i && one.find(c) != std::string_view::npos) j = i + 1;
            if (j == i) src.fail(at(i), fmt::format("unexpected character '{}'", c));
        }
        out.push_back({kind, std::string(s.substr(i, j - i)), at(i)});
        advance(j);
    }
    out.push_back({Tok::End, "", {line, col}});
    return out;
}

/// What an expression evaluates to: an array, a tuple (shapes, axes, operand lists), a string
/// (einsum subscripts), None, or a slice inside [].
struct Value;
using Tuple = std::vector<Value>;
struct Value {
    std::variant<std::monostate, Array, Tuple, std::string> v;
    ir::Position pos;
    bool literal_number = false; // a number as written (for axes, sizes and bounds)
};

class Parser {
public:
    Parser(const ir::SourceText& src, const std::map<std::string, Array>& names)
        : src_(src), toks_(tokenize(src)), names_(names) {}

    Array parse() {
        Value v = expression();
        if (peek().kind != Tok::End) fail(peek(), "expected the end of the expression");
        return array(v, "the expression");
    }

private:
    const ir::SourceText& src_;
    std::vector<Token> toks_;
    size_t at_ = 0;
    const std::map<std::string, Array>& names_;
    int depth_ = 0;

    const Token& peek(size_t k = 0) const { return toks_[std::min(at_ + k, toks_.size() - 1)]; }
    const Token& next() {
        const Token& t = peek();
        if (at_ < toks_.size() - 1) ++at_;
        return t;
    }
    bool accept(std::string_view s) {
        if (!peek().is(s)) return false;
        next();
        return true;
    }
    [[noreturn]] void fail(const Token& t, const std::string& message) const {
        std::string found = t.kind == Tok::End ? "the end" : fmt::format("'{}'", t.text);
        src_.fail(t.pos, fmt::format("{}, found {}", message, found));
    }
    [[noreturn]] void fail_at(ir::Position p, const std::string& message) const {
        src_.fail(p, message);
    }
    void expect(std::string_view s) {
        if (!accept(s)) fail(peek(), fmt::format("expected '{}'", s));
    }

    /// Errors of the array layer (shapes, types) point at the operator that raised them.
    template <class F> Value guarded(ir::Position pos, F&& f) {
        try {
            return Value{f(), pos};
        } catch (const Error& e) {
            if (e.where()) throw;
            fail_at(pos, e.message());
        }
    }

    Array array(const Value& v, const std::string& what) const {
        if (auto* a = std::get_if<Array>(&v.v)) return *a;
        fail_at(v.pos, fmt::format("{} must be an array or a number", what));
    }
    int64_t integer(const Value& v, const std::string& what) const {
        if (auto* a = std::get_if<Array>(&v.v); a && v.literal_number && is_integer(a->dtype()))
            return a->fill().as_int();
        fail_at(v.pos, fmt::format("{} must be an integer", what));
    }
    bool boolean(const Value& v, const std::string& what) const {
        if (auto* a = std::get_if<Array>(&v.v); a && v.literal_number) return a->fill().as_bool();
        fail_at(v.pos, fmt::format("{} must be True or False", what));
    }
    std::vector<int64_t> integers(const Value& v, const std::string& what) const {
        if (auto* t = std::get_if<Tuple>(&v.v)) {
            std::vector<int64_t> out;
            for (const Value& e : *t) out.push_back(integer(e, what));
            return out;
        }
        return {integer(v, what)};
    }
    std::vector<int> axes(const Value& v, const std::string& what) const {
        std::vector<int> out;
        for (int64_t a : integers(v, what)) out.push_back(static_cast<int>(a));
        return out;
    }
    static bool none(const Value& v) { return std::holds_alternative<std::monostate>(v.v); }

    struct Nested {
        Parser& p;
        Nested(Parser& parser, const Token& t) : p(parser) {
            if (++p.depth_ > 200) p.fail(t, "the expression nests too deeply");
        }
        ~Nested() { --p.depth_; }
    };

    // ---- precedence climbing (Python's table) ----

    Value expression() { return comparison(); }

    Value comparison() {
        Value left = binary(0);
        static const std::map<std::string, std::string> ops = {
            {"<", "lt"}, {"<=", "le"}, {">", "gt"}, {">=", "ge"}, {"==", "eq"}, {"!=", "ne"}};
        while (peek().kind == Tok::Symbol && ops.count(peek().text)) {
            Token op = next();
            Value right = binary(0);
            left = call_ufunc(ops.at(op.text), {left, right}, op.pos);
        }
        return left;
    }

    Value binary(int level) {
        static const std::vector<std::map<std::string, std::string>> levels = {
            {{"|", "bitwise_or"}},
            {{"^", "bitwise_xor"}},
            {{"&", "bitwise_and"}},
            {{"<<", "shl"}, {">>", "shr"}},
            {{"+", "add"}, {"-", "sub"}},
            {{"*", "mul"}, {"/", "div"}, {"//", "floordiv"}, {"%", "mod"}, {"@", "@"}},
        };
        if (level == static_cast<int>(levels.size())) return unary();
        Value left = binary(level + 1);
        while (peek().kind == Tok::Symbol && levels[level].count(peek().text)) {
            Token op = next();
            Value right = binary(level + 1);
            const std::string& name = levels[level].at(op.text);
            if (name == "@") {
                Array a = array(left, "an operand of @"), b = array(right, "an operand of @");
                left = guarded(op.pos, [&] { return matmul(a, b); });
            } else {
                left = call_ufunc(name, {left, right}, op.pos);
            }
        }
        return left;
    }

    Value unary() {
        const Token& t = peek();
        if (t.is("-") || t.is("+") || t.is("~")) {
            Nested n(*this, t);
            Token op = next();
            Value v = unary();
            if (op.text == "+") return v;
            // A minus before a number is a negative number (an axis or bound may be -1),
            // still a weak Python number.
            if (op.text == "-" && v.literal_number) {
                const Scalar s = std::get<Array>(v.v).fill();
                if (is_integer(s.type())) return Value{Array(-s.as_int()), op.pos, true};
                if (is_float(s.type())) return Value{Array(-s.as_double()), op.pos, true};
            }
            return call_ufunc(op.text == "-" ? "neg" : "bitwise_not", {v}, op.pos);
        }
        return power();
    }

    Value power() {
        Value base = postfix();
        if (peek().is("**")) {
            Token op = next();
            Value e = unary(); // right-associative, and -a**2 is -(a**2)
            return call_ufunc("pow", {base, e}, op.pos);
        }
        return base;
    }

    Value postfix() {
        Value v = primary();
        for (;;) {
            if (peek().is(".")) {
                next();
                const Token& name = peek();
                if (name.kind != Tok::Name) fail(name, "expected a name after '.'");
                next();
                if (name.text == "T") {
                    Array a = array(v, "the operand of .T");
                    v = guarded(name.pos, [&] { return a.T(); });
                } else if (peek().is("(")) {
                    v = call(name, &v); // a method: A.sum(axis=1)
                } else {
                    fail(name, "expected T or a method call after '.'");
                }
            } else if (peek().is("[")) {
                Token open = next();
                Nested n(*this, open);
                v = index(v, open);
            } else {
                return v;
            }
        }
    }

    Value index(const Value& v, const Token& open) {
        std::vector<IndexItem> items;
        if (!peek().is("]")) {
            do {
                if (peek().is("]")) break;
                items.push_back(index_item());
            } while (accept(","));
        }
        expect("]");
        Array a = array(v, "an indexed value");
        return guarded(open.pos, [&] { return a[items]; });
    }

    IndexItem index_item() {
        if (accept("...")) return IndexItem::ellipsis();
        if (peek().kind == Tok::Name && peek().text == "None") {
            next();
            return IndexItem::new_axis();
        }
        std::optional<int64_t> bounds[3];
        int part = 0;
        bool is_slice = false;
        for (;;) {
            if (!peek().is(":") && !peek().is(",") && !peek().is("]"))
                bounds[part] = integer(expression(), "an index");
            if (!peek().is(":") || part == 2) break;
            next();
            is_slice = true;
            ++part;
        }
        if (!is_slice) return IndexItem::at(*bounds[0]);
        if (bounds[2] && *bounds[2] == 0) fail_at(peek().pos, "slice step cannot be zero");
        return IndexItem::slice(bounds[0], bounds[1], bounds[2].value_or(1));
    }

    Value primary() {
        const Token& t = peek();
        switch (t.kind) {
        case Tok::Int: {
            Token tok = next();
            int64_t v = 0;
            auto [p, ec] = std::from_chars(tok.text.data(), tok.text.data() + tok.text.size(), v);
            if (ec != std::errc()) fail_at(tok.pos, fmt::format("{} does not fit int64", tok.text));
            return Value{Array(v), tok.pos, true};
        }
        case Tok::Float: {
            Token tok = next();
            return Value{Array(std::stod(tok.text)), tok.pos, true};
        }
        case Tok::String: {
            Token tok = next();
            return Value{tok.text, tok.pos};
        }
        case Tok::Name: {
            Token name = next();
            if (name.text == "np" && peek().is(".")) { // np.sum(...) reads as sum(...)
                next();
                if (peek().kind != Tok::Name) fail(peek(), "expected a name after 'np.'");
                name = next();
            }
            if (peek().is("(")) return call(name, nullptr);
            if (name.text == "True" || name.text == "False")
                return Value{Array(name.text == "True"), name.pos, true};
            if (name.text == "None") return Value{std::monostate{}, name.pos};
            if (name.text == "inf" || name.text == "nan")
                return Value{Array(name.text == "inf" ? INFINITY : NAN), name.pos, true};
            auto it = names_.find(name.text);
            if (it == names_.end())
                fail_at(name.pos, fmt::format("'{}' is not an input: give it with -i {}=FILE",
                                              name.text, name.text));
            return Value{it->second, name.pos};
        }
        case Tok::Symbol:
            if (t.is("(")) {
                Token open = next();
                Nested n(*this, open);
                if (accept(")")) return Value{Tuple{}, open.pos};
                Value first = expression();
                if (accept(")")) return first;
                Tuple items{first};
                while (accept(",")) {
                    if (peek().is(")")) break;
                    items.push_back(expression());
                }
                expect(")");
                return Value{items, open.pos};
            }
            break;
        case Tok::End:
            break;
        }
        fail(t, "expected an expression");
    }

    Value call_ufunc(const std::string& op, const std::vector<Value>& args, ir::Position pos) {
        std::vector<Array> arrays;
        for (const Value& a : args) arrays.push_back(array(a, fmt::format("an operand of {}", op)));
        return guarded(pos, [&] { return ufunc(op, arrays); });
    }

    /// name(args...) or self.name(args...).
    Value call(const Token& name, const Value* self) {
        Token open = next(); // (
        Nested n(*this, open);
        std::vector<Value> args;
        std::map<std::string, Value> keywords;
        if (self) args.push_back(*self);
        if (!peek().is(")")) {
            do {
                if (peek().is(")")) break;
                if (peek().kind == Tok::Name && peek(1).is("=")) {
                    std::string key = next().text;
                    next();
                    keywords[key] = expression();
                } else {
                    if (!keywords.empty()) fail(peek(), "a positional argument after a keyword one");
                    args.push_back(expression());
                }
            } while (accept(","));
        }
        expect(")");
        return function(name, args, keywords);
    }

    Value function(const Token& name, const std::vector<Value>& args,
                   std::map<std::string, Value> keywords) {
        const std::string& f = name.text;
        // Positional then keyword arguments by parameter name.
        auto arg = [&](size_t k, const std::string& key) -> std::optional<Value> {
            if (k < args.size()) {
                if (keywords.count(key))
                    fail_at(keywords[key].pos, fmt::format("{}() got {} twice", f, key));
                return args[k];
            }
            auto it = keywords.find(key);
            if (it == keywords.end()) return std::nullopt;
            Value v = it->second;
            keywords.erase(it);
            return v;
        };
        auto required = [&](size_t k, const std::string& key) {
            auto v = arg(k, key);
            if (!v) fail_at(name.pos, fmt::format("{}() needs its argument '{}'", f, key));
            return *v;
        };
        auto done = [&](Value v) {
            if (!keywords.empty())
                fail_at(keywords.begin()->second.pos,
                        fmt::format("{}() takes no argument '{}'", f, keywords.begin()->first));
            return v;
        };
        auto a0 = [&] { return array(required(0, "a"), fmt::format("the array of {}()", f)); };

        using Reduction = Array (*)(const Array&, Axes, bool);
        static const std::map<std::string, Reduction> reductions = {
            {"sum", &sum}, {"prod", &prod}, {"min", &min}, {"max", &max}, {"any", &any},
            {"all", &all}, {"mean", &mean}, {"amin", &min}, {"amax", &max}};
        if (auto it = reductions.find(f); it != reductions.end()) {
            Array a = a0();
            auto ax = arg(1, "axis");
            auto keep = arg(2, "keepdims");
            Axes axes_given = ax && !none(*ax) ? Axes(axes(*ax, "axis")) : Axes();
            bool keepdims = keep ? boolean(*keep, "keepdims") : false;
            return done(guarded(name.pos, [&] { return it->second(a, axes_given, keepdims); }));
        }
        if (f == "argmin" || f == "argmax") {
            Array a = a0();
            auto ax = arg(1, "axis");
            auto keep = arg(2, "keepdims");
            std::optional<int> axis;
            if (ax && !none(*ax)) axis = static_cast<int>(integer(*ax, "axis"));
            bool keepdims = keep ? boolean(*keep, "keepdims") : false;
            return done(guarded(name.pos, [&] {
                return f == "argmin" ? argmin(a, axis, keepdims) : argmax(a, axis, keepdims);
            }));
        }
        if (f == "transpose" || f == "permute_dims") {
            Array a = a0();
            auto ax = arg(1, "axes");
            return done(guarded(name.pos, [&] {
                return ax && !none(*ax) ? permute_dims(a, axes(*ax, "axes")) : transpose(a);
            }));
        }
        if (f == "swapaxes" || f == "moveaxis") {
            Array a = a0();
            int x = static_cast<int>(integer(required(1, f == "swapaxes" ? "axis1" : "source"), "an axis"));
            int y = static_cast<int>(integer(required(2, f == "swapaxes" ? "axis2" : "destination"), "an axis"));
            return done(guarded(name.pos, [&] {
                return f == "swapaxes" ? swapaxes(a, x, y) : moveaxis(a, x, y);
            }));
        }
        if (f == "expand_dims") {
            Array a = a0();
            int ax = static_cast<int>(integer(required(1, "axis"), "axis"));
            return done(guarded(name.pos, [&] { return expand_dims(a, ax); }));
        }
        if (f == "squeeze") {
            Array a = a0();
            auto ax = arg(1, "axis");
            std::optional<std::vector<int>> list;
            if (ax && !none(*ax)) list = axes(*ax, "axis");
            return done(guarded(name.pos, [&] { return squeeze(a, list); }));
        }
        if (f == "broadcast_to") {
            Array a = a0();
            std::vector<int64_t> shape = integers(required(1, "shape"), "a size");
            return done(guarded(name.pos, [&] { return broadcast_to(a, shape); }));
        }
        if (f == "matmul" || f == "dot") {
            Array a = a0();
            Array b = array(required(1, "b"), "the second array of matmul()");
            return done(guarded(name.pos, [&] { return matmul(a, b); }));
        }
        if (f == "tensordot") {
            Array a = a0();
            Array b = array(required(1, "b"), "the second array of tensordot()");
            auto ax = arg(2, "axes");
            if (ax && std::holds_alternative<Tuple>(ax->v)) {
                const Tuple& pair = std::get<Tuple>(ax->v);
                if (pair.size() != 2) fail_at(ax->pos, "tensordot axes must be (axes_a, axes_b)");
                auto aa = axes(pair[0], "axes"), bb = axes(pair[1], "axes");
                return done(guarded(name.pos, [&] { return tensordot(a, b, aa, bb); }));
            }
            int n = ax ? static_cast<int>(integer(*ax, "axes")) : 2;
            return done(guarded(name.pos, [&] { return tensordot(a, b, n); }));
        }
        if (f == "einsum") {
            if (args.empty() || !std::holds_alternative<std::string>(args[0].v))
                fail_at(name.pos, "einsum() needs its subscripts as a string first ('ij,jk->ik')");
            std::vector<Array> operands;
            for (size_t k = 1; k < args.size(); ++k)
                operands.push_back(array(args[k], "an operand of einsum()"));
            return done(guarded(name.pos, [&] {
                return einsum(std::get<std::string>(args[0].v), operands);
            }));
        }
        if (f == "concatenate" || f == "stack" || f == "hstack" || f == "vstack") {
            Value seq = required(0, "arrays");
            if (!std::holds_alternative<Tuple>(seq.v))
                fail_at(seq.pos, fmt::format("{}() takes a tuple of arrays: {}((A, B))", f, f));
            std::vector<Array> list;
            for (const Value& v : std::get<Tuple>(seq.v)) list.push_back(array(v, "an array to join"));
            if (f == "hstack" || f == "vstack")
                return done(guarded(name.pos, [&] { return f == "hstack" ? hstack(list) : vstack(list); }));
            auto ax = arg(1, "axis");
            int axis = ax ? static_cast<int>(integer(*ax, "axis")) : 0;
            return done(guarded(name.pos, [&] {
                return f == "stack" ? stack(list, axis) : concatenate(list, axis);
            }));
        }
        if (f == "pad") {
            Array a = a0();
            Value widths = required(1, "pad_width");
            auto value = arg(2, "constant_values");
            auto mode = arg(3, "mode");
            if (mode && (!std::holds_alternative<std::string>(mode->v) ||
                         std::get<std::string>(mode->v) != "constant"))
                fail_at(mode->pos, "pad() supports mode='constant' only");
            // An int, a (before, after) pair, or one pair per dimension.
            std::vector<std::pair<int64_t, int64_t>> pairs;
            auto pair_of = [&](const Value& v) {
                std::vector<int64_t> w = integers(v, "a pad width");
                if (w.size() == 1) return std::pair{w[0], w[0]};
                if (w.size() != 2) fail_at(v.pos, "a pad width is (before, after)");
                return std::pair{w[0], w[1]};
            };
            const Tuple* t = std::get_if<Tuple>(&widths.v);
            if (t && !t->empty() && std::holds_alternative<Tuple>((*t)[0].v)) {
                for (const Value& v : *t) pairs.push_back(pair_of(v));
            } else {
                pairs.push_back(pair_of(widths));
            }
            Array c = value ? array(*value, "constant_values") : Array(0);
            return done(guarded(name.pos, [&] { return pad(a, pairs, c); }));
        }
        if (f == "tile") {
            Array a = a0();
            std::vector<int64_t> reps = integers(required(1, "reps"), "a repetition");
            return done(guarded(name.pos, [&] { return tile(a, reps); }));
        }
        if (f == "flip") {
            Array a = a0();
            auto ax = arg(1, "axis");
            std::optional<int> axis;
            if (ax && !none(*ax)) axis = static_cast<int>(integer(*ax, "axis"));
            return done(guarded(name.pos, [&] { return flip(a, axis); }));
        }
        if (f == "reshape" || f == "flatten" || f == "ravel") {
            Array a = a0();
            std::vector<int64_t> shape{-1};
            if (f == "reshape") {
                // reshape(A, (2, -1)), A.reshape((2, -1)) and A.reshape(2, -1).
                shape = integers(required(1, "shape"), "a size");
                for (size_t k = 2; k < args.size(); ++k) shape.push_back(integer(args[k], "a size"));
            }
            return done(guarded(name.pos, [&] { return reshape(a, shape); }));
        }
        if (lookup_operator(f)) {
            std::vector<Array> arrays;
            for (const Value& v : args) arrays.push_back(array(v, fmt::format("an argument of {}()", f)));
            return done(guarded(name.pos, [&] { return ufunc(f, arrays); }));
        }
        fail_at(name.pos, fmt::format("unknown function '{}'", f));
    }
};

} // namespace

Array parse_array_expression(std::string_view text, const std::map<std::string, Array>& names) {
    ir::SourceText src{text, "<expression>"};
    return Parser(src, names).parse();
}

} // namespace siskin
