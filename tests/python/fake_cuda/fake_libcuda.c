/* A stand-in for the CUDA driver (libcuda.so.1) on machines without a GPU.
 *
 * It implements every driver function MLIR's CUDA runtime wrappers import,
 * backs managed and device memory with malloc, and counts what the host
 * code of a compiled program asks for (module loads, launches, allocations,
 * frees, streams). Kernels do not run: tests check the host side of the
 * GPU path (linking, constructors, launches, memory), not results.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum { LAUNCHES, MANAGED_ALLOCS, FREES, MODULE_LOADS, MODULE_UNLOADS, STREAMS_CREATED,
       STREAMS_DESTROYED, DEVICE_ALLOCS, PREFETCHES, COUNTERS };
static long counts[COUNTERS];

long fake_cuda_count(int which) { return which >= 0 && which < COUNTERS ? counts[which] : -1; }

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDeviceGetCount(int *count) { *count = 1; return 0; }
CUresult cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }
CUresult cuDeviceGetName(char *name, int length, int device) {
  (void)device; strncpy(name, "Fake CUDA device", (size_t)length); return 0;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device; *value = attribute == 75 ? 9 : 0; return 0;  /* compute capability 9.0 */
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device; *context = (void *)0x1; return 0;
}
CUresult cuCtxPushCurrent_v2(void *context) { (void)context; return 0; }
CUresult cuCtxPopCurrent_v2(void **context) { if (context) *context = (void *)0x1; return 0; }
CUresult cuModuleLoadData(void **module, const void *image) {
  (void)image; counts[MODULE_LOADS]++; *module = (void *)0x2; return 0;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, void *options,
                            void **values) {
  (void)n; (void)options; (void)values; return cuModuleLoadData(module, image);
}
CUresult cuModuleUnload(void *module) { (void)module; counts[MODULE_UNLOADS]++; return 0; }
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module; (void)name; *function = (void *)0x3; return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared;
  (void)stream; (void)params; (void)extra;
  counts[LAUNCHES]++; return 0;
}
CUresult cuLaunchKernelEx(const void *config, void *f, void **params, void **extra) {
  (void)config; (void)f; (void)params; (void)extra; counts[LAUNCHES]++; return 0;
}
CUresult cuFuncSetAttribute(void *f, int attribute, int value) {
  (void)f; (void)attribute; (void)value; return 0;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags; counts[STREAMS_CREATED]++; *stream = (void *)0x4; return 0;
}
CUresult cuStreamSynchronize(void *stream) { (void)stream; return 0; }
CUresult cuStreamDestroy_v2(void *stream) { (void)stream; counts[STREAMS_DESTROYED]++; return 0; }
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  (void)stream; (void)event; (void)flags; return 0;
}
CUresult cuEventCreate(void **event, unsigned flags) { (void)flags; *event = (void *)0x5; return 0; }
CUresult cuEventDestroy_v2(void *event) { (void)event; return 0; }
CUresult cuEventRecord(void *event, void *stream) { (void)event; (void)stream; return 0; }
CUresult cuEventSynchronize(void *event) { (void)event; return 0; }
CUresult cuMemAllocManaged(uintptr_t *pointer, size_t bytes, unsigned flags) {
  (void)flags; counts[MANAGED_ALLOCS]++; *pointer = (uintptr_t)malloc(bytes); return 0;
}
CUresult cuMemAlloc_v2(uintptr_t *pointer, size_t bytes) {
  counts[DEVICE_ALLOCS]++; *pointer = (uintptr_t)malloc(bytes); return 0;
}
typedef struct { int type, id; } CUmemLocation;
CUresult cuMemPrefetchAsync_v2(uintptr_t pointer, size_t bytes, CUmemLocation location,
                               unsigned flags, void *stream) {
  (void)pointer; (void)bytes; (void)flags; (void)stream;
  if (location.type != 1 || location.id != 0) return 1;  /* jaxc prefetches to device 0 */
  counts[PREFETCHES]++; return 0;
}
CUresult cuMemFree_v2(uintptr_t pointer) { counts[FREES]++; free((void *)pointer); return 0; }
CUresult cuMemcpy(uintptr_t to, uintptr_t from, size_t bytes) {
  memcpy((void *)to, (const void *)from, bytes); return 0;
}
CUresult cuMemcpyAsync(uintptr_t to, uintptr_t from, size_t bytes, void *stream) {
  (void)stream; memcpy((void *)to, (const void *)from, bytes); return 0;
}
CUresult cuMemsetD16Async(uintptr_t to, unsigned short value, size_t count, void *stream) {
  (void)stream; for (size_t i = 0; i < count; i++) ((unsigned short *)to)[i] = value; return 0;
}
CUresult cuMemsetD32Async(uintptr_t to, unsigned value, size_t count, void *stream) {
  (void)stream; for (size_t i = 0; i < count; i++) ((unsigned *)to)[i] = value; return 0;
}
CUresult cuMemHostRegister_v2(void *pointer, size_t bytes, unsigned flags) {
  (void)pointer; (void)bytes; (void)flags; return 0;
}
CUresult cuMemHostUnregister(void *pointer) { (void)pointer; return 0; }
CUresult cuTensorMapEncodeTiled(void) { return 1; }  /* not used by jaxc programs */
CUresult cuGetErrorName(CUresult error, const char **name) {
  (void)error; *name = "CUDA_ERROR_FAKE"; return 0;
}
