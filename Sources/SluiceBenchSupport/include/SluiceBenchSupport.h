#ifndef SLUICE_BENCH_SUPPORT_H
#define SLUICE_BENCH_SUPPORT_H

#include <stdint.h>

/// Counts calls to malloc, calloc, realloc and posix_memalign made by this process since it
/// started, by interposing those functions in the benchmark executable (glibc's own versions
/// are reached through their __libc_ names).
uint64_t sluice_allocation_count(void);

#endif
