/* apsp: all-pairs shortest paths by blocked Floyd-Warshall on OpenCL devices or CPU threads.
 *
 * The public library API. The `apsp` command-line tool uses nothing else. The files (formats,
 * reading graphs, writing distances) are declared in apsp_io.h, the distances from chosen
 * sources (Dijkstra, Johnson, Bellman-Ford) in apsp_sources.h, shortest paths (predecessors) in
 * apsp_paths.h, a graph solved into rows, a solver's fast host matrices and row-by-row solves in
 * apsp_rows.h, many small
 * graphs in one call (apsp_solver_solve_batch) in apsp_batch.h; this header includes all five.
 *
 * Typical use:
 *     apsp_error err;
 *     apsp_matrix *m;
 *     if (apsp_read_hw3("in.bin", &m, &err) != APSP_OK) { puts(err.message); ... }
 *     apsp_options opts;
 *     apsp_options_init(&opts);
 *     apsp_solve(m, &opts, NULL, &err);
 *     apsp_write_hw3("out.bin", m, &err);
 *     apsp_matrix_destroy(m);
 * A program that solves many graphs keeps one apsp_solver instead (apsp_solver_create): the
 * device is opened and the kernels compiled once.
 *
 * The library prints nothing and reads no environment variable: diagnostics go to the log
 * function in apsp_options, and every setting is an option.
 *
 * Pointers: every `apsp_error *error` and `apsp_report *report` may be NULL (nothing is
 * reported); `const apsp_options *` may be NULL (the defaults); the destroy and abort functions
 * accept NULL; apsp_solver_solve refuses a NULL solver or matrix with APSP_ERR_USAGE; every other
 * pointer argument must point at what the comment says. */
#ifndef APSP_H
#define APSP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the library's API: the only symbols the shared library exports. */
#if defined(_WIN32)
#define APSP_EXPORT
#elif defined(__GNUC__)
#define APSP_EXPORT __attribute__((visibility("default")))
#else
#define APSP_EXPORT
#endif

/* Distance of an unreachable pair in the hw3 format: 2^30 - 1. Two finite distances below it
 * sum to less than 2^31, so `min(c, a + b)` never overflows int32. */
#define APSP_INF 1073741823

/* The unreachable marker of int64 matrices: 2^62 - 1, for the same reason as APSP_INF. */
#define APSP_INF64 INT64_C(4611686018427387903)

/* Auto mode's bound for a graph too small to wait for OpenCL (apsp_options.vertices_hint), in
 * seconds of the pthread backend's estimated compute. Measured on an H100 host (16 cores): the
 * OpenCL start alone (loading the platforms, a context, the cached program) costs 0.36 s of the
 * command's wall time, and the pthread backend does all of V = 3000 in 0.19 s. */
#define APSP_SMALL_GRAPH_SECONDS 0.1

/* Every host matrix is padded to a multiple of this many rows and columns. */
#define APSP_MATRIX_ALIGN 128

/* Every status, once: X(NAME, TEXT, EXIT) gives the constant, apsp_status_name's text and the
 * exit status of the apsp and apsp-mpi commands (docs/usage.md, "Exit codes"). */
#define APSP_STATUSES(X)                                                                           \
    X(APSP_OK, "success", 0)                                                                       \
    /* an invalid option or argument */                                                            \
    X(APSP_ERR_USAGE, "usage error", 2)                                                            \
    /* the input cannot be read or is malformed */                                                 \
    X(APSP_ERR_INPUT, "input error", 3)                                                            \
    /* the output cannot be written */                                                             \
    X(APSP_ERR_OUTPUT, "output error", 4)                                                          \
    /* the problem exceeds host or device memory */                                                \
    X(APSP_ERR_TOO_LARGE, "too large", 5)                                                          \
    /* an allocation failed */                                                                     \
    X(APSP_ERR_NO_MEMORY, "out of memory", 5)                                                      \
    /* the requested device or backend does not exist */                                           \
    X(APSP_ERR_NO_DEVICE, "no such device", 6)                                                     \
    /* a device call failed (OpenCL error, out of device memory) */                                \
    X(APSP_ERR_DEVICE, "device error", 6)                                                          \
    /* the OpenCL kernels did not compile for the device */                                        \
    X(APSP_ERR_KERNEL_BUILD, "kernel build failed", 6)                                             \
    /* a bug: please report it */                                                                  \
    X(APSP_ERR_INTERNAL, "internal error", 1)                                                      \
    /* the graph has a cycle of negative weight: no shortest distances */                          \
    X(APSP_ERR_NEGATIVE_CYCLE, "negative cycle", 7)                                                \
    /* apsp_options.cancelled asked the solve to stop (the commands set no cancel function: a      \
     * signal ends them) */                                                                        \
    X(APSP_ERR_CANCELLED, "cancelled", 1)

