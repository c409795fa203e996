// The course's two-GPU scheme (hw3-3), written here as a yardstick for apsp on several GPUs:
// blocked Floyd-Warshall with B = 64 (32 x 32 threads, 2 x 2 cells each), one OpenMP thread per
// GPU, each GPU holding the whole matrix and computing phases 1 and 2 in full, phase 3 on its
// half of the block rows; at the start of every round the owner of the pivot block row copies
// it to the host and the other GPU copies it in. Not project code.
//   fw_cuda2 IN.hw3 [OUT]     prints the kernel time, relax/s and the checksum bench.c prints
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <omp.h>
#include <vector>

#define INF 1073741823
#define B 64
#define H 32
#define CHECK(x)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));          \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

// The pivot block, k-ordered in shared memory.
__global__ void close_pivot(int *d, int n, int r) {
    __shared__ int s[B][B];
    const int x = threadIdx.x, y = threadIdx.y, o = r * B;
    for (int i = y; i < B; i += H)
        for (int j = x; j < B; j += H)
            s[i][j] = d[(size_t)(o + i) * n + o + j];
    __syncthreads();
    for (int k = 0; k < B; k++) {
        for (int i = y; i < B; i += H)
            for (int j = x; j < B; j += H)
                s[i][j] = min(s[i][j], s[i][k] + s[k][j]);
        __syncthreads();
    }
    for (int i = y; i < B; i += H)
        for (int j = x; j < B; j += H)
            d[(size_t)(o + i) * n + o + j] = s[i][j];
}

// blockIdx.y == 0: the pivot row block (r, blockIdx.x); 1: the pivot column block (x, r).
__global__ void pivot_row_col(int *d, int n, int r) {
    __shared__ int p[B][B], c[B][B];
    const int t = blockIdx.x, x = threadIdx.x, y = threadIdx.y, o = r * B;
    if (t == r)
        return;
    const int row = blockIdx.y == 0 ? o : t * B, col = blockIdx.y == 0 ? t * B : o;
    for (int i = y; i < B; i += H)
        for (int j = x; j < B; j += H) {
            p[i][j] = d[(size_t)(o + i) * n + o + j];
            c[i][j] = d[(size_t)(row + i) * n + col + j];
        }
    __syncthreads();
    for (int k = 0; k < B; k++) {
        for (int i = y; i < B; i += H)
            for (int j = x; j < B; j += H)
                c[i][j] = blockIdx.y == 0 ? min(c[i][j], p[i][k] + c[k][j])
                                          : min(c[i][j], c[i][k] + p[k][j]);
        __syncthreads();
    }
    for (int i = y; i < B; i += H)
        for (int j = x; j < B; j += H)
            d[(size_t)(row + i) * n + col + j] = c[i][j];
}

// Every other block of block rows first_row + blockIdx.y: C = min(C, A(i, r) + B(r, j)).
__global__ void relax(int *d, int n, int r, int first_row) {
    __shared__ int a[B][B], b[B][B];
    const int bi = first_row + blockIdx.y, bj = blockIdx.x, x = threadIdx.x, y = threadIdx.y;
    if (bi == r || bj == r)
        return;
    const int o = r * B;
    for (int i = y; i < B; i += H)
        for (int j = x; j < B; j += H) {
            a[i][j] = d[(size_t)(bi * B + i) * n + o + j];
            b[i][j] = d[(size_t)(o + i) * n + bj * B + j];
        }
    __syncthreads();
    int c[2][2];
    for (int u = 0; u < 2; u++)
        for (int v = 0; v < 2; v++)
            c[u][v] = d[(size_t)(bi * B + y + u * H) * n + bj * B + x + v * H];
#pragma unroll 16
    for (int k = 0; k < B; k++)
        for (int u = 0; u < 2; u++)
            for (int v = 0; v < 2; v++)
                c[u][v] = min(c[u][v], a[y + u * H][k] + b[k][x + v * H]);
    for (int u = 0; u < 2; u++)
        for (int v = 0; v < 2; v++)
            d[(size_t)(bi * B + y + u * H) * n + bj * B + x + v * H] = c[u][v];
}

