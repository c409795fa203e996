/* The apsp command's signals (signals.h), and apsp-mpi's.
 *
 * What there is to remove: on Linux mostly nothing, since the library writes into an unnamed
 * file that vanishes with the process (even one killed by SIGKILL). A named temporary file exists
 * where the file system has no O_TMPFILE, and for an instant at commit; apsp_output_temp_path
 * names it, and a signal removes it before the process ends.
 *
 * Why not a plain sigaction(): loading the OpenCL platform (PoCL's LLVM) installs handlers of its
 * own over ours, in the middle of apsp_solve; on SIGQUIT, SIGUSR1, SIGXCPU, SIGXFSZ and the fault
 * signals they put the previous handlers back and return, so a signal sent with kill(1) was lost
 * and the run went on to exit 0. So:
 *   - the asynchronous signals are blocked here, before any other thread exists (every thread
 *     inherits the mask), and a thread of ours takes them with sigtimedwait(): no handler, ours
 *     or a library's, runs for them, whatever was installed;
 *   - the fault signals cannot be blocked (a fault while blocked kills at once, with no cleanup
 *     and no sanitizer report), and SIGPIPE stays unblocked so that writing into a closed pipe
 *     ends the run as it ends any filter: they get a handler, which the same thread puts back
 *     whenever something has replaced it. */
#include "signals.h"

#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Taken by the signal thread. SIGABRT too: abort() unblocks it for its own raise. */
static const int async_signals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGALRM,
                                    SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGABRT};
/* Given to on_signal, and kept there. */
static const int handled_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE};

enum {
    COUNT_ASYNC = sizeof async_signals / sizeof async_signals[0],
    COUNT_HANDLED = sizeof handled_signals / sizeof handled_signals[0],
    CHECK_INTERVAL_NS = 50 * 1000 * 1000, /* how soon a replaced handler is put back */
};

static char temp_path[PATH_MAX];
static atomic_int armed; /* temp_path is set */
static sigset_t async_set;
static struct sigaction ours;
static struct sigaction previous[NSIG]; /* before ours: a sanitizer's handler, or the default */

static void remove_temporary(void) {
    if (atomic_load(&armed))
        unlink(temp_path);
}

/* Ends the process by `sig` with its default action, from on_signal or the signal thread. */
static void die_by(int sig) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, NULL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    raise(sig); /* pending here while blocked, delivered by the unblocking */
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    _exit(128 + sig); /* not reached: the default action of each of these ends the process */
}