typedef enum apsp_status {
#define APSP_STATUS_CONSTANT(name, text, exit_status) name,
    APSP_STATUSES(APSP_STATUS_CONSTANT)
#undef APSP_STATUS_CONSTANT
} apsp_status;

/* A short constant name of a status, e.g. "input error". Never NULL. */
APSP_EXPORT const char *apsp_status_name(apsp_status status);

/* Details of a failure, filled in by every function that takes one (the pointer may be NULL).
 * The message is one line without a trailing newline, e.g.
 * "in.bin: edge 17 at byte offset 212: source vertex 5000 is out of range [0, 5000)". */
typedef struct apsp_error {
    apsp_status status;
    char message[1024];
} apsp_error;

typedef enum apsp_backend_kind {
    APSP_BACKEND_AUTO = 0, /* a GPU if there is one, else the CPU threads */
    APSP_BACKEND_CPU,      /* the native pthread backend */
    APSP_BACKEND_OPENCL,   /* an OpenCL device; an error if none is usable */
} apsp_backend_kind;

/* Parses a name apsp_backend_name gives. Returns -1 for anything else. */
APSP_EXPORT int apsp_backend_parse(const char *text, apsp_backend_kind *kind);
APSP_EXPORT const char *apsp_backend_name(apsp_backend_kind kind);

/* Parses a positive byte count with an optional K, M or G suffix (powers of 1024), as in
 * "65536", "64K" or "512M". Returns -1 for anything else. Internal: exported for the apsp
 * command and its variables, not part of what 1.0 promises (docs/api.md). */
APSP_EXPORT int apsp_parse_bytes(const char *text, uint64_t *bytes);

/* APSP_ERR_TOO_LARGE unless `bytes` more of host memory can be had now: the least of
 * /proc/meminfo's MemAvailable and, for each cgroup above this process, its memory limit less
 * what it holds beside its page cache. The one-line message names `what`, both figures and the
 * limit. Below 64 MiB nothing is read. The library checks its own allocations so (the matrices,
 * the sources' rows); internal: exported for the apsp command's predecessor matrix, not part of
 * what 1.0 promises (docs/api.md). */
APSP_EXPORT apsp_status apsp_memory_check(uint64_t bytes, const char *what, apsp_error *error);

/* Called after each round of the solve; rounds_done runs up to rounds_total. */
typedef void (*apsp_progress_fn)(void *context, size_t rounds_done, size_t rounds_total);

/* Asked between rounds of a solve; nonzero stops it (APSP_ERR_CANCELLED) within a few rounds,
 * the devices drained and nothing left half-done but the matrix, which then holds no distances.
 * Called on the solving thread; it must be cheap. */
typedef int (*apsp_cancel_fn)(void *context);

/* Diagnostics the library does not print itself: a kernel build log (APSP_LOG_ERROR when the
 * build failed, APSP_LOG_DEBUG after a successful one), the per-step profile (APSP_LOG_INFO),
 * something that costs time but not the result (APSP_LOG_WARNING: a kernel cache not trusted,
 * so the program was compiled; one line). The message may span several lines and has no
 * trailing newline. (WARNING comes last to keep the values of the others.) */
typedef enum apsp_log_level {
    APSP_LOG_ERROR,
    APSP_LOG_INFO,
    APSP_LOG_DEBUG,
    APSP_LOG_WARNING
} apsp_log_level;
typedef void (*apsp_log_fn)(void *context, apsp_log_level level, const char *message);

/* The most apsp_options.tile and .threads are meant to be (0 in either: the default): apsp's and
 * apsp-mpi's --tile and --threads, and the Python Solver's tile and threads, take 1 to these. */
#define APSP_TILE_MAX 1024
#define APSP_THREADS_MAX 4096

