/* Distances from a batch of chosen sources on the device (src/opencl/sssp.c): Bellman-Ford over
 * a frontier of (source, vertex) pairs, a program of its own beside fw.cl.
 *
 * The distance block is B x V int32, row b the distances from the batch's source b, so a pair
 * (b, u) is the index b V + u, which is also how the frontier names it (B V < 2^32: the host
 * sizes the batch so). A row is what the output wants, so the rows come down with no transpose,
 * and the pairs of one source's wavefront are neighbours in the vertex order (a grid's ids are
 * row-major), which is the locality this layout keeps.
 *
 * A round (sssp_relax) takes the pairs lowered in the round before: for each (b, u) it clears
 * u's queued bit, reads d(b, u) and relaxes u's out-edges with atomic_min; a pair that it lowers
 * and whose queued bit it sets first goes into the next frontier (an atomic counter), so a pair
 * is there at most once. The bit is cleared before d is read, so a lowering that lands after the
 * read sets the bit again and queues the pair once more: nothing is lost, whatever the order in
 * which the work-items run. The grid strides over the frontier, whose size it reads from the
 * device (the host reads it only every few rounds). Three counters turn: round r reads
 * counters[r % 3], appends to counters[(r + 1) % 3] and zeroes counters[(r + 2) % 3], which round
 * r - 1 read and round r + 1 appends to.
 *
 * Integers are exact: sums in long, stored as int. Without a negative cycle every stored value is
 * the length of a path at least as long as the shortest, and d < INF, |w| <= (INF - 1) / (V - 1)
 * keep every sum within int. A sum at or below -INF is shorter than any simple path, so it
 * proves a negative cycle: it is stored as -INF (no overflow) and the cycle flag is set.
 *
 * Without negative weights the rounds follow delta-stepping with one threshold for the whole
 * batch (every source starts at 0, so their buckets advance together): a lowered pair at or
 * past the threshold goes into a far list instead of the next frontier (its queued bit kept, so
 * it is in one of them at most once), and once a round leaves the next frontier empty the
 * threshold moves to the far list's least distance + delta and the next round sorts the list
 * into its own next frontier and a new far list. That keeps the rounds from racing ahead along paths of few
 * heavy edges that later ones undo: plain Bellman-Ford took each pair of the 1000 x 1000 grid
 * 38 times. With negative weights the threshold is INF: Bellman-Ford by rounds. */
#define INF 1073741823

/* flags[]: a negative cycle; the pairs the rounds took (64 bits); delta-stepping's threshold;
 * which far list is current; the two lists' sizes and least distances; whether a round sorts
 * the old list first; the work-groups of the round that are done (sssp.c: FLAG_COUNT). */
#define F_CYCLE 0
#define F_PAIRS 1
#define F_THRESHOLD 3
#define F_FAR_CUR 4
#define F_FAR_COUNT 5
#define F_FAR_MIN 7
#define F_FILTER 9
#define F_DONE 10

/* Pair `item`, lowered: into the next frontier when below the threshold, else into far list
 * `cur` (its least distance kept). */
static void queue_pair(const uint item, const int d, const int threshold, __global uint *next,
                       volatile __global uint *next_count, __global uint *far, const uint cur,
                       volatile __global uint *flags) {
    if (d < threshold) {
        next[atomic_inc(next_count)] = item;
    } else {
        atomic_min((volatile __global int *)&flags[F_FAR_MIN + cur], d);
        far[atomic_inc(&flags[F_FAR_COUNT + cur])] = item;
    }
}

/* Relaxes the out-edges of pair `item` (b V + u) whose distance is d; queues what it lowers
 * first (its queued bit). */
