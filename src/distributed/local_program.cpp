#include "distributed/local_program.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/kernel_impl.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::distributed {

namespace {

CompileOptions local_options() {
    CompileOptions o;
    o.threads = 1;
    return o;
}

// Ranks on one machine compile the same kernels at the same moment: one compiles while the
// others wait on a lock named after the kernel, then find it in siskin's disk cache.
class CompileLock {
public:
    explicit CompileLock(const std::string& key) {
        const char* dir = std::getenv("TMPDIR");
        std::string path = fmt::format("{}/siskin-compile-{:016x}.lock", dir && *dir ? dir : "/tmp",
                                       std::hash<std::string>{}(key));
        fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0666);
        if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
            ::close(fd_);
            fd_ = -1; // no lock: every rank compiles, as without one
        }
    }
    CompileLock(const CompileLock&) = delete;
    ~CompileLock() {
        if (fd_ >= 0) ::close(fd_); // closing releases the lock
    }

private:
    int fd_ = -1;
};

CompiledProgram compile_once(const std::string& key, const ir::Program& program,
                             const std::map<std::string, const Tensor*>& inputs,
                             const std::map<std::string, OutputSpec>& outputs) {
    CompileLock lock(key);
    return compile_for(program, inputs, outputs, local_options());
}

// The compiled programs of this process, by program text and kind of input.
std::map<std::string, CompiledProgram>& cache() {
    static std::map<std::string, CompiledProgram> programs;
    return programs;
}

// The kind of input a kernel is compiled for: signatures (finiteness included: a kernel for
// finite values may skip 0 * x) and shapes.
std::string key_of(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                   const std::map<std::string, OutputSpec>& outputs, std::string_view use,
                   const LocalProgram::KnownFinite& known) {
    std::string key = fmt::format("{}\n{}\n", use, text);
    for (const auto& [name, t] : inputs) {
        auto it = known.find(name);
        TensorSignature sig = TensorSignature::of(*t, it == known.end());
        if (it != known.end()) sig.finite = it->second;
        key += fmt::format("{}:{}:{}\n", name, sig.to_string(), fmt::join(t->shape(), "x"));
    }
    for (const auto& [name, spec] : outputs) {
        key += name + ":";
        if (spec.format) key += spec.format->to_string();
        if (spec.fill) key += "/" + spec.fill->to_string();
        if (spec.type) key += "/" + std::string(type_name(*spec.type));
        if (spec.start) key += fmt::format("/start {}", TensorSignature::of(*spec.start).to_string());
        key += "\n";
    }
    return key;
}

} // namespace

LocalProgram::LocalProgram(std::string text) : text_(std::move(text)), program_(ir::parse_program(text_)) {}

std::map<std::string, Tensor> LocalProgram::run(const std::map<std::string, const Tensor*>& inputs,
                                                const std::map<std::string, OutputSpec>& outputs,
                                                const KnownFinite& known) const {
    std::string key = key_of(text_, inputs, outputs, "run", known);
    auto it = cache().find(key);
    if (it == cache().end())
        it = cache().emplace(key, compile_once(key, program_, inputs, outputs)).first;
    return it->second.run(inputs);
}

void LocalProgram::update(const std::map<std::string, const Tensor*>& inputs, const std::string& name,
                          Tensor& output, const KnownFinite& known) const {
    std::map<std::string, OutputSpec> specs;
    specs[name].start = &output;
    std::string key = key_of(text_, inputs, specs, "update", known);
    auto it = cache().find(key);
    if (it == cache().end())
        it = cache().emplace(key, compile_once(key, program_, inputs, specs)).first;
    std::map<std::string, Tensor> outputs;
    outputs.emplace(name, std::move(output));
    try {
        // The key's signatures were checked above (finiteness included): no second scan.
        it->second.kernel->impl().run(inputs, outputs, false);
    } catch (...) {
        output = std::move(outputs.at(name));
        throw;
    }
    output = std::move(outputs.at(name));
}

} // namespace siskin::distributed
