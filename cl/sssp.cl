/* Distances from a batch of chosen sources on the device (src/opencl/sssp.c): Bellman-Ford over
 * a frontier of (source, vertex) pairs, a program of its own beside fw.cl.
 *
 * The distance block is B x V cells of the rows' type (below), row b the distances from the batch's
 * source b, so a pair (b, u) is the index b V + u, which is also how the frontier names it (B V <
 * 2^32: the host sizes the batch so). A row is what the output wants, so the rows come down with no
 * transpose, and the pairs of one source's wavefront are neighbours in the vertex order (a grid's
 * ids are row-major), which is the locality this layout keeps.
 *
 * A round (sssp_relax) takes the pairs lowered in the round before: for each (b, u) it clears
 * u's queued bit, reads d(b, u) and relaxes u's out-edges with atomic_min; a pair that it lowers
 * and whose queued bit it sets first goes into the next frontier (an atomic counter), so a pair
 * is there at most once. The bit is cleared before d is read, so a lowering that lands after the
 * read sets the bit again and queues the pair once more: nothing is lost, whatever the order in
 * which the work-items run. The grid strides over the frontier in chunks of one item each,
 * reading its size on the device (the host reads it only every few rounds). Three counters turn:
 * round r reads counters[r % 3], appends to counters[(r + 1) % 3] and zeroes
 * counters[(r + 2) % 3], which round r - 1 read and round r + 1 appends to.
 *
 * Appends go through the work-group (APPEND_LOCAL): the pairs a group lowers in one chunk are
 * staged in local memory (a local counter), and at the chunk's end one global atomic_add per list
 * reserves their range and the group copies them there; each append once took a global
 * atomic_inc on the list's one counter, and those serialise in L2. A chunk that lowers more than
 * the stage holds (a hub's out-edges) appends the rest with the global atomic_inc directly. A
 * pair's queued bit is set before it is staged, and every stage is flushed before its group
 * counts itself done, so a pair set queued is in the next frontier or a far list by the round's
 * end, once: the argument above is unchanged.
 *
 * The element type is the program's (DIST_KIND, below): the block holds int, long, or the bits of
 * float or double ("cells"), and the weights are of the same type. Non-negative floats order as
 * their bits do as integers, +inf above every finite one, so one integer atomic_min serves
 * them all. A float sum is one edge weight added to the current distance of its tail, rounded
 * in the element type: the fixed point the rounds reach is, for each vertex, the least over the
 * paths to it of their weights summed left to right from the source in that type (rounding is
 * monotone, so a longer walk never rounds below its path), whatever order the rounds ran in.
 *
 * Integers are exact: sums in long, stored as int. Without a negative cycle every stored value is
 * the length of a path at least as long as the shortest, and d < INF, |w| <= (INF - 1) / (V - 1)
 * keep every sum within int; so does, without negative weights, a sum of the V - 1 largest
 * weights below INF (src/sssp/on_device.c), since every stored value is then a simple path's.
 * A sum at or below -INF is shorter than any simple path, so it proves a negative cycle: it is
 * stored as -INF (no overflow) and the cycle flag is set. int64 does the same with INF64 (its
 * sums stay within long: |d| <= INF64 and |w| < INF64 by int64's rule); floats are never
 * negative here (src/sssp/on_device.c keeps negative real weights on the host).
 *
 * Without negative weights the rounds follow delta-stepping with one threshold for the whole
 * batch (every source starts at 0, so their buckets advance together): a lowered pair at or
 * past the threshold goes into a far list instead of the next frontier (its queued bit kept, so
 * it is in one of them at most once), and once a round leaves the next frontier empty the
 * threshold moves to the far list's least distance + delta and the next round sorts the list
 * into its own next frontier and a new far list (a group keeps its far appends' least distance
 * in local memory and carries it over with one global atomic_min a chunk, before it is done, so
 * the last group reads the list's true least). That keeps the rounds from racing ahead along
 * paths of few heavy edges that later ones undo: plain Bellman-Ford took each pair of the
 * 1000 x 1000 grid 38 times. With negative weights the threshold is INF: Bellman-Ford by rounds.
 * The buckets are of int keys: an int32 distance is its own key; another type's is the distance
 * times key_scale (the host's: 256 keys to a bucket), clamped below INF, a monotone map, which is
 * all the buckets need (a key says when a pair is relaxed, never what it holds).
 *
 * Predecessors (sssp_pred, after the rounds): for each reached pair (b, v) but the source, the
 * in-edge (u, v) of least u with d(b, u) < d(b, v) and d(b, u) + w, rounded as the rounds round
 * it, equal to d(b, v). The host sends only weights > 0, so each such edge lies on a shortest
 * path and the parents strictly decrease along a chain: a tree. A reached vertex with none (a
 * float sum that absorbed its weight) sets F_UNTIGHT, and the host runs the batch instead. */
