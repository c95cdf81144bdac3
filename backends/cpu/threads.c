/* The thread pool that runs the outer parallel loops of compiled code.
 *
 * One per process: `threads.py` loads this library RTLD_GLOBAL before any compiled library, so
 * every library binds `aten_mlir_parallel_for` to the same pool and the same thread count (a
 * copy per library would start its own workers). `cpu-parallelize-loops` outlines a loop as
 * `body(ctx, begin, end)` over iterations [begin, end) and calls `aten_mlir_parallel_for(body,
 * ctx, n)`.
 *
 * When torch runs on GNU OpenMP, threads.py hands over libgomp's entry points and each call is
 * one parallel region of torch's own team whose members claim chunks of [0, n) (see
 * `aten_mlir_share_openmp`). Otherwise the pool below runs it.
 *
 * At one thread the call is `body(ctx, 0, n)`: no thread is ever created. With T threads, the
 * workers (created on the first such call, kept for the life of the process) and the caller take
 * chunks of [0, n) (8 per thread) until none is left. Iterations are independent and each runs the
 * same code whichever thread runs it, so results do not depend on the thread count. A call from
 * inside a loop body (a worker, or the caller while it runs chunks) or from a second caller thread
 * while the pool is busy runs serially. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#define MAX_THREADS 256
/* Pauses (tens of microseconds in all) before a worker sleeps, or a waiting caller yields: the
 * loops of one call follow each other closely and find the workers awake, while an idle pool, or
 * one on a loaded machine, gives its cores away. */
#define SPINS 2000

typedef void (*aten_mlir_body)(void *ctx, int64_t begin, int64_t end);

/* Threads to use, set by threads.py from torch.get_num_threads(). */
int aten_mlir_num_threads = 1;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER; /* one parallel loop at a time */
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int started; /* workers created so far */
static _Thread_local int inside; /* this thread runs a loop body */

/* The current job. `claim` packs the job's generation (high 32 bits), the next chunk to run and
 * the number of chunks (16 bits each): a thread takes chunk k by moving `claim` from (g, k, c) to
 * (g, k + 1, c), so a worker that wakes late, after its job was finished by others, finds a
 * generation it was not woken for and runs nothing. The job's fields are read only after a
 * successful claim, when the job cannot have finished: the caller waits until `done` counts
 * every chunk. Nobody waits for a worker that never got a core (a loaded machine): the caller
 * and the workers that run take its chunks. */
static aten_mlir_body job_body;
static void *job_ctx;
static int64_t job_n;
static atomic_uint generation;
static atomic_uint_fast64_t claim;
static atomic_int done;
/* Chunks per thread: enough that a thread that loses its core holds up little of the loop. */
#define CHUNKS_PER_THREAD 8

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static uint64_t pack(unsigned gen, unsigned next, unsigned chunks) {
  return (uint64_t)gen << 32 | (uint64_t)next << 16 | chunks;
}

