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
 * proves a negative cycle: it is stored as -INF (no overflow) and flags[0] is set. flags[1] and
 * flags[2] count the pairs the rounds took, for the host's figures.
 *
 * Without negative weights the rounds follow delta-stepping with one threshold for the whole
 * batch (every source starts at 0, so their buckets advance together): a pair is relaxed only
 * once its distance is below the threshold, which keeps the rounds from racing ahead along
 * paths of few heavy edges that later ones undo (plain Bellman-Ford relaxed each pair of the
 * 1000 x 1000 grid 38 times). */
#define INF 1073741823

/* Relaxes the out-edges of pair `item` (b V + u) whose distance is d; appends what it lowers. */
static void relax_pair(const uint item, const uint vertices, const int d,
                       __global const uint *restrict start, __global const int *restrict target,
                       __global const int *restrict weight, volatile __global int *dist,
                       volatile __global uint *queued, __global uint *restrict next,
                       volatile __global uint *next_count, volatile __global uint *flags) {
    const uint u = item % vertices, row = item - u;
    const uint end = start[u + 1];
    for (uint e = start[u]; e < end; e++) {
        long sum = (long)d + weight[e];
        if (sum <= -INF) {
            sum = -INF;
            flags[0] = 1;
        }
        const uint t = row + (uint)target[e];
        const int candidate = (int)sum;
        if (candidate < dist[t] && candidate < atomic_min(&dist[t], candidate)) {
            const uint bit = 1u << (t & 31);
            if (!(atomic_or(&queued[t >> 5], bit) & bit))
                next[atomic_inc(next_count)] = t;
        }
    }
}

/* The batch's start: d(b, source b) = 0 (the block is INF already), each source queued. */
__kernel void sssp_start(__global const int *restrict sources, const uint count,
                         const uint vertices, const int delta, __global int *restrict dist,
                         __global uint *restrict queued, __global uint *restrict frontier,
                         __global uint *restrict counters, __global uint *restrict flags) {
    const uint b = get_global_id(0);
    if (b == 0) {
        counters[0] = count;
        counters[1] = counters[2] = 0;
        flags[0] = 0;
        flags[3] = (uint)delta; /* the first bucket: [0, delta) */
        flags[4] = 0;
        flags[5] = (uint)INF;
    }
    if (b >= count)
        return;
    const uint item = b * vertices + (uint)sources[b];
    dist[item] = 0;
    atomic_or(&queued[item >> 5], 1u << (item & 31));
    frontier[b] = item;
}

/* Round `round`: the pairs of `frontier` (counters[round % 3] of them) relaxed into `next`.
 * Delta-stepping: a pair at or past the threshold flags[3] waits (it goes into `next` again, its
 * queued bit kept, and flags[5] takes the least such distance); one below it is relaxed (and
 * flags[4] says that some pair was). sssp_advance moves the threshold on when a round relaxed
 * nothing. Without a threshold (INF: negative weights) this is Bellman-Ford by rounds. */
__kernel void sssp_relax(const uint round, const uint vertices, __global const uint *restrict start,
                         __global const int *restrict target, __global const int *restrict weight,
                         volatile __global int *dist, volatile __global uint *queued,
                         __global const uint *restrict frontier, __global uint *restrict next,
                         volatile __global uint *counters, volatile __global uint *flags) {
    const uint count = counters[round % 3];
    const int threshold = (int)flags[3];
    volatile __global uint *next_count = &counters[(round + 1) % 3];
    const size_t step = get_global_size(0);
    if (get_global_id(0) == 0) { /* and the run's pairs, a 64-bit count in flags[1], [2] */
        counters[(round + 2) % 3] = 0;
        const uint low = flags[1] + count;
        flags[2] += low < flags[1];
        flags[1] = low;
    }
    int relaxed = 0;
    for (size_t i = get_global_id(0); i < count; i += step) {
        const uint item = frontier[i];
        const int d = dist[item];
        if (d >= threshold) {
            atomic_min((volatile __global int *)&flags[5], d);
            next[atomic_inc(next_count)] = item;
            continue;
        }
        atomic_and(&queued[item >> 5], ~(1u << (item & 31)));
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        relax_pair(item, vertices, dist[item], start, target, weight, dist, queued, next,
                   next_count, flags);
        relaxed = 1;
    }
    if (relaxed)
        flags[4] = 1;
}

/* After round `round`, one work-item: a round that relaxed nothing (every pair waited) moves
 * the threshold to the least waiting distance + delta, so the next one relaxes something. */
__kernel void sssp_advance(const uint round, const int delta, volatile __global uint *counters,
                           volatile __global uint *flags) {
    if (flags[4] == 0 && counters[(round + 1) % 3] > 0) {
        const long next = (long)(int)flags[5] + delta;
        flags[3] = (uint)(int)(next < INF ? next : INF);
    }
    flags[4] = 0;
    flags[5] = (uint)INF;
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
            relax_pair((uint)i, vertices, d, start, target, weight, dist, queued, next,
                       &counters[next_slot], flags);
    }
}
