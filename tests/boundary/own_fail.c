/* A program with functions of its own that share names with the library's internal ones
 * (src/base/error.h, src/base/util.h). Linked against either library, the library must keep
 * calling its own (which are not part of the API) and the program must get its own: before
 * the library hid them, apsp_read_hw3 on a missing file called this fail() and returned APSP_OK
 * with no matrix against libapsp.so, and against libapsp.a the link failed on a duplicate fail.
 * Any of these functions called from inside the library aborts. Exits 0 when all is well. */
#include "apsp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fail(const char *what);
double seconds_now(void);
unsigned online_cores(void);
uint64_t physical_memory(void);
int contains_ignoring_case(const char *haystack, const char *needle);

static int calling_own_fail; /* set while main calls fail() itself */
static int failures;

static void library_called(const char *name) {
    fprintf(stderr, "own-fail: the library called the program's %s()\n", name);
    abort();
}

int fail(const char *what) {
    if (!calling_own_fail)
        library_called("fail");
    printf("own-fail: the program's own fail(\"%s\")\n", what);
    return 42;
}

double seconds_now(void) {
    library_called("seconds_now");
    return 0;
}

unsigned online_cores(void) {
    library_called("online_cores");
    return 0;
}

uint64_t physical_memory(void) {
    library_called("physical_memory");
    return 0;
}

int contains_ignoring_case(const char *haystack, const char *needle) {
    library_called("contains_ignoring_case");
    return haystack == needle;
}

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "own-fail: FAILED: %s\n", what);
        failures++;
    }
}

int main(void) {
    /* The reader's errors go through the library's fail(). */
    const char *missing = "/nonexistent/apsp-boundary-test/in.bin";
    apsp_matrix placeholder = {0};
    apsp_matrix *m = &placeholder; /* the reader must set it to NULL */
    apsp_error err = {APSP_OK, "untouched"};
    apsp_status status = apsp_read_hw3(missing, &m, &err);
    check(status == APSP_ERR_INPUT, "apsp_read_hw3 on a missing file returns APSP_ERR_INPUT");
    check(m == NULL, "apsp_read_hw3 on a missing file leaves no matrix");
    check(err.status == APSP_ERR_INPUT, "the error records APSP_ERR_INPUT");
    check(strstr(err.message, missing) != NULL, "the error message names the file");
    printf("own-fail: apsp_read_hw3: %s: %s\n", apsp_status_name(status), err.message);
    apsp_matrix_destroy(m == &placeholder ? NULL : m);

    /* A small solve on the CPU threads, with every thread (the library's online_cores) and
     * the timings of the report (its seconds_now). */
    apsp_matrix *g = NULL;
    check(apsp_matrix_create(3, &g, &err) == APSP_OK, "apsp_matrix_create(3)");
    if (g) {
        apsp_matrix_row(g, 0)[1] = 2;
        apsp_matrix_row(g, 1)[2] = 3;
        apsp_options opts;
        apsp_options_init(&opts);
        opts.backend = APSP_BACKEND_CPU;
        apsp_report report;
        check(apsp_solve(g, &opts, &report, &err) == APSP_OK, "apsp_solve on the CPU threads");
        check(apsp_matrix_row(g, 0)[2] == 5, "the distance 0 -> 2 is 5");
        check(report.threads >= 1, "the report names at least one thread");
        apsp_matrix_destroy(g);
    }

    /* The program's own fail(), called by the program itself. */
    calling_own_fail = 1;
    check(fail("a call of the program's own") == 42, "the program's fail() is its own");
    calling_own_fail = 0;

    if (failures)
        return 1;
    printf("own-fail: ok\n");
    return 0;
}