/* Runs chunks of job `gen` until none is left. */
static void run_chunks(unsigned gen) {
  uint64_t c = atomic_load_explicit(&claim, memory_order_acquire);
  for (;;) {
    unsigned next = (unsigned)(c >> 16) & 0xffff, chunks = (unsigned)c & 0xffff;
    if ((unsigned)(c >> 32) != gen || next >= chunks) return;
    if (!atomic_compare_exchange_weak_explicit(&claim, &c, c + (1u << 16), memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    int64_t begin = job_n * next / chunks, end = job_n * (next + 1) / chunks;
    if (begin < end) job_body(job_ctx, begin, end);
    atomic_fetch_add_explicit(&done, 1, memory_order_release);
    c = atomic_load_explicit(&claim, memory_order_acquire);
  }
}

static void *worker(void *arg) {
  unsigned seen = (unsigned)(uintptr_t)arg; /* the generation before the worker was created */
  inside = 1;
  for (;;) {
    unsigned now;
    int spins = 0;
    while ((now = atomic_load_explicit(&generation, memory_order_acquire)) == seen) {
      if (++spins < SPINS) {
        relax();
        continue;
      }
      pthread_mutex_lock(&wake_lock);
      while ((now = atomic_load_explicit(&generation, memory_order_acquire)) == seen)
        pthread_cond_wait(&wake, &wake_lock);
      pthread_mutex_unlock(&wake_lock);
      break;
    }
    seen = now;
    run_chunks(now);
  }
  return 0;
}

/* A forked child has none of the parent's workers (the bench and pytest workers fork). */
static void forget_workers(void) {
  started = 0;
  pthread_mutex_init(&pool_lock, 0);
  pthread_mutex_init(&wake_lock, 0);
  pthread_cond_init(&wake, 0);
}

static int start_workers(int threads) {
  static int registered;
  if (!registered) {
    pthread_atfork(0, 0, forget_workers);
    registered = 1;
  }
  unsigned gen = atomic_load_explicit(&generation, memory_order_relaxed);
  while (started < threads - 1) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int failed = pthread_create(&thread, &attr, worker, (void *)(uintptr_t)gen);
    pthread_attr_destroy(&attr);
    if (failed) break;
    ++started;
  }
  return started + 1;
}

/* torch's own OpenMP team (GNU libgomp), when threads.py finds it in the process: eager ops and
 * compiled loops then run on the same threads. A pool of our own beside it loses its cores to
 * libgomp's workers, which spin for a while after every eager op (a 2-thread ResNet call took
 * 0.64 ms with our pool, 0.16 ms once libgomp's workers were made passive). */
typedef void (*gomp_parallel_fn)(void (*)(void *), void *, unsigned, unsigned);
typedef int (*omp_query_fn)(void);
static gomp_parallel_fn gomp_parallel;
static omp_query_fn omp_thread_num, omp_team_size;

void aten_mlir_share_openmp(void *parallel, void *thread_num, void *team_size) {
  gomp_parallel = (gomp_parallel_fn)parallel;
  omp_thread_num = (omp_query_fn)thread_num;
  omp_team_size = (omp_query_fn)team_size;
}

struct team_job {
  aten_mlir_body body;
  void *ctx;
  int64_t n, chunks;
  atomic_int_fast64_t next; /* the next chunk to claim */
};

/* Members claim chunks of [0, n) until none is left, rather than one fixed share each: on a
 * loaded machine a member that has lost its core holds up one chunk, not a 1/T share of the loop
 * (fixed shares made 2-thread products 3-4x slower than 1 thread while other processes ran). */
static void run_share(void *arg) {
  struct team_job *job = arg;
  inside = 1;
  for (;;) {
    int64_t k = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
    if (k >= job->chunks) break;
    int64_t begin = job->n * k / job->chunks, end = job->n * (k + 1) / job->chunks;
    if (begin < end) job->body(job->ctx, begin, end);
  }
  inside = 0;
}

void aten_mlir_parallel_for(aten_mlir_body body, void *ctx, int64_t n) {
  int threads = aten_mlir_num_threads;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  if (threads > n) threads = (int)n;
  if (threads <= 1 || inside) {
    body(ctx, 0, n);
    return;
  }
  if (gomp_parallel) {
    int64_t chunks = (int64_t)threads * CHUNKS_PER_THREAD;
    struct team_job job = {body, ctx, n, chunks < n ? chunks : n, 0};
    gomp_parallel(run_share, &job, (unsigned)threads, 0);
    return;
  }
  if (pthread_mutex_trylock(&pool_lock) != 0) {
    body(ctx, 0, n);
    return;
  }
  int workers = start_workers(threads) - 1;
  if (threads > workers + 1) threads = workers + 1;
  int64_t chunks = (int64_t)threads * CHUNKS_PER_THREAD;
  if (chunks > n) chunks = n;
  unsigned gen = atomic_load_explicit(&generation, memory_order_relaxed) + 1;
  job_body = body;
  job_ctx = ctx;
  job_n = n;
  atomic_store_explicit(&done, 0, memory_order_relaxed);
  atomic_store_explicit(&claim, pack(gen, 0, (unsigned)chunks), memory_order_release);
  pthread_mutex_lock(&wake_lock);
  atomic_store_explicit(&generation, gen, memory_order_release);
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&wake_lock);
  inside = 1;
  run_chunks(gen);
  inside = 0;
  for (int spins = 0; atomic_load_explicit(&done, memory_order_acquire) != chunks; ++spins) {
    if (spins < SPINS)
      relax();
    else
      sched_yield(); /* a worker lost its core in a chunk: give it one */
  }
  pthread_mutex_unlock(&pool_lock);
}