typedef struct apsp_options {
    apsp_backend_kind backend;
    /* Devices, as apsp_list_devices numbers them: a comma-separated list of 0-based indices,
     * type words (gpu, cpu, accelerator, host: the first of the type), plurals (gpus, cpus,
     * accelerators: every one) or name substrings; several share the solve by rows. NULL or
     * "": a GPU if there is one, else the backend's first device. */
    const char *device;
    /* Several devices: their shares of the rows, "W,W,..." in the order of `device`; NULL:
     * in proportion to each device's estimated speed. */
    const char *device_shares;
    int tile;                  /* OpenCL round depth / tile edge; 0: the device's default */
    int threads;               /* host threads: the pthread backend's, and the solver's checks and
                                  copies of a large matrix; 0: one per core it may run on */
    uint64_t max_buffer_bytes; /* cap one device buffer below the driver's limit; 0: no cap */
    /* Cap what apsp allocates on an OpenCL device below its global memory; 0: no cap. A matrix
     * that does not fit (one device) is streamed through it from host memory, in any element
     * type (apsp_dtype says what that does to floating-point bits). */
    uint64_t device_memory;
    const char *kernel_params; /* "NAME=N,..." over the device's OpenCL kernel parameters
                                  (apsp_kernel_params lists them); NULL: the device's own */
    const char *cpu_isa;       /* the pthread backend's micro-kernel: "avx512", "avx2" or "portable"
                                  (a set the CPU lacks falls to the next one down); NULL: the best */
    /* Kernel development. */
    const char *kernel_dir;    /* build DIR/fw.cl instead of the embedded kernels; NULL: embedded */
    const char *build_options; /* more OpenCL build options, e.g. "-cl-nv-verbose"; NULL: none */
    const char *dump_program;  /* write the built program binary (PTX on NVIDIA) to this path */
    /* A directory where compiled OpenCL programs are kept between runs, by device, driver,
     * options and kernel source (made when missing); NULL: compile every time. */
    const char *kernel_cache;
    int profile; /* 1: log the device time of each step of the rounds */
    /* The vertex count of the graphs to come, when known (0: unknown). In auto mode with no
     * device named, a graph that the pthread backend solves in well under the time an OpenCL
     * device takes to start (APSP_SMALL_GRAPH_SECONDS by its estimate) runs there without any
     * OpenCL platform being loaded. */
    size_t vertices_hint;
    /* For chosen sources (apsp_solver_solve_sources), with vertices_hint: how many sources and
     * the graph's edge count (0: a whole solve, or unknown). The same rule then weighs the host's
     * estimate for the sources, S (E + V) log2 V steps of Dijkstra, instead of Floyd-Warshall's
     * V^3: a few sources of a small graph never load OpenCL. */
    size_t sources_hint, edges_hint;
    apsp_progress_fn progress;
    void *progress_context;
    apsp_cancel_fn cancelled; /* NULL: a solve runs to its end */
    void *cancel_context;
    apsp_log_fn log; /* NULL: diagnostics are dropped */
    void *log_context;
    /* 1: a float32 or float64 matrix always takes the floating-point kernels. 0 (the default):
     * one whose weights are all whole numbers, with every sum of two distances exact in its type
     * (2 (V - 1) max|w| <= 2^24 for float32, 2^53 for float64), is solved by the int32 kernels
     * (int64 past int32's rule) and converted back: the same bits, faster (apsp_report.kernels
     * says which ran and why). */
    int float_kernels;
    /* 1: apsp_solver_solve_sources with bellman-ford or johnson asked for runs it on the
     * solver's OpenCL device or is refused (APSP_ERR_USAGE, saying why the device cannot run
     * it), never on the host threads in its place. 0 (the default): the host threads run it,
     * and apsp_report.device_declined says why. */
    int sources_device_only;
    /* Host work beside the rounds (apsp_solver_solve_graph_idle, apsp_row_io.prepare): 0 (the
     * default) only where no device computes on the host's cores (a GPU), whose rounds leave them
     * idle; 1 beside any OpenCL device's rounds, a CPU device's too (which tests that path on
     * PoCL); -1 never. The pthread backend's rounds never have it. */
    int overlap;
} apsp_options;

APSP_EXPORT void apsp_options_init(apsp_options *options);

