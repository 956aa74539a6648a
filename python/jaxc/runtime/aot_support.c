/* Runtime helpers compiled into every exported program.so (jaxc.runtime.aot),
 * so that a CPU program needs nothing beyond libc and libm when it is loaded.
 *
 * Compiled code calls these when the pipeline cannot inline them:
 *   memrefCopy     memref.copy between strided memrefs (MLIR's
 *                  finalize-memref-to-llvm; normally from libmlir_c_runner_utils)
 *   __truncsfbf2   f32 -> bf16 and f64 -> bf16 conversions (compiler-rt has
 *   __truncdfbf2   them; GCC's libgcc only from GCC 13)
 *
 * The loader (jaxc_aot) calls these around every call, so that an exported
 * program flushes denormals to zero as the JIT and XLA do on the CPU:
 *   jaxc_aot_enter  set MXCSR's FTZ and DAZ bits; returns the caller's MXCSR
 *   jaxc_aot_leave  put that MXCSR back
 *
 * All the others are hidden: each program.so binds to its own copy, and a process that
 * also loaded MLIR's runner utilities sees no clash. (Tests compile this file
 * with -DJAXC_SUPPORT_VISIBILITY='"default"' to call the helpers directly.)
 */
#include <stdint.h>
#include <string.h>

#ifndef JAXC_SUPPORT_VISIBILITY
#define JAXC_SUPPORT_VISIBILITY "hidden"
#endif
#define HIDDEN __attribute__((visibility(JAXC_SUPPORT_VISIBILITY)))

/* A ranked memref descriptor: {allocated, aligned, offset, sizes[rank], strides[rank]}. */
typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes_and_strides[];
} MemRefDescriptor;

/* An unranked memref: the rank and a pointer to a ranked descriptor. */
typedef struct {
  int64_t rank;
  MemRefDescriptor *descriptor;
} UnrankedMemRef;

/* Copy every element of `src` to the same index of `dst` (equal sizes; any
 * strides and offsets, in elements). Rows whose last stride is 1 on both
 * sides are copied with one memcpy each. */
HIDDEN void memrefCopy(int64_t elem_size, UnrankedMemRef *src, UnrankedMemRef *dst) {
  const int64_t rank = src->rank;
  const MemRefDescriptor *s = src->descriptor, *d = dst->descriptor;
  const int64_t *sizes = s->sizes_and_strides;
  const int64_t *src_strides = s->sizes_and_strides + rank;
  const int64_t *dst_strides = d->sizes_and_strides + rank;
  char *from = s->aligned + s->offset * elem_size;
  char *to = d->aligned + d->offset * elem_size;

  if (rank == 0) {
    memcpy(to, from, elem_size);
    return;
  }
  for (int64_t k = 0; k < rank; ++k)
    if (sizes[k] == 0)
      return;

  const int64_t last = rank - 1, n = sizes[last];
  const int contiguous_rows = src_strides[last] == 1 && dst_strides[last] == 1;
  int64_t index[rank]; /* position in the outer dimensions (0..last-1) */
  memset(index, 0, sizeof index);
  for (;;) {
    if (contiguous_rows) {
      memcpy(to, from, n * elem_size);
    } else {
      for (int64_t i = 0; i < n; ++i)
        memcpy(to + i * dst_strides[last] * elem_size,
               from + i * src_strides[last] * elem_size, elem_size);
    }
    /* Advance the outer index like an odometer; done when it wraps. */
    int64_t k = last - 1;
    for (; k >= 0; --k) {
      from += src_strides[k] * elem_size;
      to += dst_strides[k] * elem_size;
      if (++index[k] < sizes[k])
        break;
      from -= sizes[k] * src_strides[k] * elem_size;
      to -= sizes[k] * dst_strides[k] * elem_size;
      index[k] = 0;
    }
    if (k < 0)
      return;
  }
}

/* bf16 is the top half of an f32. x86-64 returns a bf16 in the low 16 bits
 * of xmm0, which is where a C `float` return puts the low bits of its
 * pattern: the result travels as a float whose low half holds the bf16. */
static float bf16_return(uint16_t bits) {
  uint32_t word = bits;
  float out;
  memcpy(&out, &word, sizeof out);
  return out;
}

/* f32 bits -> bf16 bits, rounding to nearest even; NaN stays a (quiet) NaN. */
static uint16_t f32_bits_to_bf16(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((bits >> 16) | 0x0040u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

HIDDEN float __truncsfbf2(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bf16_return(f32_bits_to_bf16(bits));
}

/* f64 -> bf16 with one rounding: go to f32 rounding to odd (truncate toward
 * zero, then set the last bit if anything was lost; f32 keeps 16 more bits
 * than bf16, so the final round to nearest even sees the right answer). */
HIDDEN float __truncdfbf2(double x) {
  float f = (float)x;
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if (x == x && (double)f != x) {  /* inexact (never for NaN or infinity) */
    double af = f < 0 ? -(double)f : (double)f, ax = x < 0 ? -x : x;
    if (af > ax)
      bits -= 1;  /* one step toward zero (an overflow to inf becomes FLT_MAX) */
    bits |= 1u;
  }
  return bf16_return(f32_bits_to_bf16(bits));
}

/* Denormals flushed to zero during a call (FTZ: results, DAZ: inputs), as
 * jaxc's JIT runs compiled code (_fastcall.c); other hosts keep subnormals. */
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
__attribute__((visibility("default"))) uint32_t jaxc_aot_enter(void) {
  uint32_t saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);
  return saved;
}
__attribute__((visibility("default"))) void jaxc_aot_leave(uint32_t saved) { _mm_setcsr(saved); }
#else
__attribute__((visibility("default"))) uint32_t jaxc_aot_enter(void) { return 0; }
__attribute__((visibility("default"))) void jaxc_aot_leave(uint32_t saved) { (void)saved; }
#endif
