/* See fault.h. Compiled only into fault-injection builds. */
#include "base/fault.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static const char *const kind_names[] = {
    [FAULT_ALLOC] = "alloc", [FAULT_CL] = "cl", [FAULT_IO] = "io"};

/* The call APSP_FAULT names: the n-th of its kind, or the n-th at one site (fault.h). */
typedef struct fault_target {
    long n;           /* 0: none */
    const char *site; /* NULL: the n-th of the kind, wherever */
    size_t site_length;
} fault_target;

/* Read at each call, not once: apsp-mpi unsets APSP_FAULT on every rank but the one aimed at
 * once it knows its rank, after calls that may have counted already. */
static fault_target parse_target(fault_kind kind) {
    fault_target t = {0};
    const char *spec = getenv("APSP_FAULT");
    size_t len = strlen(kind_names[kind]);
    if (!spec || strncmp(spec, kind_names[kind], len) != 0)
        return t;
    if (spec[len] == ':') {
        t.n = atol(spec + len + 1);
    } else if (spec[len] == '@') {
        const char *hash = strrchr(spec, '#');
        if (hash) {
            t.site = spec + len + 1;
            t.site_length = (size_t)(hash - t.site);
            t.n = atol(hash + 1);
        }
    }
    return t;
}

/* Each site's calls so far, in a table keyed by the site's text (the fault_hit macro's "file:line";
 * a header's site has one literal in each file that includes it). First-seen order for the
 * listing. */
enum { SITE_SLOTS = 8192 };
typedef struct site_count {
    const char *site;
    fault_kind kind;
    long calls;
} site_count;

static site_count sites[SITE_SLOTS];
static int first_seen[SITE_SLOTS];
static int sites_seen;
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_site(const char *a, const char *b) {
    return a == b || strcmp(a, b) == 0;
}

static size_t site_hash(const char *site) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *site; site++)
        h = (h ^ (unsigned char)*site) * 16777619u;
    return h;
}

/* How many calls `site` has made, this one included; 0 once the table is full (never here). */
static long count_at_site(fault_kind kind, const char *site) {
    size_t slot = site_hash(site) % SITE_SLOTS;
    long calls = 0;
    pthread_mutex_lock(&sites_lock);
    for (int probes = 0; probes < SITE_SLOTS; probes++, slot = (slot + 1) % SITE_SLOTS) {
        site_count *s = &sites[slot];
        if (!s->site) {
            *s = (site_count){.site = site, .kind = kind};
            first_seen[sites_seen++] = (int)slot;
        }
        if (s->kind == kind && same_site(s->site, site)) {
            calls = ++s->calls;
            break;
        }
    }
    pthread_mutex_unlock(&sites_lock);
    return calls;
}

static atomic_long counters[FAULT_KINDS];

/* APSP_FAULT_COUNT=1 prints at exit how many calls of each kind the run made, then each site
 * with its calls, so that a test knows what to walk:
 *   apsp-fault: alloc=A cl=C io=I
 *   apsp-fault: site KIND CALLS FILE:LINE */
static void print_counts(void) {
    fprintf(stderr, "apsp-fault: alloc=%ld cl=%ld io=%ld\n", atomic_load(&counters[FAULT_ALLOC]),
            atomic_load(&counters[FAULT_CL]), atomic_load(&counters[FAULT_IO]));
    pthread_mutex_lock(&sites_lock);
    for (int i = 0; i < sites_seen; i++) {
        const site_count *s = &sites[first_seen[i]];
        fprintf(stderr, "apsp-fault: site %s %ld %s\n", kind_names[s->kind], s->calls, s->site);
    }
    pthread_mutex_unlock(&sites_lock);
}

/* The site table (a lock and a hash a call) is kept only where it is read: for the listing, and
 * at the one site APSP_FAULT aims at; every other call costs one atomic add. */
int fault_hit_at(fault_kind kind, const char *site) {
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    int listing = getenv("APSP_FAULT_COUNT") != NULL;
    if (listing && !atomic_flag_test_and_set(&registered))
        atexit(print_counts);
    long n = atomic_fetch_add(&counters[kind], 1) + 1;
    fault_target t = parse_target(kind);
    int aimed_here =
        t.site && strlen(site) == t.site_length && strncmp(site, t.site, t.site_length) == 0;
    long at_site = listing || aimed_here ? count_at_site(kind, site) : 0;
    if (!t.site)
        return n == t.n;
    return aimed_here && at_site == t.n;
}

void fault_pause(const char *point) {
    static atomic_flag paused = ATOMIC_FLAG_INIT;
    const char *spec = getenv("APSP_FAULT_PAUSE");
    if (spec && strcmp(spec, point) == 0 && !atomic_flag_test_and_set(&paused))
        raise(SIGSTOP); /* stops every thread; SIGCONT goes on from here */
}
