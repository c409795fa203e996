/* What the text readers share beyond the scanner: opening and loading, the weight rule at a
 * line, and room for announced edges. */
#include "base/graph.h"
#include "formats/readers.h"

apsp_status text_check_weight(const text_input *t, const apsp_read_options *options, int64_t w,
                              size_t vertices, apsp_error *error) {
    char why[256];
    if (options->flags & APSP_GRAPH_UNWEIGHTED)
        return APSP_OK;
    const char *problem = weight_problem(w, vertices, why, sizeof why);
    return problem ? text_fail(t, error, "%s", problem) : APSP_OK;
}

apsp_status text_open(const char *path, text_input *t, apsp_error *error) {
    input_file in;
    apsp_status status = input_open(path, &in, error);
    if (status != APSP_OK) {
        *t = (text_input){0};
        return status;
    }
    status = text_load(&in, t, error);
    input_close(&in);
    return status;
}

apsp_status reserve_announced(apsp_graph *g, const text_input *t, uint64_t announced,
                              size_t least_bytes, apsp_error *error) {
    uint64_t could = (uint64_t)(t->end - t->data) / least_bytes + 1;
    return apsp_graph_reserve(g, (size_t)(announced < could ? announced : could), error);
}