/* The element type of a distance matrix. The integer types mark an unreachable pair with
 * APSP_INF or APSP_INF64; the floating-point types with +inf. Floating-point sums are rounded
 * once per relaxation in IEEE arithmetic (never fused or reassociated), so one tile size gives
 * the same bits on every backend; another tile size, a solve streamed from host memory
 * (apsp_options.device_memory) or SciPy may associate a path's sum differently and differ in the
 * last bits. Integer results are exact everywhere. */
typedef enum apsp_dtype {
    APSP_INT32 = 0, /* the hw3 format's type; the default */
    APSP_INT64,
    APSP_FLOAT32,
    APSP_FLOAT64,
} apsp_dtype;

/* Parses a name apsp_dtype_name gives. Returns -1 for anything else. */
APSP_EXPORT int apsp_dtype_parse(const char *text, apsp_dtype *dtype);
APSP_EXPORT const char *apsp_dtype_name(apsp_dtype dtype);
APSP_EXPORT size_t apsp_dtype_size(apsp_dtype dtype); /* bytes per element; 0 for no type */

/* A dense distance matrix of n vertices, padded to `padded` rows and columns (a multiple of
 * APSP_MATRIX_ALIGN) with row pitch `stride` elements (>= padded). Padding cells hold APSP_INF
 * off the diagonal and 0 on it, so they never change a real distance. */
typedef struct apsp_matrix {
    size_t n;
    size_t padded;
    size_t stride;
    apsp_dtype dtype; /* APSP_INT32 for apsp_matrix_create's matrices */
    union {           /* the cells, by the element type */
        void *cells;
        int32_t *data; /* APSP_INT32 */
        int64_t *data_i64;
        float *data_f32;
        double *data_f64;
    };
    /* Private: what frees the cells when they are not the heap's (apsp_solver_matrix_create's
     * pinned memory). NULL for apsp_matrix_create's matrices; a matrix a program lays out itself
     * (and never passes to apsp_matrix_destroy) leaves it NULL. */
    struct apsp_matrix_owner *owner;
} apsp_matrix;

/* Bytes an int32 matrix of n vertices needs, or 0 if that overflows size_t. */
APSP_EXPORT uint64_t apsp_matrix_bytes(uint64_t n);
/* The same for any element type. */
APSP_EXPORT uint64_t apsp_matrix_bytes_typed(uint64_t n, apsp_dtype dtype);

/* Creates the matrix of n vertices with no edges: 0 on the diagonal, APSP_INF elsewhere.
 * Refuses (APSP_ERR_TOO_LARGE) before allocating when the matrix exceeds physical memory. */
APSP_EXPORT apsp_status apsp_matrix_create(size_t n, apsp_matrix **out, apsp_error *error);
/* The same with cells of any type: 0 on the diagonal, the type's unreachable marker elsewhere. */
APSP_EXPORT apsp_status apsp_matrix_create_typed(size_t n, apsp_dtype dtype, apsp_matrix **out,
                                                 apsp_error *error);
APSP_EXPORT void apsp_matrix_destroy(apsp_matrix *matrix); /* accepts NULL */

/* Row i of an int32 matrix. */
static inline int32_t *apsp_matrix_row(const apsp_matrix *m, size_t i) {
    return m->data + i * m->stride;
}
/* Row i of a matrix of any type, as its first byte. */
static inline void *apsp_matrix_row_cells(const apsp_matrix *m, size_t i) {
    return (char *)m->cells + i * m->stride * apsp_dtype_size(m->dtype);
}

/* A graph as an edge list, struct-of-arrays: edge e goes from source[e] to target[e] with weight
 * weight[e] (integer weights) or real_weight[e] (real ones): exactly one of the two arrays is in
 * use, the other NULL. Vertices are 0-based, below `vertices`. Integer weights are int64 so that a
 * wide weight survives reading; the conversion (apsp_graph_to_matrix_typed) applies the rule of
 * the distances' type. A reader makes the weights real when a value is not a whole number of
 * int64 ("1.5"); whole values ("2", "2.0") stay integers. Every reader produces one; a program
 * may also build one with apsp_graph_create and apsp_graph_append / apsp_graph_append_real.
 * Repeated edges and self-loops are kept as they are: the conversion decides what they mean. */
