/* See fault_guard.h. Why stores at all: into the output's populated mapping they copy at
 * memory's speed (51-56 GB/s on 16 threads of a GPU host, issue 37's probe) where
 * process_vm_writev, which turns the lost page into EFAULT without any signal, reached 4.7;
 * docs/performance.md, "The copy into the mapping by stores". Why they need the application:
 * a library cannot take the process's SIGBUS handler (the apsp command owns its signals,
 * cli/signals.c), so the application's handler asks apsp_fault_guard_recover first.
 *
 * Each thread inside a guard holds a slot: its kernel thread id, the span and where to jump.
 * The handler runs on the faulting thread and finds that thread's slot by its id, with atomic
 * loads and one system call alone (async-signal-safe): no thread-local variable, whose first
 * touch in a library that was dlopen'ed may allocate. */
#define _GNU_SOURCE /* syscall, SYS_gettid */
#include "output/fault_guard.h"
#include "apsp_io.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

enum {
    /* Threads in a guard at once: the output's threads (16 at most) for each of the devices
     * that hand rows on at once; past them, process_vm_writev. */
    GUARD_SLOTS = 256,
};

typedef struct guard_slot {
    atomic_long owner; /* the thread's id while it is in a guard; 0: free */
    /* Written by the owner before its stores and read by its own handler: atomic (relaxed)
     * only so that the compiler keeps the order a signal fence asks for. */
    _Atomic uintptr_t begin, end;
    sigjmp_buf *_Atomic jump;
} guard_slot;

static guard_slot slots[GUARD_SLOTS];
/* The SIGBUS handler that apsp_fault_guard_enable found, which calls apsp_fault_guard_recover;
 * NULL: stores are not used. */
static _Atomic(void (*)(int, siginfo_t *, void *)) recovering;

static long thread_id(void) {
    return (long)syscall(SYS_gettid);
}

void apsp_fault_guard_enable(int enable) {
    struct sigaction now;
    int ours = enable && sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO);
    atomic_store(&recovering, ours ? now.sa_sigaction : NULL);
}

/* Whether a SIGBUS on this thread, now, reaches the handler that recovers it: not blocked here
 * (a fault on a thread that blocks it kills at once), and that handler in place (not one that a
 * library put over it for a while, as PoCL's compiler does: cli/signals.c). Two system calls, for
 * a copy of megabytes. */
static int recovery_in_place(void) {
    void (*handler)(int, siginfo_t *, void *) = atomic_load(&recovering);
    sigset_t mask;
    struct sigaction now;
    return handler && pthread_sigmask(SIG_SETMASK, NULL, &mask) == 0 &&
           !sigismember(&mask, SIGBUS) && sigaction(SIGBUS, NULL, &now) == 0 &&
           (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == handler;
}

/* A free slot taken for thread `me`, starting at a place of its own; NULL when all are taken. */
static guard_slot *claim(long me) {
    for (size_t i = 0; i < GUARD_SLOTS; i++) {
        guard_slot *slot = &slots[((size_t)me + i) % GUARD_SLOTS];
        long free_slot = 0;
        if (atomic_load_explicit(&slot->owner, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&slot->owner, &free_slot, me))
            return slot;
    }
    return NULL;
}

int fault_guard_run(void *begin, size_t bytes, guarded_fn work, void *context) {
    if (!recovery_in_place())
        return -1;
    guard_slot *slot = claim(thread_id());
    if (!slot)
        return -1;
    sigjmp_buf jump;
    atomic_store_explicit(&slot->begin, (uintptr_t)begin, memory_order_relaxed);
    atomic_store_explicit(&slot->end, (uintptr_t)begin + bytes, memory_order_relaxed);
    atomic_store_explicit(&slot->jump, &jump, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
    /* The mask is saved: the handler runs with signals blocked (sa_mask), which the jump out
     * of it must undo. Nothing that changes after this call is used after the jump. */
    int faulted = sigsetjmp(jump, 1);
    if (!faulted)
        work(context);
    atomic_signal_fence(memory_order_seq_cst);
    atomic_store_explicit(&slot->jump, NULL, memory_order_relaxed);
    atomic_store(&slot->owner, 0);
    return faulted ? EFAULT : 0;
}

void apsp_fault_guard_recover(int sig, void *info, void *ucontext) {
    (void)ucontext;
    const siginfo_t *si = info;
    /* BUS_ADRERR: a page of a file mapping beyond the file's end. Not a SIGBUS sent by kill
     * (SI_USER), nor a memory error (BUS_MCEERR_*), which stay fatal. */
    if (sig != SIGBUS || !si || si->si_code != BUS_ADRERR)
        return;
    long me = thread_id();
    uintptr_t at = (uintptr_t)si->si_addr;
    for (size_t i = 0; i < GUARD_SLOTS; i++) {
        guard_slot *slot = &slots[i];
        if (atomic_load_explicit(&slot->owner, memory_order_relaxed) != me)
            continue;
        sigjmp_buf *jump = atomic_load_explicit(&slot->jump, memory_order_relaxed);
        if (jump && at >= atomic_load_explicit(&slot->begin, memory_order_relaxed) &&
            at < atomic_load_explicit(&slot->end, memory_order_relaxed))
            siglongjmp(*jump, 1);
    }
}
