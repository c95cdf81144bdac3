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

/* Temporaries of the compiled code, recycled by size.
 *
 * The generated code's `memref.alloc`s call `aten_mlir_alloc` / `aten_mlir_free` (native.py
 * renames its malloc / free to these). glibc hands blocks of the mmap threshold and more (128
 * KiB at first) to the OS on free, and trims the top of the heap, so a program that makes MiB
 * temporaries on every call page-faults them fresh each time (the decode KV-cache cats: ~10 MB,
 * 2500 faults per call). Recycling them here keeps that memory mapped without changing malloc
 * for the rest of the process (mallopt would). Blocks smaller than CACHED_MIN stay with malloc,
 * which keeps those itself. Bounded: at most CACHE_SLOTS blocks and CACHE_BYTES in all (oldest
 * given back first); `aten_mlir_release_temporaries` empties it. One lock: the pool's threads
 * may allocate at once, and a call here costs far less than faulting one page. Every block
 * comes from malloc, so one handed out as a result may as well be freed by libc's free. */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#define CACHED_MIN ((size_t)64 << 10)
#define CACHE_SLOTS 64
#define CACHE_BYTES ((size_t)256 << 20)

static struct {
  void *ptr;
  size_t size; /* malloc_usable_size */
} cache[CACHE_SLOTS];
static int cached_count; /* cache[0 .. cached_count), oldest first */
static size_t cached_bytes;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void drop_slot(int i) {
  cached_bytes -= cache[i].size;
  memmove(&cache[i], &cache[i + 1], (size_t)(cached_count - i - 1) * sizeof cache[0]);
  --cached_count;
}

void *aten_mlir_alloc(size_t size) {
  if (size >= CACHED_MIN) {
    void *found = NULL;
    pthread_mutex_lock(&cache_lock);
    int best = -1;
    /* the smallest block that fits without wasting more than a quarter of it */
    for (int i = 0; i < cached_count; ++i)
      if (cache[i].size >= size && cache[i].size - size <= size / 4 &&
          (best < 0 || cache[i].size < cache[best].size))
        best = i;
    if (best >= 0) {
      found = cache[best].ptr;
      drop_slot(best);
    }
    pthread_mutex_unlock(&cache_lock);
    if (found) return found;
  }
  return malloc(size);
}

void aten_mlir_free(void *ptr) {
  if (!ptr) return;
  size_t size = malloc_usable_size(ptr);
  if (size < CACHED_MIN || size > CACHE_BYTES / 4) {
    free(ptr);
    return;
  }
  void *evicted[CACHE_SLOTS];
  int count = 0;
  pthread_mutex_lock(&cache_lock);
  while (cached_count > 0 && (cached_count == CACHE_SLOTS || cached_bytes + size > CACHE_BYTES)) {
    evicted[count++] = cache[0].ptr;
    drop_slot(0);
  }
  cache[cached_count].ptr = ptr;
  cache[cached_count].size = size;
  ++cached_count;
  cached_bytes += size;
  pthread_mutex_unlock(&cache_lock);
  for (int i = 0; i < count; ++i) free(evicted[i]);
}

/* Gives every cached block back to malloc (a program freed, or a test). Returns the bytes. */
size_t aten_mlir_release_temporaries(void) {
  void *blocks[CACHE_SLOTS];
  pthread_mutex_lock(&cache_lock);
  int count = cached_count;
  size_t bytes = cached_bytes;
  for (int i = 0; i < count; ++i) blocks[i] = cache[i].ptr;
  cached_count = 0;
  cached_bytes = 0;
  pthread_mutex_unlock(&cache_lock);
  for (int i = 0; i < count; ++i) free(blocks[i]);
  return bytes;
}

/* The bytes cached now (tests). */
size_t aten_mlir_cached_bytes(void) {
  pthread_mutex_lock(&cache_lock);
  size_t bytes = cached_bytes;
  pthread_mutex_unlock(&cache_lock);
  return bytes;
}