typedef struct apsp_graph {
    size_t vertices;
    size_t edges;
    size_t capacity; /* edges the arrays have room for */
    int32_t *source;
    int32_t *target;
    int64_t *weight;     /* integer weights; NULL when they are real */
    double *real_weight; /* real weights; NULL when they are integers */
} apsp_graph;

/* An empty graph of `vertices` vertices (at most INT32_MAX) with room for `capacity` edges (0 is
 * fine: appending grows it). */
APSP_EXPORT apsp_status apsp_graph_create(size_t vertices, size_t capacity, apsp_graph **out,
                                          apsp_error *error);
APSP_EXPORT void apsp_graph_destroy(apsp_graph *graph); /* accepts NULL */
/* Room for `edges` edges in all (never shrinks). */
APSP_EXPORT apsp_status apsp_graph_reserve(apsp_graph *graph, size_t edges, apsp_error *error);
/* Adds one edge, growing the arrays as needed. The endpoints are checked when the graph is used
 * (apsp_graph_to_matrix), not here. */
APSP_EXPORT apsp_status apsp_graph_append(apsp_graph *graph, int32_t source, int32_t target,
                                          int64_t weight, apsp_error *error);
/* The same with a real weight: the graph's weights become real (those already there converted
 * to double) if they were not. A weight that is not finite is refused by the conversion. */
APSP_EXPORT apsp_status apsp_graph_append_real(apsp_graph *graph, int32_t source, int32_t target,
                                               double weight, apsp_error *error);

/* The vertices' names where the input named them (CSV and TSV edge lists, whose vertices are
 * names: "Gare de Lyon", "4417391023"): V strings in vertex order, which is the order the names
 * were first seen in, each as written (quotes removed); NULL for numbered vertices. They live as
 * long as the graph. */
APSP_EXPORT const char *const *apsp_graph_labels(const apsp_graph *graph);

/* apsp_graph_transform's flags, as SciPy's csgraph `directed=False` and `unweighted=True`. */
enum {
    APSP_GRAPH_UNDIRECTED = 1, /* each edge also the other way (self-loops once) */
    APSP_GRAPH_UNWEIGHTED = 2, /* every weight 1 (integer weights again, also after real ones) */
};
APSP_EXPORT apsp_status apsp_graph_transform(apsp_graph *graph, unsigned flags, apsp_error *error);

/* The padded int32 distance matrix of the graph, before solving: 0 on the diagonal (self-loops
 * are ignored), the least weight of the edges i -> j (repeated edges keep the least), APSP_INF
 * where there is none. Refuses (APSP_ERR_USAGE, naming the edge) endpoints outside [0, V) and
 * weights outside the rule: (V - 1) * |w| < APSP_INF (negative weights allowed), so that no
 * distance can reach the unreachable marker or its negative; and a V whose matrix does not fit
 * memory (APSP_ERR_TOO_LARGE). apsp_graph_to_matrix_typed with APSP_INT32. */
APSP_EXPORT apsp_status apsp_graph_to_matrix(const apsp_graph *graph, apsp_matrix **out,
                                             apsp_error *error);
/* The same into a matrix of any element type, each with its rule for the weights (a weight
 * outside it refused naming the edge): int32 (V - 1) * |w| < APSP_INF; int64 (V - 1) * |w| <
 * APSP_INF64; both whole numbers only (a real graph's weights must have whole values); float32
 * and float64 (V - 1) * |w| below the type's largest number (FLT_MAX, DBL_MAX, with room for
 * rounding), so that no path's length overflows to inf, and a nonzero |w| not below its smallest
 * normal number (FLT_MIN, DBL_MIN), so that none is rounded to 0; rounded to the type. */
APSP_EXPORT apsp_status apsp_graph_to_matrix_typed(const apsp_graph *graph, apsp_dtype dtype,
                                                   apsp_matrix **out, apsp_error *error);
/* The same, a large graph checked and its matrix filled on `threads` host threads (0, as
 * apsp_graph_to_matrix_typed: one per core this process may run on; negative: the same). */
APSP_EXPORT apsp_status apsp_graph_to_matrix_threads(const apsp_graph *graph, apsp_dtype dtype,
                                                     int threads, apsp_matrix **out,
                                                     apsp_error *error);
