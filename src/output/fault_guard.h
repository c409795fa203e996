/* Stores into a shared file mapping that survive the file's truncation (fault_guard.c): a page
 * that another process truncated away raises SIGBUS at the store; where the application's SIGBUS
 * handler hands it to apsp_fault_guard_recover (apsp_io.h), the guarded work is abandoned there
 * and fails with EFAULT, as process_vm_writev's copy does. */
#ifndef APSP_FAULT_GUARD_H
#define APSP_FAULT_GUARD_H

#include <stddef.h>

typedef void (*guarded_fn)(void *context);

/* Runs work(context), whose stores into the shared mapping [begin, begin + bytes) may meet a
 * truncated file, on this thread. Returns 0 when work ran to its end; EFAULT when a store into
 * the span raised SIGBUS, work then left midway (it must hold no lock nor allocation across its
 * stores); -1 before running anything, where stores must not be used: the application did not
 * enable the guard (apsp_fault_guard_enable), the handler it enabled it with is not SIGBUS's now,
 * this thread blocks SIGBUS, or more threads than there are slots are inside one at once. The
 * caller then copies by process_vm_writev. Guards do not nest on a thread. */
int fault_guard_run(void *begin, size_t bytes, guarded_fn work, void *context);

#endif