/* Workers created so far (tests: none at one thread). */
int aten_mlir_thread_pool_size(void) { return started; }

/* Calls of compiled functions from Python.
 *
 * `_mlir_ciface_<name>` takes one pointer per memref descriptor (plus one to its results): a
 * ctypes call converts each from a Python int, 40 ns apiece, which was 1.8 us of a 35 us call of a
 * small model with 41 weights. The caller (abi.py) instead passes the descriptors' buffer and their
 * byte offsets in it, once converted; here each pointer is formed and the function is called with
 * exactly its own parameter list (a call through a pointer of another arity would work on the
 * usual ABIs but is undefined in C). Returns 0, calling nothing, for an arity not listed. */
#define T1 void *
#define T2 T1, T1
#define T4 T2, T2
#define T8 T4, T4
#define T16 T8, T8
#define T32 T16, T16
#define V1(o) a[o]
#define V2(o) V1(o), V1(o + 1)
#define V4(o) V2(o), V2(o + 2)
#define V8(o) V4(o), V4(o + 4)
#define V16(o) V8(o), V8(o + 8)
#define V32(o) V16(o), V16(o + 16)
#define CALL(n, types, values) \
  case n:                      \
    ((void(*) types)fn) values; \
    return 1;
#define MAX_POINTERS 64

int64_t aten_mlir_max_call_pointers(void) { return MAX_POINTERS; }