/* The narrowest element type the graph's weights fit, as the apsp command picks it by default:
 * int32 for integer weights within its rule (above), else int64 within its rule, else (real
 * weights, or integers too wide even for int64) float64. */
APSP_EXPORT apsp_dtype apsp_graph_dtype(const apsp_graph *graph);

/* What a solve did, for -v. Times are seconds. */
typedef struct apsp_report {
    char backend[16];
    char device[256];
    size_t padded;        /* the size the kernels ran over: relaxations = padded^3 */
    int tile;             /* round depth used */
    int threads;          /* CPU threads used (0 for OpenCL) */
    double setup_seconds; /* device set-up and kernel build */
    double upload_seconds;
    double compute_seconds;
    double download_seconds;
    int program_builds; /* OpenCL programs compiled during this call (0 when reused) */
    int devices;        /* devices that shared the solve; `device` names each and its rows */
    char choice[192];   /* why this backend and device: "auto: ...", "--backend=cpu", ... */
    int opencl_listed;  /* 1: the OpenCL platforms were loaded and asked for their devices */
    /* Streaming from host memory (the matrix did not fit the device); all 0 when it did. */
    int streamed;
    size_t stream_pivots;       /* K: pivots per super-round */
    size_t stream_blocks;       /* blocks streamed through the device per super-round */
    size_t stream_rows;         /* rows per block */
    uint64_t stream_bytes_up;   /* host to device, every transfer of the solve */
    uint64_t stream_bytes_down; /* device to host */
    /* apsp_solver_solve_paths: the predecessor derivation's seconds (on a device: its kernels and
     * the download of the predecessors), and where it ran (1: on the solve's devices, 0: on the
     * host threads). */
    double paths_seconds;
    int paths_on_device;
    /* After the download: the devices' queues drained and what the solve made for itself let
     * go (events, pinned staging; the bands stay for the next solve of the geometry). */
    double release_seconds;
    /* The kernels that ran (the matrix's type, or the integer kernels for a floating-point
     * matrix of whole weights: apsp_options.float_kernels) and why, e.g. "float64 graph with
     * whole weights: int32 kernels (...)" or "float path: weight 0.5 at (3, 7) is not whole";
     * and the seconds spent choosing and converting to them and back. */
    apsp_dtype kernels;
    char kernels_why[192];
    double whole_seconds;
    /* apsp_solver_solve_rows: the seconds reading the caller's rows into the padded matrix (for
     * whole weights, with their check and conversion: whole_seconds then counts only a second
     * pass, int64's) and writing the distances out (with the conversion back); 0 otherwise. */
    double rows_in_seconds;
    double rows_out_seconds;
    /* apsp_solver_solve_sources: the method that ran and why (auto's cost model and its
     * numbers); "" for the other solves. */
    char method[320];
    /* apsp_solver_solve_sources: why the solver's OpenCL device could not run the sources'
     * device method (bellman-ford, johnson), so that the host threads ran the method instead,
     * e.g. "bellman-ford on DEVICE: its distances are int32 and these rows are wider", or that
     * dijkstra asked for runs on the host only, or that the last sources of a device's run
     * went to the host threads ("... the last N of S sources ran on the host threads (...)");
     * "" where it ran there, or the method chosen was Floyd-Warshall, or the solver has no such
     * device. */
    char device_declined[192];
    /* Seconds of the caller's host work (apsp_idle_work, apsp_row_io.prepare) that ran while the
     * devices computed the rounds: hidden behind them; 0 where none ran. */
    double overlapped_seconds;
} apsp_report;

/* Replaces every distance by the shortest-path distance, in place. The matrix is checked before
 * it is changed (APSP_ERR_USAGE naming the first problem): the geometry apsp_matrix_create
 * gives, distances -APSP_INF < d <= APSP_INF with 0 on the diagonal and APSP_INF in the padding,
 * and (V - 1) * (largest |weight|) < APSP_INF, the readers' rule (int64: the same with
 * APSP_INF64; floating point: no NaN and no -inf, +inf in the padding, and (V - 1) * (largest
 * |weight|) below the type's largest number, apsp_graph_to_matrix_typed's). A graph with a negative
 * cycle is refused after the solve (APSP_ERR_NEGATIVE_CYCLE, naming a vertex i with
 * d(i,i) < 0); the matrix then holds no distances. The pthread backend solves every apsp_dtype;
 * a backend without kernels for the matrix's type refuses it (APSP_ERR_USAGE).
 * Opens the device, solves and closes it: apsp_solver_create, apsp_solver_solve and
 * apsp_solver_destroy in one call. */
