/* The labels file: a graph's vertex names, one a line in vertex order (V lines), beside a matrix
 * output, written through the same atomic output as the matrix (src/output). */
#include "base/error.h"
#include "base/fault.h"
#include "formats/rows.h"

#include <stdlib.h>
#include <string.h>

apsp_status apsp_write_labels(const char *path, const apsp_graph *graph, apsp_error *error) {
    const char *const *labels = apsp_graph_labels(graph);
    if (!labels)
        return fail(error, APSP_ERR_USAGE, "%s: the graph's vertices have no names", path);
    size_t bytes = 0;
    for (size_t v = 0; v < graph->vertices; v++)
        bytes += strlen(labels[v]) + 1;
    char *text = apsp_malloc(bytes ? bytes : 1);
    if (!text)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory writing %s", path);
    char *p = text;
    for (size_t v = 0; v < graph->vertices; v++) {
        size_t len = strlen(labels[v]);
        memcpy(p, labels[v], len);
        p[len] = '\n';
        p += len + 1;
    }
    apsp_output *output;
    apsp_status status = apsp_output_open(path, &output, error);
    if (status == APSP_OK)
        status = commit_bytes(output, text, bytes, error);
    free(text);
    return status;
}