#define INF 1073741823

/* flags[]: a negative cycle; the pairs the rounds took (64 bits); delta-stepping's threshold;
 * which far list is current; the two lists' sizes and least distances; whether a round sorts
 * the old list first; the work-groups of the round that are done; a reached vertex that
 * sssp_pred found no predecessor for (sssp_setup.h: FLAG_COUNT). */
#define F_CYCLE 0
#define F_PAIRS 1
#define F_THRESHOLD 3
#define F_FAR_CUR 4
#define F_FAR_COUNT 5
#define F_FAR_MIN 7
#define F_FILTER 9
#define F_DONE 10
#define F_UNTIGHT 11

/* DIST_KIND (src/opencl/sssp_setup.c passes it): 0 int32, 1 int64, 2 float32, 3 float64. */
#ifndef DIST_KIND
#define DIST_KIND 0
#endif
#if DIST_KIND == 0
typedef int weight_t;
typedef int cell_t;
#define CELL_INF INF
#define as_dist(c) (c)
#define as_cell(d) (d)
#elif DIST_KIND == 1
typedef long weight_t;
typedef long cell_t;
#define CELL_INF 4611686018427387903L /* APSP_INF64 */
#define as_dist(c) (c)
#define as_cell(d) (d)
#elif DIST_KIND == 2
typedef float weight_t;
typedef int cell_t;
#define CELL_INF 0x7f800000 /* the bits of +inf */
#define as_dist(c) as_float(c)
#define as_cell(d) as_int(d)
#else
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double weight_t;
typedef long cell_t;
#define CELL_INF 0x7ff0000000000000L /* the bits of +inf */
#define as_dist(c) as_double(c)
#define as_cell(d) as_long(d)
#endif
typedef weight_t dist_t;

/* 64-bit cells: atom_min where the device has cl_khr_int64_extended_atomics, else (or with
 * SSSP_FORCE_CAS, which a test defines to run this path where the extension is) a
 * compare-and-swap loop on cl_khr_int64_base_atomics. Both return the cell before. A loop that
 * read a stale cell goes round once more; a cell misread low lowers nothing, which the closing
 * sweep finds and relaxes again. */
#if DIST_KIND == 1 || DIST_KIND == 3
#if defined(cl_khr_int64_extended_atomics) && !defined(SSSP_FORCE_CAS)
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
static cell_t cell_min(volatile __global cell_t *p, const cell_t c) {
    return atom_min(p, c);
}
#else
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
static cell_t cell_min(volatile __global cell_t *p, const cell_t c) {
    cell_t old = *p;
    while (c < old) {
        const cell_t seen = atom_cmpxchg(p, old, c);
        if (seen == old)
            break;
        old = seen;
    }
    return old;
}
#endif
#else
static cell_t cell_min(volatile __global cell_t *p, const cell_t c) {
    return atomic_min(p, c);
}
#endif

/* The cell of d + w; an integer sum at or below the type's floor sets the cycle flag. */
static cell_t relaxed(const dist_t d, const weight_t w, volatile __global uint *flags) {
#if DIST_KIND == 0 || DIST_KIND == 1
    long sum = (long)d + w;
    if (sum <= -CELL_INF) {
        sum = -CELL_INF;
        flags[F_CYCLE] = 1;
    }
    return (cell_t)sum;
#else
    return as_cell(d + w);
#endif
}

/* A distance's bucket key (above). */
static int key_of(const dist_t d, const float key_scale) {
#if DIST_KIND == 0
    return d;
#else
    const float k = (float)d * key_scale;
    return k >= (float)(INF - 1) ? INF - 1 : k <= (float)-INF ? -INF : (int)k;
#endif
}

/* APPEND_LOCAL (src/opencl/sssp_setup.c passes it): 1, a work-group stages its appends of a chunk
 * in local memory and reserves each list's range with one global atomic_add; 0, every append takes
 * its own global atomic_inc on the list's one counter (the first form, kept to time against). */
