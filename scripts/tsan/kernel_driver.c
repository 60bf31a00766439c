/* Runs one siskin kernel on buffers read from files, for scripts/tsan.sh: the kernel is a shared
 * library compiled from `siskin c` output with -fsanitize=thread, and this driver is the
 * ThreadSanitizer-built executable that loads it (the runtime must be in the executable).
 *
 *   kernel_driver KERNEL.so DIR
 *
 * DIR/manifest: "BUFFERS DIMS", then the DIMS dimensions, then one line per buffer of the kernel
 * ABI (docs/compiler.md): "in ELEMENT_SIZE COUNT" (its bytes in DIR/in<k>.bin) or "out
 * ELEMENT_SIZE 0" (an empty output buffer the kernel grows). After the call each output buffer
 * goes to DIR/out<k>.bin, and the kernel's status is printed. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    void *data;
    int64_t size;
    int64_t capacity;
} siskin_buffer; /* the layout of runtime/siskin_prelude.h */

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "kernel_driver: %s %s\n", what, detail ? detail : "");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc != 3) fail("usage: kernel_driver KERNEL.so DIR", NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest", argv[2]);
    FILE *m = fopen(path, "r");
    if (!m) fail("cannot read", path);
    int nbuf = 0, ndims = 0;
    if (fscanf(m, "%d %d", &nbuf, &ndims) != 2 || nbuf < 0 || ndims < 0) fail("bad manifest", path);
    int64_t *dims = calloc((size_t)ndims + 1, sizeof *dims);
    for (int d = 0; d < ndims; ++d)
        if (fscanf(m, "%ld", &dims[d]) != 1) fail("bad dimension in", path);
    siskin_buffer *bufs = calloc((size_t)nbuf + 1, sizeof *bufs);
    siskin_buffer **ptrs = calloc((size_t)nbuf + 1, sizeof *ptrs);
    int *is_out = calloc((size_t)nbuf + 1, sizeof *is_out);
    long *elem = calloc((size_t)nbuf + 1, sizeof *elem);
    for (int k = 0; k < nbuf; ++k) {
        char kind[8];
        long count = 0;
        if (fscanf(m, "%7s %ld %ld", kind, &elem[k], &count) != 3) fail("bad buffer line in", path);
        ptrs[k] = &bufs[k];
        is_out[k] = kind[0] == 'o';
        if (is_out[k]) continue;
        bufs[k].data = malloc((size_t)(count * elem[k]) + 1);
        bufs[k].size = bufs[k].capacity = count;
        snprintf(path, sizeof path, "%s/in%d.bin", argv[2], k);
        FILE *f = fopen(path, "rb");
        if (!f || fread(bufs[k].data, (size_t)elem[k], (size_t)count, f) != (size_t)count) fail("cannot read", path);
        fclose(f);
    }
    fclose(m);
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) fail("cannot load", dlerror());
    int (*kernel)(siskin_buffer **, const int64_t *) =
        (int (*)(siskin_buffer **, const int64_t *))dlsym(lib, "siskin_kernel");
    if (!kernel) fail("no siskin_kernel in", argv[1]);
    int status = kernel(ptrs, dims);
    for (int k = 0; k < nbuf; ++k) {
        if (!is_out[k]) continue;
        snprintf(path, sizeof path, "%s/out%d.bin", argv[2], k);
        FILE *f = fopen(path, "wb");
        if (!f) fail("cannot write", path);
        if (bufs[k].size > 0) fwrite(bufs[k].data, (size_t)elem[k], (size_t)bufs[k].size, f);
        fclose(f);
    }
    printf("status %d\n", status);
    return 0;
}