static std::vector<int> read_hw3(const char *path, int *v, int *n) {
    FILE *f = fopen(path, "rb");
    int head[2];
    if (!f || fread(head, 4, 2, f) != 2) {
        fprintf(stderr, "fw_cuda2: cannot read %s\n", path);
        exit(1);
    }
    *v = head[0];
    *n = (*v + B - 1) / B * B;
    std::vector<int> m((size_t)*n * *n, INF);
    for (int i = 0; i < *n; i++)
        m[(size_t)i * *n + i] = 0;
    int e[3];
    for (int k = 0; k < head[1] && fread(e, 4, 3, f) == 3; k++)
        if (e[0] != e[1] && e[2] < m[(size_t)e[0] * *n + e[1]])
            m[(size_t)e[0] * *n + e[1]] = e[2];
    fclose(f);
    return m;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: fw_cuda2 IN.hw3 [OUT]\n");
        return 2;
    }
    int v, n;
    std::vector<int> m = read_hw3(argv[1], &v, &n);
    const int blocks = n / B, half = (blocks + 1) / 2;
    const size_t row_bytes = (size_t)B * n * sizeof(int);
    int *pivot_row;
    CHECK(cudaMallocHost(&pivot_row, row_bytes));
    double start = 0, stop = 0;
#pragma omp parallel num_threads(2)
    {
        const int id = omp_get_thread_num();
        CHECK(cudaSetDevice(id));
        int *d;
        CHECK(cudaMalloc(&d, (size_t)n * n * sizeof(int)));
        CHECK(cudaMemcpy(d, m.data(), (size_t)n * n * sizeof(int), cudaMemcpyHostToDevice));
        const int first = id * half, count = (id + 1) * half < blocks ? half : blocks - first;
        CHECK(cudaDeviceSynchronize());
#pragma omp barrier
#pragma omp single
        start = omp_get_wtime();
        for (int r = 0; r < blocks; r++) {
            const int owner = r / half;
            if (id == owner)
                CHECK(cudaMemcpy(pivot_row, d + (size_t)r * B * n, row_bytes,
                                 cudaMemcpyDeviceToHost));
#pragma omp barrier
            if (id != owner)
                CHECK(cudaMemcpy(d + (size_t)r * B * n, pivot_row, row_bytes,
                                 cudaMemcpyHostToDevice));
#pragma omp barrier
            close_pivot<<<1, dim3(H, H)>>>(d, n, r);
            pivot_row_col<<<dim3(blocks, 2), dim3(H, H)>>>(d, n, r);
            if (count > 0)
                relax<<<dim3(blocks, count), dim3(H, H)>>>(d, n, r, first);
        }
        CHECK(cudaDeviceSynchronize());
#pragma omp barrier
#pragma omp single
        stop = omp_get_wtime();
        if (count > 0)
            CHECK(cudaMemcpy(m.data() + (size_t)first * B * n, d + (size_t)first * B * n,
                             (size_t)count * row_bytes, cudaMemcpyDeviceToHost));
        CHECK(cudaFree(d));
    }
    uint64_t checksum = 1469598103934665603ull;
    for (int i = 0; i < v; i++)
        for (int j = 0; j < v; j++) {
            checksum ^= (uint32_t)m[(size_t)i * n + j];
            checksum *= 1099511628211ull;
        }
    double seconds = stop - start;
    printf("FW_CUDA2 V=%d n=%d kernels_s=%.4f Trelax_n=%.2f checksum=%016llx\n", v, n, seconds,
           (double)n * n * n / seconds / 1e12, (unsigned long long)checksum);
    if (argc > 2) {
        FILE *f = fopen(argv[2], "wb");
        for (int i = 0; f && i < v; i++)
            fwrite(&m[(size_t)i * n], 4, (size_t)v, f);
        if (f)
            fclose(f);
    }
    return 0;
}
