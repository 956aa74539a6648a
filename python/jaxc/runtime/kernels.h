/* What the kernels of libjaxc_kernels.so share (gemm.c, fft.c, lu.c,
   triangular_solve.c, cholesky.c, qr.c, eigh.c, svd.c; an exported program compiles all of them into
   itself, jaxc.runtime.aot): the per-thread scratch buffers of gemm.c.
   Hidden: each program.so, and the library, binds to its own copy. */
#ifndef JAXC_KERNELS_H
#define JAXC_KERNELS_H
#include <stddef.h>

/* The buffer slots: gemm's packed panels of B and of A, then fft.c's: the
   work buffers of a block of columns, the intermediate of a transform split
   in two, the sequences of Bluestein's convolution one column at a time;
   then lu.c's packed panel and -U12, then triangular_solve.c's packed
   diagonal block and strip, then cholesky.c's -L21^T, qr.c's panel and
   block-reflector products, eigh.c's and svd.c's work arrays. */
enum {
    JAXC_SCRATCH_GEMM_B,
    JAXC_SCRATCH_GEMM_A,
    JAXC_SCRATCH_FFT,
    JAXC_SCRATCH_FFT_SPLIT,
    JAXC_SCRATCH_FFT_BLUESTEIN,
    JAXC_SCRATCH_LU,
    JAXC_SCRATCH_TRSM,
    JAXC_SCRATCH_CHOLESKY,
    JAXC_SCRATCH_QR,
    JAXC_SCRATCH_EIGH,
    JAXC_SCRATCH_SVD,
    JAXC_SCRATCH_SLOTS
};

/* This thread's buffer `which`, at least `bytes` long and 64-byte aligned
   (grown as needed, kept, freed when the thread exits); NULL when out of
   memory. Its contents are garbage: a slot is scratch for one call. */
__attribute__((visibility("hidden"))) void *jaxc_scratch(int which, size_t bytes);

#endif
