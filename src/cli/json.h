/* JSON output shared by apsp's and apsp-mpi's --stats-json. */
#ifndef APSP_CLI_JSON_H
#define APSP_CLI_JSON_H

#include <stdio.h>

/* text as a JSON string, quotes included: " and \ escaped, control characters as \u00XX. */
void json_write_string(FILE *out, const char *text);

#endif
