/* output/fault_guard.c: stores into a shared file mapping whose file was truncated, recovered by
 * a SIGBUS handler that calls apsp_fault_guard_recover first, as the apsp command's does.
 *   - off (apsp_fault_guard_enable(0)), enabled with no SIGBUS handler, while another handler
 *     is SIGBUS's, on a thread that blocks SIGBUS: nothing runs, -1 (process_vm_writev's turn);
 *   - on, the file whole: 0, every byte in the file;
 *   - on, the file cut to one page: EFAULT, the work left at the first page gone, the bytes
 *     before it in the file, and the next guard on the same thread works;
 *   - what must stay fatal is handed back to the handler: a fault outside the guard's span, a
 *     SIGBUS sent by raise() inside it, a fault at a guarded span from another thread than the
 *     guard's (the other thread, in a guard over that very span, still gets its EFAULT).
 * The test's handler escapes from what the guard hands back, so that each case is counted. */
#include "output/fault_guard.h"
#include "apsp.h"
#include "check.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PAGES = 4 };

static size_t page;
static _Thread_local sigjmp_buf escape; /* where the handler goes when the guard returns */
static atomic_int handed_back;          /* SIGBUS the guard did not take */

static void on_bus(int sig, siginfo_t *info, void *context) {
    apsp_fault_guard_recover(sig, info, context);
    atomic_fetch_add(&handed_back, 1);
    siglongjmp(escape, 1);
}

/* A shared mapping of a new file of PAGES pages, cut to `keep` bytes; *fd its descriptor. NULL
 * (a failed check) where the system refuses. */
static unsigned char *map_file(size_t keep, int *fd) {
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/apsp-fault-guard-XXXXXX", dir);
    *fd = mkstemp(path);
    if (*fd < 0)
        return NULL;
    unlink(path);
    if (ftruncate(*fd, (off_t)(PAGES * page)) != 0)
        return NULL;
    unsigned char *map = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (map == MAP_FAILED || ftruncate(*fd, (off_t)keep) != 0)
        return NULL;
    return map;
}

static unsigned char *mapped_file(size_t keep, int *fd) {
    unsigned char *map = map_file(keep, fd);
    CHECK(map, "a shared mapping of a new file in $TMPDIR or /tmp");
    return map;
}

/* A copy of `bytes` of 0x5a into `dst`, for fault_guard_run; `done` set at its end. */
typedef struct copy {
    unsigned char *dst;
    size_t bytes;
    /* Where set, waited on in turn before the copy: the other thread's store goes between. */
    pthread_barrier_t *inside, *after;
    int done;
} copy;

static void copy_work(void *context) {
    copy *c = context;
    if (c->inside) {
        pthread_barrier_wait(c->inside);
        pthread_barrier_wait(c->after);
    }
    memset(c->dst, 0x5a, c->bytes);
    c->done = 1;
}

static int file_holds(int fd, size_t bytes) {
    unsigned char *back = malloc(bytes);
    int same = back && pread(fd, back, bytes, 0) == (ssize_t)bytes;
    for (size_t i = 0; same && i < bytes; i++)
        same = back[i] == 0x5a;
    free(back);
    return same;
}

static void test_off_and_whole(void) {
    int fd;
    unsigned char *map = mapped_file(PAGES * page, &fd);
    if (!map)
        return;
    copy c = {map, PAGES * page, NULL, NULL, 0};
    apsp_fault_guard_enable(0);
    CHECK(fault_guard_run(map, c.bytes, copy_work, &c) == -1 && !c.done, "off: nothing runs, -1");
    apsp_fault_guard_enable(1);
    CHECK(fault_guard_run(map, c.bytes, copy_work, &c) == 0 && c.done, "on, the file whole: 0");
    CHECK(file_holds(fd, c.bytes), "every byte in the file");
    munmap(map, PAGES * page);
    close(fd);
}

static void other_handler(int sig, siginfo_t *info, void *context) {
    (void)sig, (void)info, (void)context;
    abort(); /* never reached: no store runs under it */
}

static void set_bus_handler(void (*handler)(int, siginfo_t *, void *)) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = handler;
    action.sa_flags = SA_SIGINFO;
    sigfillset(&action.sa_mask);
    sigaction(SIGBUS, &action, NULL);
}

static void *blocked_thread(void *context) {
    copy *c = context;
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    pthread_sigmask(SIG_BLOCK, &bus, NULL);
    return (void *)(intptr_t)fault_guard_run(c->dst, c->bytes, copy_work, c);
}

/* Stores only while the handler that enabled them is SIGBUS's, on threads that take SIGBUS. */
static void test_handler_in_place(void) {
    int fd;
    unsigned char *map = mapped_file(PAGES * page, &fd);
    if (!map)
        return;
    copy c = {map, PAGES * page, NULL, NULL, 0};
    set_bus_handler(other_handler); /* as a library's, put over the application's for a while */
    CHECK(fault_guard_run(map, c.bytes, copy_work, &c) == -1 && !c.done,
          "another handler in place: nothing runs, -1");
    set_bus_handler(on_bus);
    pthread_t t;
    void *result = NULL;
    CHECK(pthread_create(&t, NULL, blocked_thread, &c) == 0 && pthread_join(t, &result) == 0 &&
              (intptr_t)result == -1 && !c.done,
          "a thread that blocks SIGBUS: nothing runs, -1");
    CHECK(fault_guard_run(map, c.bytes, copy_work, &c) == 0 && c.done, "the handler back: 0");
    munmap(map, PAGES * page);
    close(fd);
}

