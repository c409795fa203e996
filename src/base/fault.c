/* See fault.h. Compiled only into fault-injection builds. */
#include "base/fault.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_long counters[FAULT_KINDS];

static long target(fault_kind kind) {
    static const char *const names[] = {
        [FAULT_ALLOC] = "alloc", [FAULT_CL] = "cl", [FAULT_IO] = "io"};
    const char *spec = getenv("APSP_FAULT");
    size_t len = strlen(names[kind]);
    if (!spec || strncmp(spec, names[kind], len) != 0 || spec[len] != ':')
        return 0;
    return atol(spec + len + 1);
}

/* APSP_FAULT_COUNT=1 prints at exit how many calls of each kind the run made, so a test knows
 * how far to walk N. */
static void print_counts(void) {
    fprintf(stderr, "apsp-fault: alloc=%ld cl=%ld io=%ld\n", atomic_load(&counters[FAULT_ALLOC]),
            atomic_load(&counters[FAULT_CL]), atomic_load(&counters[FAULT_IO]));
}

int fault_hit(fault_kind kind) {
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (getenv("APSP_FAULT_COUNT") && !atomic_flag_test_and_set(&registered))
        atexit(print_counts);
    long n = atomic_fetch_add(&counters[kind], 1) + 1;
    return n == target(kind);
}

void fault_pause(const char *point) {
    static atomic_flag paused = ATOMIC_FLAG_INIT;
    const char *spec = getenv("APSP_FAULT_PAUSE");
    if (spec && strcmp(spec, point) == 0 && !atomic_flag_test_and_set(&paused))
        raise(SIGSTOP); /* stops every thread; SIGCONT goes on from here */
}
