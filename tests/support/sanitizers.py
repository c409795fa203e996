"""The environment of a run under AddressSanitizer (CI's second build) whose libraries leak by
design (lsan.supp: Open MPI in apsp-mpi, PoCL's compiler on a cold cache): their leaks
suppressed, with full stacks and Open MPI's components kept loaded so that their frames have
names to match; apsp's own allocations are still checked. Harmless without a sanitizer."""
import os

SUPPRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan.supp")


def _joined(env, name, extra):
    return ":".join(filter(None, [env.get(name, ""), extra]))


def leak_env(env=None, mpi=True):
    """`env` (default: this process's environment) with the suppressions added. mpi=False, for a
    process that starts no Open MPI: the stacks of its allocations taken by frame pointers, as
    the sanitizer does by default. Open MPI's allocations need the full unwinding to reach a
    frame of its libraries, which costs at every allocation: a cold PoCL compile under it took
    150 s, where the frame pointers' walk, whose first frame above the allocation is already
    PoCL's or LLVM's, took 18 (2026-11-29, on 2 loaded cores)."""
    env = dict(os.environ if env is None else env)
    env["LSAN_OPTIONS"] = _joined(env, "LSAN_OPTIONS",
                                  "suppressions=%s:print_suppressions=0" % SUPPRESSIONS)
    if mpi:
        env["ASAN_OPTIONS"] = _joined(env, "ASAN_OPTIONS", "fast_unwind_on_malloc=0")
        env["OMPI_MCA_mca_base_component_disable_dlclose"] = "1"
    return env