static int is_fault(int sig) {
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

/* digits of v in base `base` at the end of line[0, n). */
static size_t put_number(char *line, size_t n, uintptr_t v, unsigned base) {
    char digits[2 * sizeof v + 1];
    size_t k = 0;
    do
        digits[k++] = "0123456789abcdef"[v % base];
    while ((v /= base) != 0);
    while (k > 0)
        line[n++] = digits[--k];
    return n;
}

static size_t put_text(char *line, size_t n, const char *text) {
    size_t len = strlen(text);
    memcpy(line + n, text, len);
    return n + len;
}

/* One line for a fault the kernel raised, which would otherwise end the run with no word (a
 * sanitizer's report, if any, follows it): the signal, its si_code and the address, without
 * stdio (async-signal-safe). SIGBUS with code 2 (BUS_ADRERR) at an address in a file mapping
 * is what a file truncated under apsp gives; code 4 (BUS_MCEERR_AR) a memory error. */
static void report_fault(int sig, const siginfo_t *info) {
    static const char *const names[] = {
        [SIGSEGV] = "SIGSEGV", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE", [SIGILL] = "SIGILL"};
    char line[128];
    size_t n = put_text(line, 0, "apsp: fatal ");
    n = put_text(line, n, names[sig]);
    n = put_text(line, n, " (si_code ");
    n = put_number(line, n, (uintptr_t)info->si_code, 10);
    n = put_text(line, n, ") at address 0x");
    n = put_number(line, n, (uintptr_t)info->si_addr, 16);
    line[n++] = '\n';
    ssize_t written = write(STDERR_FILENO, line, n);
    (void)written; /* nothing to be done about stderr here */
}

static void on_signal(int sig, siginfo_t *info, void *context) {
    /* A SIGBUS inside the library's copy into a truncated output jumps back into the copy, which
     * fails with one line, the run's temporary file removed as on any failure; this returns for
     * every other fault (signals_install). */
    apsp_fault_guard_recover(sig, info, context);
    remove_temporary();
    /* A real fault (the kernel's si_code > 0) happens again when the handler returns and then
     * meets what was there before: the default action, or a sanitizer's report. One sent by
     * kill(1) would not come again. */
    if (is_fault(sig) && info && info->si_code > 0) {
        report_fault(sig, info);
        sigaction(sig, &previous[sig], NULL);
        return;
    }
    die_by(sig);
}

/* Puts on_signal back wherever a library has put its own handler over it. */
static void keep_handlers(void) {
    for (int i = 0; i < COUNT_HANDLED; i++) {
        struct sigaction now;
        int sig = handled_signals[i];
        if (sigaction(sig, NULL, &now) == 0 &&
            !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_signal))
            sigaction(sig, &ours, NULL);
    }
}

/* Posted by the signal thread once it runs. A process that exits while a thread it made is
 * still starting meets LeakSanitizer's check with that thread's own start-up allocations
 * unaccounted for (google/sanitizers issue 1836): an early refusal, such as an OUTPUT that
 * must not be opened, exited 1 with a leak report in CI's sanitizer run. */
static sem_t signal_thread_started;

static void *signal_thread(void *unused) {
    (void)unused;
    sem_post(&signal_thread_started);
    const struct timespec interval = {0, CHECK_INTERVAL_NS};
    for (;;) {
        int sig = sigtimedwait(&async_set, NULL, &interval);
        if (sig > 0) {
            remove_temporary();
            die_by(sig);
        }
        keep_handlers();
    }
    return NULL;
}

void signals_install(void) {
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_signal;
    ours.sa_flags = SA_SIGINFO;
    sigfillset(&ours.sa_mask);
    sigemptyset(&async_set);
    /* The asynchronous ones get the handler too, for the case without the thread. */
    for (int i = 0; i < COUNT_ASYNC; i++) {
        sigaction(async_signals[i], &ours, &previous[async_signals[i]]);
        sigaddset(&async_set, async_signals[i]);
    }
    for (int i = 0; i < COUNT_HANDLED; i++)
        sigaction(handled_signals[i], &ours, &previous[handled_signals[i]]);
    pthread_sigmask(SIG_BLOCK, &async_set, NULL);
    /* on_signal asks the library first about a SIGBUS: the output's rows may go into its
     * mapping by stores, ten times faster than by process_vm_writev (apsp_io.h). A copy that
     * starts while a library's handler has replaced ours (until keep_handlers puts it back) is
     * made by process_vm_writev; one whose stores meet such a handler meets LLVM's (PoCL's
     * compiler), which puts the previous one, ours, back and returns, so that the store faults
     * again into on_signal. */
    apsp_fault_guard_enable(1);
    pthread_t thread;
    if (sem_init(&signal_thread_started, 0, 0) != 0 ||
        pthread_create(&thread, NULL, signal_thread, NULL) != 0) {
        pthread_sigmask(SIG_UNBLOCK, &async_set, NULL); /* then the handler takes them */
        return;
    }
    pthread_detach(thread);
    while (sem_wait(&signal_thread_started) != 0) /* (EINTR only) */
        continue;
}

void signals_watch_output(const apsp_output *output) {
    signals_watch_path(output ? apsp_output_temp_path(output) : NULL);
}

void signals_watch_path(const char *temp) {
    atomic_store(&armed, 0);
    size_t len = temp ? strlen(temp) : 0;
    if (!temp || len >= sizeof temp_path)
        return; /* longer than any path open() takes: there is no such file */
    memcpy(temp_path, temp, len + 1);
    atomic_store(&armed, 1);
}