APSP_EXPORT apsp_status apsp_solve(apsp_matrix *matrix, const apsp_options *options,
                                   apsp_report *report, apsp_error *error);

/* A solver: a device opened, and its kernels compiled, once for any number of solves of any
 * size. The options are copied (the strings they point to must outlive the solver). One solver
 * serves one thread at a time; solvers on different threads are independent. After a successful
 * solve (or apsp_solver_check) an OpenCL solver keeps the device buffers of that size and element
 * type for the next solve of the same; a solve of another size or type, a failed one, a streamed
 * one and apsp_solver_destroy release them. A float matrix solved by the integer kernels
 * (apsp_options.float_kernels) leaves its integer matrix with the solver likewise, until a
 * whole-number float solve of another size or integer type, or apsp_solver_destroy. */
typedef struct apsp_solver apsp_solver;
APSP_EXPORT apsp_status apsp_solver_create(const apsp_options *options, apsp_solver **out,
                                           apsp_error *error);
APSP_EXPORT apsp_status apsp_solver_solve(apsp_solver *solver, apsp_matrix *matrix,
                                          apsp_report *report, apsp_error *error);
APSP_EXPORT void apsp_solver_destroy(apsp_solver *solver); /* accepts NULL */
/* Whether a solve of `vertices` vertices fits the solver's devices (round depth, buffer caps,
 * device memory), before any matrix exists: what apsp_solver_solve would refuse for its size. */
APSP_EXPORT apsp_status apsp_solver_check(apsp_solver *solver, size_t vertices, apsp_error *error);
/* The same for distances of `dtype` (apsp_solver_check checks int32's): the wider types take
 * twice the device memory, and every type but int32 is solved from a matrix in host memory. */
APSP_EXPORT apsp_status apsp_solver_check_typed(apsp_solver *solver, size_t vertices,
                                                apsp_dtype dtype, apsp_error *error);
/* One tunable parameter of the OpenCL kernels, as --kernel-params takes it. */
typedef struct apsp_kernel_param {
    const char *name; /* the -D define in cl/fw.cl, e.g. "K_CHUNK" */
    int fallback;     /* the value on a device the tuning table does not know */
    int least, most;  /* the accepted range */
    const char *meaning;
} apsp_kernel_param;

/* The kernel parameters, in a static array of *count entries (empty without OpenCL). */
APSP_EXPORT const apsp_kernel_param *apsp_kernel_params(size_t *count);

/* One entry of the device list. The pthread backend is an entry of its own. */
typedef struct apsp_device_info {
    int index; /* the 0-based selection index, as accepted by options.device */
    apsp_backend_kind backend;
    char platform[128];
    char name[256];
    char type[16]; /* "gpu", "cpu", "accelerator", "host" or "other" */
    unsigned compute_units;
    uint64_t global_memory;
    uint64_t max_allocation;
    uint64_t local_memory;
    size_t max_work_group;
    char driver[128];
    int backend_index; /* the position among its own backend's entries (for that backend) */
} apsp_device_info;

/* Lists every OpenCL device (no platform at all is an empty list, not an error), then the CPU
 * backend. Free the array with free(). */
APSP_EXPORT apsp_status apsp_list_devices(apsp_device_info **devices, size_t *count,
                                          apsp_error *error);

APSP_EXPORT const char *apsp_version(void);

#ifdef __cplusplus
}
#endif

/* Files: the formats, reading graphs, writing distances (apsp_io.h); distances from chosen
 * sources (apsp_sources.h); shortest paths (apsp_paths.h); fast host matrices and row-by-row
 * solves (apsp_rows.h); many small graphs in one call (apsp_batch.h). Included here so that a
 * program written against the one header before they were split off keeps compiling. */
#include "apsp_rows.h" /* first: the others take its apsp_rows_fn, apsp_cells_fn, apsp_idle_work */
#include "apsp_batch.h"
#include "apsp_io.h"
#include "apsp_paths.h"
#include "apsp_sources.h"

#endif