#ifndef APPEND_LOCAL
#define APPEND_LOCAL 1
#endif

/* A work-group's staging of one chunk's appends: the slots asked for (past `capacity` an append
 * goes straight to the global list), the far pairs' least distance, and for the copy the
 * staged count and the range reserved in each list. */
typedef struct {
    uint next_fill, far_fill;
    int far_least;
    uint next_staged, far_staged, next_base, far_base;
} group_appends;

/* Where a round's lowered pairs go: below the threshold `next`, else the current far list (its
 * count and least distance in flags); with APPEND_LOCAL through the group's staging, `capacity`
 * pairs of each list. */
typedef struct {
    int threshold;
    __global uint *next, *far;
    volatile __global uint *next_count, *far_count;
    volatile __global int *far_least;
    __local uint *next_stage, *far_stage;
    volatile __local group_appends *group;
    uint capacity;
} round_lists;

/* `item` into `list`: a slot of the group's stage while there is one, else the global list's
 * own counter (a pair of unbounded out-degree overflows the stage; nothing waits for room). A
 * full stage is not asked again, so `fill` stays below capacity + the group's items, however
 * many pairs a chunk lowers. */
static void append(const uint item, __global uint *list, volatile __global uint *count,
                   __local uint *stage, volatile __local uint *fill, const uint capacity) {
#if APPEND_LOCAL
    if (*fill < capacity) {
        const uint slot = atomic_inc(fill);
        if (slot < capacity) {
            stage[slot] = item;
            return;
        }
    }
#endif
    list[atomic_inc(count)] = item;
}

/* Pair `item`, lowered to a distance of key `key`: into the next frontier when below the
 * threshold, else into the far list (its least key kept: the group's, which flush_appends
 * carries over). */
static void queue_pair(const uint item, const int key, const round_lists *to) {
    if (key < to->threshold) {
        append(item, to->next, to->next_count, to->next_stage, &to->group->next_fill, to->capacity);
        return;
    }
#if APPEND_LOCAL
    atomic_min(&to->group->far_least, key);
#else
    atomic_min(to->far_least, key);
#endif
    append(item, to->far, to->far_count, to->far_stage, &to->group->far_fill, to->capacity);
}

