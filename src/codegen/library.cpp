// CompiledLibrary: a dlopen handle and the lookups into it.
#include <dlfcn.h>

#include <fmt/format.h>

#include "siskin/codegen/jit.hpp"
#include "siskin/error.hpp"

namespace siskin::codegen {

std::shared_ptr<const CompiledLibrary> CompiledLibrary::load(std::string path, std::string key) {
    SISKIN_ASSERT(path.find('/') != std::string::npos,
                  "a library path without a slash would be searched on the library path");
    // RTLD_NOW: an unresolved symbol fails here, not in the middle of a kernel. RTLD_LOCAL:
    // kernels of different libraries may reuse names.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        throw Error(fmt::format("cannot load the compiled kernel '{}': {}", path,
                                why ? why : "unknown dlopen error"));
    }
    return std::shared_ptr<const CompiledLibrary>(
        new CompiledLibrary(handle, std::move(path), std::move(key)));
}

CompiledLibrary::~CompiledLibrary() { dlclose(handle_); }

void* CompiledLibrary::symbol(std::string_view name) const {
    std::string n(name);
    dlerror(); // clear a stale error
    void* p = dlsym(handle_, n.c_str());
    if (!p) throw Error(fmt::format("the compiled library '{}' has no symbol '{}'", path_, name));
    return p;
}

} // namespace siskin::codegen
