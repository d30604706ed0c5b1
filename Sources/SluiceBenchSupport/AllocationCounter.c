// Allocation counting for sluice-bench: the executable's definitions of the allocation
// functions take precedence over libc's, so every allocation in the process passes through
// here. Only counting happens; the work is done by glibc's __libc_* entry points.
#define _GNU_SOURCE
#include "SluiceBenchSupport.h"
#include <stddef.h>
#include <errno.h>

#if defined(__GLIBC__)
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static uint64_t allocations = 0;

void *malloc(size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

uint64_t sluice_allocation_count(void) {
    return __atomic_load_n(&allocations, __ATOMIC_RELAXED);
}
#else
uint64_t sluice_allocation_count(void) { return 0; }
#endif
