/* What apsp and apsp-mpi say about themselves beside their options (option_help.h): the usage
 * lines, the short --help's summary, and the sections of --help=all and of the man pages. */
#include "option_help.h"
#include "option_table.h"

static const help_section apsp_sections[] = {
    {"formats",
     "Input, by the extension or --input-format: `.csv` `.tsv` a table of named vertices "
     "(--columns); `.txt` `.edges` `.el` an edge list `u v [w]` per line, 0-based, V = largest "
     "id + 1; `.gr` DIMACS shortest paths; `.mtx` Matrix Market coordinate; `.npy` (or any file "
     "that starts as one) a square NumPy matrix, 0, inf and nan no edge, as SciPy's dense "
     "graphs; anything else hw3 (little-endian int32 V, E, then E triples src dst weight). Any "
     "input may be gzip, zstd or bzip2.\n"
     "Output, by the extension or --output-format: `.npy` NumPy V x V of the distances' type; "
     "`.txt` text, V lines of V numbers, `inf` for no path; `.csv` `.tsv` the long table "
     "source,target,distance, a line a pair; anything else hw3 (V*V int32, row-major, "
     "1073741823 for no path), but `.json` `.mat` `.h5` `.npz` `.mtx` ... are refused without "
     "--output-format. A binary output (hw3, npy) to a terminal is refused: give "
     "--output-format=text."},
    {"distances",
     "The distances' type follows the weights: int32 when (V-1)*|w| < 1073741823 for every "
     "weight w (hw3's rule), else int64 when (V-1)*|w| < 2^62-1; float64 when a weight is "
     "fractional (Matrix Market real, edge lists: 1.5, 2e-3); --dtype chooses. hw3 output is "
     "int32: an int64 result is written when every distance fits, else refused (before the solve "
     "where the weights make that certain); a floating-point one is refused before the solve."},
    {"environment",
     "`APSP_DEVICE`, `APSP_MAX_BUFFER_BYTES`, `APSP_DEVICE_MEMORY`, `APSP_KERNEL_PARAMS`, "
     "`APSP_KERNEL_CACHE`: as the options of those names, which win. Kernel work: "
     "`APSP_KERNEL_DIR`, `APSP_BUILD_OPTIONS`, `APSP_SHOW_BUILD=1`, `APSP_PROFILE=1`, "
     "`APSP_DUMP_PROGRAM`, `APSP_CPU_ISA` (docs/usage.md, \"Environment variables\")."},
    {"exit codes",
     "0 success, 1 internal error, 2 usage error, 3 input error (unreadable or malformed), 4 "
     "output error, 5 too large for memory, 6 device error (no such device, OpenCL failure, "
     "kernel build failure), 7 negative cycle (nothing written)."},
    {NULL, NULL},
};

static const help_section mpi_sections[] = {
    {"running",
     "Under mpirun: `mpirun -np 2 apsp-mpi IN OUT`. More ranks than cores need "
     "`--oversubscribe`; as root, Open MPI wants `--allow-run-as-root` (or "
     "`OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`); ranks of several threads "
     "want `--bind-to none`. OUTPUT must be a file (`-` is refused)."},
    {"exit codes",
     "apsp's: 0 success, 1 internal error, 2 usage error, 3 input error, 4 output error, 5 too "
     "large for memory, 6 device error."},
    {NULL, NULL},
};

static const command_text apsp_text = {
    .synopsis = "usage: apsp [OPTIONS] INPUT OUTPUT\n       apsp --list-devices",
    .summary = "All-pairs shortest paths of the directed graph in INPUT, written to OUTPUT "
               "('-': standard input or output) only when the run succeeds. Formats follow the "
               "names: .csv .tsv tables, .txt .edges .el edge lists, .gr DIMACS, .mtx Matrix "
               "Market, .npy NumPy; OUTPUT .npy, .txt, .csv or .tsv; anything else is hw3.",
    .sections = apsp_sections,
    .whatis = "all-pairs shortest paths on a GPU or CPU threads",
};

static const command_text mpi_text = {
    .synopsis = "usage: mpirun -np P apsp-mpi [OPTIONS] INPUT OUTPUT",
    .summary = "All-pairs shortest paths of the hw3 graph in INPUT, written to OUTPUT as V*V "
               "int32 distances (the bytes apsp writes), by P MPI ranks over a Pr x Pc grid of "
               "128 x 128 blocks. Each rank runs on one OpenCL device or the pthread backend on "
               "its share of its node's cores.",
    .sections = mpi_sections,
    .whatis = "all-pairs shortest paths over a grid of MPI ranks",
};

const command_text *command_text_of(unsigned command) {
    return command == FOR_MPI ? &mpi_text : &apsp_text;
}