static void relax_pair(const uint item, const uint vertices, const int d, const int threshold,
                       __global const uint *restrict start, __global const int *restrict target,
                       __global const int *restrict weight, volatile __global int *dist,
                       volatile __global uint *queued, __global uint *next,
                       volatile __global uint *next_count, __global uint *far, const uint cur,
                       volatile __global uint *flags) {
    const uint u = item % vertices, row = item - u;
    const uint end = start[u + 1];
    for (uint e = start[u]; e < end; e++) {
        long sum = (long)d + weight[e];
        if (sum <= -INF) {
            sum = -INF;
            flags[F_CYCLE] = 1;
        }
        const uint t = row + (uint)target[e];
        const int candidate = (int)sum;
        if (candidate < dist[t] && candidate < atomic_min(&dist[t], candidate)) {
            const uint bit = 1u << (t & 31);
            if (!(atomic_or(&queued[t >> 5], bit) & bit))
                queue_pair(t, candidate, threshold, next, next_count, far, cur, flags);
        }
    }
}

/* The batch's start: d(b, source b) = 0 (the block is INF already), each source queued, the
 * first bucket [.., delta). */
__kernel void sssp_start(__global const int *restrict sources, const uint count,
                         const uint vertices, const int delta, __global int *restrict dist,
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
        flags[F_FILTER] = flags[F_DONE] = 0;
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
 * group is done with it. */
__kernel void sssp_relax(const uint round, const uint vertices, const int delta,
                         __global const uint *restrict start, __global const int *restrict target,
                         __global const int *restrict weight, volatile __global int *dist,
                         volatile __global uint *queued, __global const uint *restrict frontier,
                         __global uint *restrict next, volatile __global uint *counters,
                         volatile __global uint *flags, __global uint *far0, __global uint *far1) {
    __local int last;
    const uint count = counters[round % 3];
    const int threshold = (int)flags[F_THRESHOLD];
    const uint cur = flags[F_FAR_CUR];
    const uint old_count = flags[F_FILTER] ? flags[F_FAR_COUNT + 1 - cur] : 0;
    __global uint *far = cur ? far1 : far0;
    __global const uint *old = cur ? far0 : far1;
    volatile __global uint *next_count = &counters[(round + 1) % 3];
    const size_t step = get_global_size(0);
    if (get_global_id(0) == 0) { /* and the run's pairs, a 64-bit count */
        counters[(round + 2) % 3] = 0;
        const uint low = flags[F_PAIRS] + count;
        flags[F_PAIRS + 1] += low < flags[F_PAIRS];
        flags[F_PAIRS] = low;
    }
    for (size_t i = get_global_id(0); i < old_count; i += step) {
        const uint item = old[i];
        queue_pair(item, dist[item], threshold, next, next_count, far, cur, flags);
    }
    for (size_t i = get_global_id(0); i < count; i += step) {
        const uint item = frontier[i];
        const int d = dist[item];
        if (d >= threshold) { /* (a sweep's pair) */
            queue_pair(item, d, threshold, next, next_count, far, cur, flags);
            continue;
        }
        atomic_and(&queued[item >> 5], ~(1u << (item & 31)));
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        relax_pair(item, vertices, dist[item], threshold, start, target, weight, dist, queued,
                   next, next_count, far, cur, flags);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_inc(&flags[F_DONE]) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (last && get_local_id(0) == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        advance(round, delta, counters, flags);
    }
}

/* Every reached pair of the block relaxed once more, into `next` (counters[next_slot], zero
 * before): after the frontier ran dry, a fixed point is proved by this sweep finding nothing,
 * whatever the device's memory order did inside the rounds. */
__kernel void sssp_sweep(const uint pairs, const uint vertices, const uint next_slot,
                         __global const uint *restrict start, __global const int *restrict target,
                         __global const int *restrict weight, volatile __global int *dist,
                         volatile __global uint *queued, __global uint *restrict next,
                         volatile __global uint *counters, volatile __global uint *flags) {
    const size_t step = get_global_size(0);
    for (size_t i = get_global_id(0); i < pairs; i += step) {
        const int d = dist[i];
        if (d < INF)
            relax_pair((uint)i, vertices, d, INF, start, target, weight, dist, queued, next,
                       &counters[next_slot], next, 0, flags);
    }
}