int aten_mlir_call(void *fn, void *results, char *base, const int64_t *offsets, int64_t count) {
  void *a[MAX_POINTERS];
  int64_t n = 0;
  if (count < 0 || count + (results != 0) > MAX_POINTERS) return 0;
  if (results) a[n++] = results;
  for (int64_t i = 0; i < count; ++i) a[n++] = base + offsets[i];
  switch (n) {
    CALL(1, (T1), (V1(0)))
    CALL(2, (T2), (V2(0)))
    CALL(3, (T2, T1), (V2(0), V1(2)))
    CALL(4, (T4), (V4(0)))
    CALL(5, (T4, T1), (V4(0), V1(4)))
    CALL(6, (T4, T2), (V4(0), V2(4)))
    CALL(7, (T4, T2, T1), (V4(0), V2(4), V1(6)))
    CALL(8, (T8), (V8(0)))
    CALL(9, (T8, T1), (V8(0), V1(8)))
    CALL(10, (T8, T2), (V8(0), V2(8)))
    CALL(11, (T8, T2, T1), (V8(0), V2(8), V1(10)))
    CALL(12, (T8, T4), (V8(0), V4(8)))
    CALL(13, (T8, T4, T1), (V8(0), V4(8), V1(12)))
    CALL(14, (T8, T4, T2), (V8(0), V4(8), V2(12)))
    CALL(15, (T8, T4, T2, T1), (V8(0), V4(8), V2(12), V1(14)))
    CALL(16, (T16), (V16(0)))
    CALL(17, (T16, T1), (V16(0), V1(16)))
    CALL(18, (T16, T2), (V16(0), V2(16)))
    CALL(19, (T16, T2, T1), (V16(0), V2(16), V1(18)))
    CALL(20, (T16, T4), (V16(0), V4(16)))
    CALL(21, (T16, T4, T1), (V16(0), V4(16), V1(20)))
    CALL(22, (T16, T4, T2), (V16(0), V4(16), V2(20)))
    CALL(23, (T16, T4, T2, T1), (V16(0), V4(16), V2(20), V1(22)))
    CALL(24, (T16, T8), (V16(0), V8(16)))
    CALL(25, (T16, T8, T1), (V16(0), V8(16), V1(24)))
    CALL(26, (T16, T8, T2), (V16(0), V8(16), V2(24)))
    CALL(27, (T16, T8, T2, T1), (V16(0), V8(16), V2(24), V1(26)))
    CALL(28, (T16, T8, T4), (V16(0), V8(16), V4(24)))
    CALL(29, (T16, T8, T4, T1), (V16(0), V8(16), V4(24), V1(28)))
    CALL(30, (T16, T8, T4, T2), (V16(0), V8(16), V4(24), V2(28)))
    CALL(31, (T16, T8, T4, T2, T1), (V16(0), V8(16), V4(24), V2(28), V1(30)))
    CALL(32, (T32), (V32(0)))
    CALL(33, (T32, T1), (V32(0), V1(32)))
    CALL(34, (T32, T2), (V32(0), V2(32)))
    CALL(35, (T32, T2, T1), (V32(0), V2(32), V1(34)))
    CALL(36, (T32, T4), (V32(0), V4(32)))
    CALL(37, (T32, T4, T1), (V32(0), V4(32), V1(36)))
    CALL(38, (T32, T4, T2), (V32(0), V4(32), V2(36)))
    CALL(39, (T32, T4, T2, T1), (V32(0), V4(32), V2(36), V1(38)))
    CALL(40, (T32, T8), (V32(0), V8(32)))
    CALL(41, (T32, T8, T1), (V32(0), V8(32), V1(40)))
    CALL(42, (T32, T8, T2), (V32(0), V8(32), V2(40)))
    CALL(43, (T32, T8, T2, T1), (V32(0), V8(32), V2(40), V1(42)))
    CALL(44, (T32, T8, T4), (V32(0), V8(32), V4(40)))
    CALL(45, (T32, T8, T4, T1), (V32(0), V8(32), V4(40), V1(44)))
    CALL(46, (T32, T8, T4, T2), (V32(0), V8(32), V4(40), V2(44)))
    CALL(47, (T32, T8, T4, T2, T1), (V32(0), V8(32), V4(40), V2(44), V1(46)))
    CALL(48, (T32, T16), (V32(0), V16(32)))
    CALL(49, (T32, T16, T1), (V32(0), V16(32), V1(48)))
    CALL(50, (T32, T16, T2), (V32(0), V16(32), V2(48)))
    CALL(51, (T32, T16, T2, T1), (V32(0), V16(32), V2(48), V1(50)))
    CALL(52, (T32, T16, T4), (V32(0), V16(32), V4(48)))
    CALL(53, (T32, T16, T4, T1), (V32(0), V16(32), V4(48), V1(52)))
    CALL(54, (T32, T16, T4, T2), (V32(0), V16(32), V4(48), V2(52)))
    CALL(55, (T32, T16, T4, T2, T1), (V32(0), V16(32), V4(48), V2(52), V1(54)))
    CALL(56, (T32, T16, T8), (V32(0), V16(32), V8(48)))
    CALL(57, (T32, T16, T8, T1), (V32(0), V16(32), V8(48), V1(56)))
    CALL(58, (T32, T16, T8, T2), (V32(0), V16(32), V8(48), V2(56)))
    CALL(59, (T32, T16, T8, T2, T1), (V32(0), V16(32), V8(48), V2(56), V1(58)))
    CALL(60, (T32, T16, T8, T4), (V32(0), V16(32), V8(48), V4(56)))
    CALL(61, (T32, T16, T8, T4, T1), (V32(0), V16(32), V8(48), V4(56), V1(60)))
    CALL(62, (T32, T16, T8, T4, T2), (V32(0), V16(32), V8(48), V4(56), V2(60)))
    CALL(63, (T32, T16, T8, T4, T2, T1), (V32(0), V16(32), V8(48), V4(56), V2(60), V1(62)))
    CALL(64, (T32, T32), (V32(0), V32(32)))
    default:
      return 0;
  }
}