static void test_truncated(void) {
    for (int round = 0; round < 2; round++) { /* the second: after a recovered one */
        int fd;
        unsigned char *map = mapped_file(page, &fd);
        if (!map)
            return;
        copy c = {map, PAGES * page, NULL, NULL, 0};
        int before = atomic_load(&handed_back);
        int result = sigsetjmp(escape, 1) ? -2 : fault_guard_run(map, c.bytes, copy_work, &c);
        CHECK(result == EFAULT && !c.done && atomic_load(&handed_back) == before,
              "round %d: a store past the file's end: EFAULT, the work left (got %d, done %d)",
              round, result, c.done);
        CHECK(file_holds(fd, page), "the page before the cut written");
        munmap(map, PAGES * page);
        close(fd);
    }
}

/* A store at `at` with a guard over [span, span + bytes): 1 when the handler got the SIGBUS
 * back (and escaped), 0 when the guard took it (EFAULT). */
typedef struct outside {
    unsigned char *span, *at;
    size_t bytes;
    int raise_it; /* raise(SIGBUS) inside the guard rather than a store */
} outside;

static void store_at(void *context) {
    outside *o = context;
    if (o->raise_it)
        raise(SIGBUS);
    else
        *(volatile unsigned char *)o->at = 1;
}

static void *outside_thread(void *context) {
    /* In a thread of its own: an escape leaves the guard's slot taken, by a thread that ends. */
    outside *o = context;
    int before = atomic_load(&handed_back);
    if (!sigsetjmp(escape, 1))
        fault_guard_run(o->span, o->bytes, store_at, o);
    return (void *)(intptr_t)(atomic_load(&handed_back) - before);
}

static int handed_back_from(outside *o) {
    pthread_t t;
    void *result = NULL;
    if (pthread_create(&t, NULL, outside_thread, o) != 0 || pthread_join(t, &result) != 0)
        return -1;
    return (int)(intptr_t)result;
}

static void test_not_ours(void) {
    int fd;
    unsigned char *map = mapped_file(page, &fd);
    if (!map)
        return;
    outside beyond = {map, map + 3 * page, page, 0};
    CHECK(handed_back_from(&beyond) == 1, "a fault outside the guard's span is handed back");
    outside sent = {map, map, PAGES * page, 1};
    CHECK(handed_back_from(&sent) == 1, "a SIGBUS sent by raise() is handed back");
    munmap(map, PAGES * page);
    close(fd);
}

/* Another thread stores into the span of a guard that this one holds (between the barriers),
 * then this one does. */
typedef struct two {
    unsigned char *map;
    pthread_barrier_t inside, after;
    int handed;
} two;

static void *intruder(void *context) {
    two *t = context;
    pthread_barrier_wait(&t->inside);
    int before = atomic_load(&handed_back);
    if (!sigsetjmp(escape, 1))
        *(volatile unsigned char *)(t->map + 2 * page) = 1;
    t->handed = atomic_load(&handed_back) - before;
    pthread_barrier_wait(&t->after);
    return NULL;
}

static void test_other_thread(void) {
    two t = {0};
    int fd;
    t.map = mapped_file(page, &fd);
    if (!t.map)
        return;
    pthread_barrier_init(&t.inside, NULL, 2);
    pthread_barrier_init(&t.after, NULL, 2);
    pthread_t thread;
    if (pthread_create(&thread, NULL, intruder, &t) != 0) {
        CHECK(0, "a thread");
        return;
    }
    /* The copy waits, inside its guard, until the other thread has faulted. */
    copy c = {t.map, PAGES * page, &t.inside, &t.after, 0};
    int result = sigsetjmp(escape, 1) ? -2 : fault_guard_run(t.map, c.bytes, copy_work, &c);
    pthread_join(thread, NULL);
    CHECK(t.handed == 1, "another thread's fault in a guarded span is handed back");
    CHECK(result == EFAULT && !c.done, "the guard's own thread still gets EFAULT (got %d)", result);
    pthread_barrier_destroy(&t.inside);
    pthread_barrier_destroy(&t.after);
    munmap(t.map, PAGES * page);
    close(fd);
}

int main(void) {
    page = (size_t)sysconf(_SC_PAGESIZE);
    signal(SIGBUS, SIG_DFL); /* (a sanitizer's handler may be there) */
    apsp_fault_guard_enable(1);
    int fd;
    unsigned char *map = mapped_file(PAGES * page, &fd);
    copy c = {map, PAGES * page, NULL, NULL, 0};
    CHECK(map && fault_guard_run(map, c.bytes, copy_work, &c) == -1 && !c.done,
          "enabled with no SIGBUS handler installed: nothing runs, -1");
    set_bus_handler(on_bus);
    test_off_and_whole();
    test_handler_in_place();
    test_truncated();
    test_other_thread();
    test_not_ours();
    apsp_fault_guard_enable(0);
    CHECK(map && fault_guard_run(map, c.bytes, copy_work, &c) == -1 && !c.done, "off again: -1");
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
