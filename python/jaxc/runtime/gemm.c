/* Matrix products for compiled CPU code: C = A.B (+ C) in f32 and f64 on
   AVX-512, AVX2+FMA and SSE2, packed panels and a register tile of
   accumulators, for any strides of A, B and C (so A.B, At.B, A.Bt and
   slices alike). `jaxc-schedule` marks a contraction with
   `library_call = "jaxc_gemm_f32_avx512"` (the family the target's vector
   width names) and `jaxc-library-calls` turns it into a call:

       func.call @jaxc_gemm_f32_avx512(%m, %n, %k, %a, %a_offset, %a_row_stride, %a_col_stride,
                                       %b, ..., %c, ..., %overwrite) : (index x 16) -> ()

   Compiled once when jaxc is built (libjaxc_kernels.so, loaded with the
   runtime libraries), so a product costs the compiler a call, not a loop
   nest; jaxc.runtime.aot compiles it into exported programs. The threads
   are the caller's: the schedule splits C's rows or columns over an
   scf.forall, and each thread calls this on its part. No dependencies but
   libc. */
#pragma GCC optimize("O3")
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernels.h"

/* Packed panels, one buffer for A's and one for B's per thread (and one
   more for fft.c's work buffers, kernels.h), grown as needed and kept (a
   fresh allocation per call costs page faults: 0.1-0.3 ms for B's 4 MB);
   freed when the thread exits. */
struct scratch {
    void *buffer[JAXC_SCRATCH_SLOTS];
    size_t bytes[JAXC_SCRATCH_SLOTS];
};
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *data)
{
    struct scratch *s = data;
    for (int i = 0; i < JAXC_SCRATCH_SLOTS; i++) free(s->buffer[i]);
    free(s);
}

static void scratch_init(void) { pthread_key_create(&scratch_key, scratch_free); }

/* Unloading (LLVM's static destructors dlclose the execution engine's
   libraries at exit, before the OpenMP workers end) must take the key with
   it: a thread ending later would otherwise call scratch_free where the
   library was (a segfault at exit). Its buffers then leak, once. */
__attribute__((destructor)) static void scratch_unload(void)
{
    if (pthread_once(&scratch_once, scratch_init) == 0)
        pthread_key_delete(scratch_key);
}

/* A buffer of at least `bytes`, 64-byte aligned; NULL when out of memory. */
static void *scratch(int which, size_t bytes)
{
    pthread_once(&scratch_once, scratch_init);
    struct scratch *s = pthread_getspecific(scratch_key);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s || pthread_setspecific(scratch_key, s) != 0) {
            free(s);
            return NULL;
        }
    }
    if (s->bytes[which] < bytes) {
        free(s->buffer[which]);
        s->buffer[which] = aligned_alloc(64, (bytes + 63) / 64 * 64);
        s->bytes[which] = s->buffer[which] ? bytes : 0;
    }
    return s->buffer[which];
}

void *jaxc_scratch(int which, size_t bytes) { return scratch(which, bytes); }

/* The families, each falling back to the one before it. Register tiles:
   all of the vector registers but the B vectors and one broadcast of A.
   Cache tiles chosen by measurement on an AVX-512 Zen 4
   (docs/performance.md). */
#define KC 512
#define NC 2048
/* Products that `small` computes without packing: B within SMALL_B_BYTES
   (L2), and C at most SMALL_VECTORS vectors wide or with fewer rows than
   the register tile (MR): there the packed path's MR x NR tiles are mostly
   outside C and their edges are written element by element (128x10x512
   f32: 30 us packed, 11 unpacked; docs/performance.md). B's rows must be
   contiguous, or C have SMALL_COPY_ROWS rows or more to pay for copying
   them. SR rows of C at a time. */
#define SMALL_B_BYTES (1 << 20)
#define SMALL_VECTORS 4
#define SMALL_COPY_ROWS 16
#define SR 8


/* SSE2: every x86-64 CPU has it (the fallback is never taken). */
#define MC 64
#define SUPPORTED 1
#define T float
#define W 4
#define MR 4
#define NRV 2
#define SUFFIX f32_sse2
#define TARGET "sse2"
#define FALLBACK gemm_f32_sse2
#include "gemm_family.h"
#undef T
#undef W
#undef SUFFIX
#undef FALLBACK

#define T double
#define W 2
#define SUFFIX f64_sse2
#define FALLBACK gemm_f64_sse2
#include "gemm_family.h"
#undef T
#undef W
#undef MR
#undef NRV
#undef SUFFIX
#undef TARGET
#undef FALLBACK
#undef SUPPORTED
#undef MC

/* AVX2 + FMA: 16 ymm = 6 x 2 accumulators + 2 B vectors + 1 broadcast. */
#define MC 60
#define SUPPORTED jaxc_has_avx2()
#define TARGET "avx2,fma"
#define MR 6
#define NRV 2
#define T float
#define W 8
#define SUFFIX f32_avx2
#define FALLBACK gemm_f32_sse2
#include "gemm_family.h"
#undef T
#undef W
#undef SUFFIX
#undef FALLBACK

#define T double
#define W 4
#define SUFFIX f64_avx2
#define FALLBACK gemm_f64_sse2
#include "gemm_family.h"
#undef T
#undef W
#undef MR
#undef NRV
#undef SUFFIX
#undef TARGET
#undef FALLBACK
#undef SUPPORTED
#undef MC

/* AVX-512: 32 zmm = 14 x 2 accumulators + 2 B vectors + 1 broadcast. */
#define MC 56
#define SUPPORTED jaxc_has_avx512()
#define TARGET "avx512f,fma"
#define MR 14
#define NRV 2
#define T float
#define W 16
#define SUFFIX f32_avx512
#define FALLBACK gemm_f32_avx2
#include "gemm_family.h"
#undef T
#undef W
#undef SUFFIX
#undef FALLBACK

#define T double
#define W 8
#define SUFFIX f64_avx512
#define FALLBACK gemm_f64_avx2
#include "gemm_family.h"
