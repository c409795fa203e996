/* OUTPUT and --predecessors named as formats apsp does not write (cli.h). */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Extensions of formats apsp does not write: those it only reads, and other tools' data files.
 * Every other name is hw3, as the course's outputs (c21.1.out, .bin) are, so a file named so
 * would silently get hw3's raw int32. */
static const char *const unwritten_extensions[] = {
    ".json", ".mat", ".h5",  ".hdf5", ".npz",   ".parquet",
    ".xlsx", ".pkl", ".mtx", ".gr",   ".edges", ".el",
};
enum { UNWRITTEN_EXTENSIONS = sizeof unwritten_extensions / sizeof *unwritten_extensions };

/* The name's extension when it is one of unwritten_extensions, else NULL. */
static const char *unwritten_extension(const char *path) {
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    const char *ext = strrchr(base, '.');
    for (size_t i = 0; ext && ext != base && i < UNWRITTEN_EXTENSIONS; i++)
        if (strcasecmp(ext, unwritten_extensions[i]) == 0)
            return ext;
    return NULL;
}

/* --predecessors' extension when apsp would not write the file as named: one of
 * unwritten_extensions, or a text one (the predecessors are .npy or raw int32). */
static const char *unwritten_predecessors(const char *pred) {
    apsp_format format = pred ? apsp_format_for(pred, 1) : APSP_FORMAT_AUTO;
    if (format == APSP_FORMAT_TEXT || format == APSP_FORMAT_CSV || format == APSP_FORMAT_TSV)
        return strrchr(pred, '.');
    return pred ? unwritten_extension(pred) : NULL;
}

/* OUTPUT (unless --output-format says its format) or --predecessors named as a format that
 * apsp does not write. */
apsp_status cli_refuse_unwritten_names(const cli *c, apsp_error *err) {
    const char *pred = c->paths.predecessors;
    const char *output_ext = c->output_format ? NULL : unwritten_extension(c->output);
    const char *pred_ext = unwritten_predecessors(pred);
    if (output_ext)
        snprintf(err->message, sizeof err->message,
                 "%.400s: apsp writes no %s files: name OUTPUT .npy, .txt, .csv, .tsv or anything "
                 "else for hw3, or give --output-format=hw3|npy|text|csv|tsv (see apsp --help)",
                 c->output, output_ext);
    else if (pred_ext)
        snprintf(err->message, sizeof err->message,
                 "--predecessors=%.400s: apsp writes no %s predecessors: name a .npy file, or "
                 "any other name for raw int32 (see apsp --help)",
                 pred, pred_ext);
    else
        return APSP_OK;
    return err->status = APSP_ERR_USAGE;
}