/* The group's staging empty, before its first chunk. */
static void start_appends(const round_lists *to) {
#if APPEND_LOCAL
    if (get_local_id(0) == 0) {
        to->group->next_fill = to->group->far_fill = 0;
        to->group->far_least = INF;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
}

/* After a chunk, every work-item of the group (barriers): one atomic_add per list reserves the
 * range for the staged pairs, one atomic_min carries the far pairs' least distance, and the group
 * copies the pairs over; the stage is empty again for the next chunk. */
static void flush_appends(const round_lists *to) {
#if APPEND_LOCAL
    volatile __local group_appends *g = to->group;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        g->next_staged = min(g->next_fill, to->capacity);
        g->far_staged = min(g->far_fill, to->capacity);
        g->next_base = g->next_staged ? atomic_add(to->next_count, g->next_staged) : 0;
        g->far_base = g->far_staged ? atomic_add(to->far_count, g->far_staged) : 0;
        if (g->far_least < INF)
            atomic_min(to->far_least, g->far_least);
        g->next_fill = g->far_fill = 0;
        g->far_least = INF;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint next_staged = g->next_staged, far_staged = g->far_staged;
    const uint next_base = g->next_base, far_base = g->far_base;
    for (uint i = get_local_id(0); i < next_staged; i += get_local_size(0))
        to->next[next_base + i] = to->next_stage[i];
    for (uint i = get_local_id(0); i < far_staged; i += get_local_size(0))
        to->far[far_base + i] = to->far_stage[i];
    barrier(CLK_LOCAL_MEM_FENCE); /* the stage read before the next chunk writes it */
#endif
}

/* Relaxes the out-edges of pair `item` (b V + u) whose distance is d; queues what it lowers
 * first (its queued bit). */
static void relax_pair(const uint item, const uint vertices, const dist_t d,
                       __global const uint *restrict start, __global const int *restrict target,
                       __global const weight_t *restrict weight, volatile __global cell_t *dist,
                       volatile __global uint *queued, volatile __global uint *flags,
                       const float key_scale, const round_lists *to) {
    const uint u = item % vertices, row = item - u;
    const uint end = start[u + 1];
    for (uint e = start[u]; e < end; e++) {
        const uint t = row + (uint)target[e];
        const cell_t candidate = relaxed(d, weight[e], flags);
        if (candidate < dist[t] && candidate < cell_min(&dist[t], candidate)) {
            const uint bit = 1u << (t & 31);
            if (!(atomic_or(&queued[t >> 5], bit) & bit))
                queue_pair(t, key_of(as_dist(candidate), key_scale), to);
        }
    }
}

/* The batch's start: d(b, source b) = 0 (the block is INF already), each source queued, the
 * first bucket [.., delta). */
__kernel void sssp_start(__global const int *restrict sources, const uint count,
                         const uint vertices, const int delta, __global cell_t *restrict dist,
                         __global uint *restrict queued, __global uint *restrict frontier,
                         __global uint *restrict counters, __global uint *restrict flags) {
    const uint b = get_global_id(0);
    if (b == 0) {
        counters[0] = count;
        counters[1] = counters[2] = 0;
        flags[F_CYCLE] = 0;
        flags[F_THRESHOLD] = (uint)delta;
        flags[F_FAR_CUR] = 0;
        flags[F_FAR_COUNT] = flags[F_FAR_COUNT + 1] = 0;
        flags[F_FAR_MIN] = flags[F_FAR_MIN + 1] = (uint)INF;
        flags[F_FILTER] = flags[F_DONE] = flags[F_UNTIGHT] = 0;
    }
    if (b >= count)
        return;
    const uint item = b * vertices + (uint)sources[b];
    dist[item] = 0;
    atomic_or(&queued[item >> 5], 1u << (item & 31));
    frontier[b] = item;
}

/* After a round, its last work-group: the old far list, if this round sorted it, is empty now;
 * when the next frontier is empty and the current far list is not, the threshold moves to that
 * list's least distance + delta, the other list becomes current, and the next round sorts the
 * old one first. */
static void advance(const uint round, const int delta, volatile __global uint *counters,
                    volatile __global uint *flags) {
    const uint cur = flags[F_FAR_CUR];
    if (flags[F_FILTER])
        flags[F_FAR_COUNT + 1 - cur] = 0;
    flags[F_FILTER] = 0;
    flags[F_DONE] = 0;
    if (counters[(round + 1) % 3] == 0 && flags[F_FAR_COUNT + cur] > 0) {
        const long next = (long)(int)flags[F_FAR_MIN + cur] + delta;
        flags[F_THRESHOLD] = (uint)(int)(next < INF ? next : INF);
        flags[F_FAR_MIN + 1 - cur] = (uint)INF;
        flags[F_FAR_CUR] = 1 - cur;
        flags[F_FILTER] = 1;
    }
}

/* Round `round`, one launch: the old far list sorted when the last round moved the threshold
 * (its pairs below the threshold into `next`, the others into the current list), then the
 * pairs of `frontier` (counters[round % 3] of them) relaxed, what they lower into `next` or the
 * current far list; the last work-group to finish advances the threshold. The state the round
 * reads (threshold, current list, filter) changes only in that last group, after every other
 * group is done with it. The loops stride by chunks of the grid from the group's first item, so
 * every item of a group takes the same number of chunks and meets each flush's barriers; `stage`
 * holds `capacity` pairs for each list (unused without APPEND_LOCAL). */
__kernel void sssp_relax(const uint round, const uint vertices, const int delta,
                         __global const uint *restrict start, __global const int *restrict target,
                         __global const weight_t *restrict weight, volatile __global cell_t *dist,
                         volatile __global uint *queued, __global const uint *restrict frontier,
                         __global uint *restrict next, volatile __global uint *counters,
                         volatile __global uint *flags, __global uint *far0, __global uint *far1,
                         __local uint *stage, const uint capacity, const float key_scale) {
    __local int last;
    __local group_appends group;
    const uint count = counters[round % 3];
    const uint cur = flags[F_FAR_CUR];
    const uint old_count = flags[F_FILTER] ? flags[F_FAR_COUNT + 1 - cur] : 0;
    __global const uint *old = cur ? far0 : far1;
    const round_lists to = {(int)flags[F_THRESHOLD],
                            next,
                            cur ? far1 : far0,
                            &counters[(round + 1) % 3],
                            &flags[F_FAR_COUNT + cur],
                            (volatile __global int *)&flags[F_FAR_MIN + cur],
                            stage,
                            stage + capacity,
                            &group,
                            capacity};
    const size_t step = get_global_size(0), first = get_group_id(0) * get_local_size(0);
    const size_t lid = get_local_id(0);
    if (get_global_id(0) == 0) { /* and the run's pairs, a 64-bit count */
        counters[(round + 2) % 3] = 0;
        const uint low = flags[F_PAIRS] + count;
        flags[F_PAIRS + 1] += low < flags[F_PAIRS];
        flags[F_PAIRS] = low;
    }
    start_appends(&to);
    for (size_t chunk = first; chunk < old_count; chunk += step) {
        if (chunk + lid < old_count) {
            const uint item = old[chunk + lid];
            queue_pair(item, key_of(as_dist(dist[item]), key_scale), &to);
        }
        flush_appends(&to);
    }
    for (size_t chunk = first; chunk < count; chunk += step) {
        const uint item = chunk + lid < count ? frontier[chunk + lid] : 0;
        const int key = chunk + lid < count ? key_of(as_dist(dist[item]), key_scale) : INF;
        if (key < to.threshold) {
            atomic_and(&queued[item >> 5], ~(1u << (item & 31)));
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            relax_pair(item, vertices, as_dist(dist[item]), start, target, weight, dist, queued,
                       flags, key_scale, &to);
        } else if (chunk + lid < count) { /* (a sweep's pair) */
            queue_pair(item, key, &to);
        }
        flush_appends(&to);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_inc(&flags[F_DONE]) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (last && lid == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        advance(round, delta, counters, flags);
    }
}

/* Every reached pair of the block relaxed once more, into `next` (counters[next_slot], zero
 * before): after the frontier ran dry, a fixed point is proved by this sweep finding nothing,
 * whatever the device's memory order did inside the rounds. Its chunks and stage as the round's
 * (the threshold INF: no far list). */
__kernel void sssp_sweep(const uint pairs, const uint vertices, const uint next_slot,
                         __global const uint *restrict start, __global const int *restrict target,
                         __global const weight_t *restrict weight, volatile __global cell_t *dist,
                         volatile __global uint *queued, __global uint *restrict next,
                         volatile __global uint *counters, volatile __global uint *flags,
                         __local uint *stage, const uint capacity, const float key_scale) {
    __local group_appends group;
    const round_lists to = {INF,
                            next,
                            next,
                            &counters[next_slot],
                            &counters[next_slot],
                            (volatile __global int *)&flags[F_FAR_MIN],
                            stage,
                            stage + capacity,
                            &group,
                            capacity};
    const size_t step = get_global_size(0), first = get_group_id(0) * get_local_size(0);
    start_appends(&to);
    for (size_t chunk = first; chunk < pairs; chunk += step) {
        const size_t i = chunk + get_local_id(0);
        const cell_t c = i < pairs ? dist[i] : CELL_INF;
        if (c < CELL_INF)
            relax_pair((uint)i, vertices, as_dist(c), start, target, weight, dist, queued, flags,
                       key_scale, &to);
        flush_appends(&to);
    }
}

/* The batch's predecessors into `pred` (B x V, APSP_NO_PREDECESSOR for none), from the in-edges
 * (in_start, in_source by u within each vertex, in_weight) once the distances are final: the
 * rule is the header's; F_UNTIGHT where a reached vertex has no such edge. */
__kernel void sssp_pred(const uint pairs, const uint vertices, __global const int *restrict sources,
                        __global const uint *restrict in_start,
                        __global const int *restrict in_source,
                        __global const weight_t *restrict in_weight,
                        __global const cell_t *restrict dist, __global int *restrict pred,
                        volatile __global uint *flags) {
    const uint i = get_global_id(0);
    if (i >= pairs)
        return;
    const uint v = i % vertices, row = i - v;
    const cell_t c = dist[i];
    int p = -9999; /* APSP_NO_PREDECESSOR */
    if (c < CELL_INF && (uint)sources[row / vertices] != v) {
        for (uint e = in_start[v]; e < in_start[v + 1] && p < 0; e++) {
            const cell_t cu = dist[row + (uint)in_source[e]];
            if (cu < c && relaxed(as_dist(cu), in_weight[e], flags) == c)
                p = in_source[e];
        }
        if (p < 0)
            flags[F_UNTIGHT] = 1;
    }
    pred[i] = p;
}
