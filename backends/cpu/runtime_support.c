/* Runtime functions the lowered code calls, linked into every library we build.
 *
 * MLIR's own (libmlir_c_runner_utils) drag in libMLIR/libLLVM, whose LLVM command-line options
 * clash with Triton's LLVM when both are loaded globally; these few are all we need. */
#include <stdint.h>
#include <string.h>

typedef struct {
  int64_t rank;
  void *descriptor; /* {char *allocated, *aligned; int64_t offset, sizes[rank], strides[rank]} */
} UnrankedMemRef;

typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t shape[];
} StridedDescriptor;

/* memref.copy between memrefs of any layout (same shape): an N-d strided loop. */
void memrefCopy(int64_t elem_size, UnrankedMemRef *src, UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  StridedDescriptor *s = (StridedDescriptor *)src->descriptor;
  StridedDescriptor *d = (StridedDescriptor *)dst->descriptor;
  const int64_t *sizes = s->shape, *src_strides = s->shape + rank, *dst_strides = d->shape + rank;
  char *src_base = s->aligned + s->offset * elem_size;
  char *dst_base = d->aligned + d->offset * elem_size;
  if (rank == 0) {
    memcpy(dst_base, src_base, elem_size);
    return;
  }
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0) return;
  int64_t index[64] = {0};
  if (rank > 64) return;
  for (;;) {
    int64_t so = 0, dof = 0;
    for (int64_t i = 0; i < rank; ++i) {
      so += index[i] * src_strides[i];
      dof += index[i] * dst_strides[i];
    }
    memcpy(dst_base + dof * elem_size, src_base + so * elem_size, elem_size);
    int64_t axis = rank - 1;
    while (axis >= 0 && ++index[axis] == sizes[axis]) index[axis--] = 0;
    if (axis < 0) return;
  }
}
