/* The options of apsp and apsp-mpi (option_table.h): one entry each, in the order --help,
 * the man pages and docs/usage.md list them. Text in `backquotes` is code: bold in a man page,
 * code in Markdown, plain in --help. */
#include "option_table.h"

#define INPUT_FORMATS "hw3|dimacs|mtx|edgelist|npy|csv|tsv"
#define OUTPUT_FORMATS "hw3|npy|text|csv|tsv"

const option_spec option_table[] = {
    {"input-format", OPT_INPUT_FORMAT, FOR_APSP, VALUE_CHOICE, "FORMAT", INPUT_FORMATS,
     .brief_listed = 1, .brief = "the input's format, whatever its name",
     .help = "the input's format whatever its name (standard input is hw3 without it, or a `.npy` "
             "matrix when it starts as one); default: by the extension (docs/usage.md, \"Your own "
             "graph\"); gzip, zstd and bzip2 inputs are found by their first bytes"},
    {"output-format", OPT_OUTPUT_FORMAT, FOR_APSP, VALUE_CHOICE, "FORMAT", OUTPUT_FORMATS,
     .brief_listed = 1, .brief = "the output's format, whatever its name",
     .help = "the output's format whatever its name; default: by the extension, hw3 for standard "
             "output. A binary format (hw3, npy) to a terminal is refused (exit 2): give "
             "`--output-format=text`, or redirect standard output"},
    {"columns", OPT_COLUMNS, FOR_APSP, VALUE_TEXT, "FROM,TO[,WEIGHT]",
     .brief = "csv/tsv: the header's columns",
     .help = "csv and tsv inputs: the header's columns of the source, the target and the weight "
             "(no weight: every edge 1); default: the first column named "
             "`source`/`from`/`u`/`src`, `target`/`to`/`v`/`dst`, "
             "`weight`/`length`/`distance`/`cost`, else columns 1-3 (docs/usage.md, \"Tables\")"},
    {"limit", OPT_LIMIT, FOR_APSP, VALUE_TEXT, "D",
     .expected = "a distance, a number such as 30 or 1.5",
     .brief = "only pairs within D (csv/tsv leave out the rest)",
     .help = "only pairs at distance at most `D`: the others left out of a csv/tsv output, `inf` "
             "(no path) in a matrix output; with `--sources` too"},
    {"vertices", OPT_VERTICES, FOR_APSP, VALUE_INT, "N", .least = 1, .most = 2147483647,
     .brief = "edge lists: N vertices, ids 0 to N-1",
     .help = "edge lists: `N` vertices, ids `0` to `N-1`; default: the largest id + 1"},
    {"undirected", OPT_UNDIRECTED, FOR_APSP, VALUE_NONE, .brief = "each edge also the other way",
     .help = "each edge also the other way, as SciPy's `directed=False`"},
    {"unweighted", OPT_UNWEIGHTED, FOR_APSP, VALUE_NONE, .brief = "every edge of length 1",
     .help = "every edge of length 1 (the weights are not checked), as SciPy's `unweighted=True`"},
    {"dtype", OPT_DTYPE, FOR_APSP, VALUE_CHOICE, "TYPE", .words = WORDS_DTYPE, .brief_listed = 1,
     .brief = "the distances' type; default: the weights'",
     .help = "the distances' type, whatever the weights; a weight the type cannot hold is refused "
             "at its line (`int32` keeps the hw3 rule, integer types refuse fractions). Default: "
             "int32 when `(V-1)*|w| < 1073741823` for every weight `w`, else int64; float64 when "
             "a weight is fractional (docs/usage.md, \"Your own graph\")"},
    {"float-kernels", OPT_FLOAT_KERNELS, FOR_APSP, VALUE_NONE, .solver = "float_kernels",
     .brief = "float distances always by the float kernels",
     .help = "`float32`/`float64` distances by the float kernels even when every weight is whole "
             "(default: such graphs take the integer kernels, the same bits faster; `-v` says "
             "which ran)"},
    {"predecessors", OPT_PREDECESSORS, FOR_APSP, VALUE_FILE, "FILE", .brief_listed = 1,
     .brief = "also the predecessor matrix (-9999: none)",
     .help = "also the `V x V` predecessor matrix, `-9999` for none (SciPy's convention): `.npy` "
             "NumPy int32, else raw little-endian int32 (a `.txt` name and the refused output "
             "extensions are refused); `-` is standard output (not with OUTPUT `-` or `--path`); "
             "with `--sources`, the sources' `S x V` rows"},
    {"path", OPT_PATH, FOR_APSP, VALUE_TEXT, "U,V", .expected = "two vertex numbers U,V",
     .brief_listed = 1, .brief = "print one shortest path U -> V (0-based)",
     .help = "print the length and the vertices of one shortest path from `U` to `V` (0-based) on "
             "standard output, e.g. `length 17: 3 -> 8 -> 1`, or `no path from U to V`; refused "
             "(exit 2) when `U` or `V` is not below `V`, with OUTPUT `-` or `--predecessors=-`, "
             "and with `--sources` when `U` is not a source"},
    {"sources", OPT_SOURCES, FOR_APSP, VALUE_TEXT, "SPEC", .brief_listed = 1,
     .brief = "only these sources' rows: 0-99,500 or @FILE",
     .help = "only these sources' rows, `S x V` in OUTPUT's format, in list order: ids and ranges "
             "`0-99,500`, or `@FILE` (one a line); an id not below V, or a malformed list, is "
             "refused (exit 2). No `V x V` matrix is made (docs/usage.md, \"Chosen sources\")"},
    {"method", OPT_METHOD, FOR_APSP, VALUE_CHOICE, "METHOD", .words = WORDS_METHOD,
     .brief_listed = 1, .brief = "the algorithm for --sources; default: auto",
     .help = "the algorithm for the sources (every source without `--sources`), SciPy's "
             "`shortest_path` methods; `auto` (default) by a cost model (`-v` says which ran and "
             "why). The rows' type follows the weights as without `--sources` (`--dtype` to "
             "choose); `--predecessors` gives the `S x V` rows and `--path=U,V` works when `U` is "
             "a source. `bellman-ford` and `johnson` run on the solver's OpenCL device where it "
             "can run them; named with `-d`, they run there or are refused (exit 2) "
             "(docs/usage.md, \"On a device\")"},
    {"backend", OPT_BACKEND, FOR_BOTH, VALUE_CHOICE, "BACKEND", .words = WORDS_BACKEND,
     .solver = "backend", .brief_listed = 1, .brief = "auto (a GPU, else CPU threads), cpu, opencl",
     .help = "`auto` (default): a GPU if there is one, else the pthread backend; a graph the "
             "pthread backend solves in under 0.1 s by its estimate goes there without loading "
             "any OpenCL platform; `-v` says why a backend was chosen. `opencl`: an OpenCL device "
             "or an error, never a fallback. `cpu`: the pthread backend",
     .mpi_brief = "the ranks' engine: opencl, cpu or auto",
     .mpi_help = "the ranks' engine: `opencl` (one device per rank), `cpu` (the pthread backend) "
                 "or `auto` (default: opencl where the node has a GPU, else cpu)"},
    {"device", 'd', FOR_BOTH, VALUE_TEXT, "SPEC[,SPEC...]", .solver = "device", .brief_listed = 1,
     .brief = "an index, gpu, cpu, gpus, or a name",
     .help = "a 0-based index from `--list-devices`, a type word (`gpu`, `cpu`, `accelerator`, "
             "`host`) meaning the first device of that type, a plural (`gpus`, `cpus`, "
             "`accelerators`) meaning every one, or a case-insensitive substring of the device or "
             "platform name. Several devices (`-d 1,2`, `-d gpus`) share the solve by rows. "
             "Default: `$APSP_DEVICE`, else one GPU. An OpenCL CPU device (PoCL) is used only "
             "when asked for",
     .mpi_brief = "opencl: the devices the node's ranks take",
     .mpi_help = "with `--backend=opencl`: the devices the node's ranks take in turn, as apsp's "
                 "`-d` (default: the node's GPUs, else its OpenCL CPU devices)"},
    {"device-shares", OPT_DEVICE_SHARES, FOR_APSP, VALUE_TEXT, "W,W,...",
     .brief = "several devices: their shares of the rows",
     .help = "with several devices, their shares of the rows in `-d` order; default: in "
             "proportion to each device's estimated speed"},
    {"list-devices", OPT_LIST, FOR_APSP, VALUE_NONE, .brief = "list every device and exit",
     .help = "every OpenCL platform and device with its index, type, compute units, memory and "
             "driver, and the pthread backend as an entry of its own; a platform that did not "
             "start is named last with the reason (`-d N` is refused then: name the device)"},
    {"tile", OPT_TILE, FOR_BOTH, VALUE_INT, "N", .least = 1, .most = APSP_TILE_MAX,
     .solver = "tile", .brief = "OpenCL round depth; default: per device",
     .help = "OpenCL round depth (16, 32, 64, ...), checked against the device's limits before "
             "launch; default: per device",
     .mpi_brief = "the round depth (only 128)", .mpi_help = "the round depth: only 128"},
    {"threads", OPT_THREADS, FOR_BOTH, VALUE_INT, "N", .least = 1, .most = APSP_THREADS_MAX,
     .solver = "threads", .brief_listed = 1, .brief = "host threads; default: one per core",
     .help = "host threads of every parallel part: the pthread backend, reading the input, "
             "writing the output, the host's copies of the matrix; default: one per core apsp may "
             "run on (`taskset`, a container's cpuset)",
     .mpi_brief = "threads per rank; default: cores / ranks",
     .mpi_help = "threads per rank; default: the node's cores shared among its ranks"},
    {"max-buffer-bytes", OPT_MAX_BUFFER, FOR_APSP, VALUE_SIZE, "N",
     .expected = "a positive size like 512M", .brief = "cap on one OpenCL buffer (K, M, G)",
     .help = "cap on one OpenCL buffer (`512M`, `2G`); larger matrices are split into row bands. "
             "Default: `$APSP_MAX_BUFFER_BYTES`, else the driver's"},
    {"device-memory", OPT_DEVICE_MEMORY, FOR_APSP, VALUE_SIZE, "N", .solver = "device_memory",
     .expected = "a positive size like 4G", .brief = "cap on an OpenCL device's memory (K, M, G)",
     .help = "cap on what apsp uses of an OpenCL device's memory (`256M`, `4G`); a matrix that "
             "does not fit one device streams through it from host memory (`-v` says so). "
             "Default: `$APSP_DEVICE_MEMORY`, else the device's global memory"},
    {"kernel-params", OPT_KERNEL_PARAMS, FOR_APSP, VALUE_TEXT, "NAME=N,...",
     .brief = "OpenCL kernel parameters; =help lists them",
     .help = "OpenCL kernel parameters over the ones the per-device table picks; default: "
             "`$APSP_KERNEL_PARAMS`. `--kernel-params=help` prints the parameters' table"},
    {"kernel-cache", OPT_KERNEL_CACHE, FOR_APSP, VALUE_DIR, "DIR", "off",
     .brief = "where compiled OpenCL kernels are kept",
     .help = "where compiled OpenCL programs are kept between runs (a stale or corrupt file is "
             "rebuilt); default: `$APSP_KERNEL_CACHE`, else `$XDG_CACHE_HOME/apsp` or "
             "`~/.cache/apsp`; `off` compiles every run. Used only where no one but you (or root) "
             "can write (`-v` says why not; docs/security.md)"},
    {"quiet", 'q', FOR_BOTH, VALUE_NONE, .brief_listed = 1, .brief = "no progress display",
     .help = "no progress line (it is shown only when stderr is a terminal anyway)",
     .mpi_brief = "accepted for apsp's sake (no progress)",
     .mpi_help = "accepted for apsp's sake: apsp-mpi shows no progress"},
    {"progress", OPT_PROGRESS, FOR_APSP, VALUE_NONE, .brief = "progress lines, also off a terminal",
     .help = "progress as a line every few seconds on stderr, also when it is not a terminal "
             "(batch logs); its time left is estimated once a round (or a batch of sources) has "
             "been measured"},
    {"stats-json", OPT_STATS_JSON, FOR_BOTH, VALUE_NONE,
     .brief = "the -v figures as one JSON line on stderr",
     .help =
         "the `-v` figures as one JSON object on one line of stderr: backend, devices, sizes, "
         "round depth, the kernels that ran and why, the time of each step, `overlapped_s` (output "
         "preparation beside the rounds), relaxations per second, streaming, and with "
         "`--sources` the method that ran and why",
     .mpi_help = "the `-v` figures as one JSON line on stderr (rank 0)"},
    {"verbose", 'v', FOR_BOTH, VALUE_NONE, .brief_listed = 1,
     .brief = "backend, device, sizes and timings on stderr",
     .help = "backend, device, padded size, the distances' type and why, and the time of each "
             "step (read, setup, upload, compute with relaxations per second and the output "
             "preparation that ran beside it, download, write) on stderr",
     .mpi_help = "grid, each rank's engine, timings and the communication volume on stderr "
                 "(rank 0)"},
    {"grid", OPT_GRID, FOR_MPI, VALUE_TEXT, "PRxPC", .expected = "PRxPC, e.g. 2x3",
     .brief = "the process grid, PR * PC = P",
     .help = "the process grid, `PR * PC = P`; default: the most nearly square"},
    {"no-look-ahead", OPT_NO_LOOK_AHEAD, FOR_MPI, VALUE_NONE,
     .brief = "plain rounds, no look-ahead",
     .help = "plain rounds: the next pivot waits for this round's relaxation"},
    {"help", 'h', FOR_BOTH, VALUE_OPTIONAL, "all", "all", .brief_listed = 1,
     .brief = "this text; --help=all: every option",
     .help = "the common options; `--help=all`: every option, the formats and the exit codes"},
    {"version", OPT_VERSION, FOR_BOTH, VALUE_NONE, .brief = "the version", .help = "the version"},
};

const size_t option_count = sizeof option_table / sizeof option_table[0];
