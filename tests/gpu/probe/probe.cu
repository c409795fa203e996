// Ceiling probe in CUDA, the same loop as probe.cl (read its comment): an M x M register tile of
// c = min(c, a + b), a and b read per step from shared memory as fw_phase3 reads them, for each
// element type and relaxation form. A second compiler's view of the same ceiling: NVIDIA's
// OpenCL and nvcc should agree within a few percent. Not part of the Meson build
// (tests/gpu/probe/run.sh builds it with nvcc).
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>

enum Form { MIN, FMIN, SELECT };
constexpr int STEPS = 16;

template <typename T, Form F> __device__ __forceinline__ T relax(T c, T a, T b) {
    if constexpr (F == MIN)
        return min(c, a + b);
    else if constexpr (F == FMIN)
        return fmin(c, a + b);
    else
        return a + b < c ? a + b : c;
}

template <typename T, Form F, int M, bool LOCAL> __global__ void probe(T *out, int iterations) {
    __shared__ T steps[STEPS][2 * M];
    for (int e = threadIdx.x; e < STEPS * 2 * M; e += blockDim.x)
        steps[e / (2 * M)][e % (2 * M)] = (T)((e * 7 + (int)blockIdx.x) & 1023);
    __syncthreads();
    T c[M][M];
#pragma unroll
    for (int y = 0; y < M; y++)
#pragma unroll
        for (int x = 0; x < M; x++)
            c[y][x] = (T)((1 << 20) + y * M + x + (int)threadIdx.x);
    T a[M], b[M];
#pragma unroll
    for (int y = 0; y < M; y++) {
        a[y] = steps[threadIdx.x & (STEPS - 1)][y];
        b[y] = steps[threadIdx.x & (STEPS - 1)][M + y];
    }
    for (int t = 0; t < iterations; t++) {
        if constexpr (LOCAL) {
            const T *step = steps[t & (STEPS - 1)];
#pragma unroll
            for (int y = 0; y < M; y++) {
                a[y] = step[y];
                b[y] = step[M + y];
            }
        }
#pragma unroll
        for (int y = 0; y < M; y++)
#pragma unroll
            for (int x = 0; x < M; x++)
                c[y][x] = relax<T, F>(c[y][x], a[y], b[x]);
        if constexpr (!LOCAL) {
#pragma unroll
            for (int y = 0; y < M; y++)
                a[y] -= (T)1;
        }
    }
    T sum = 0;
#pragma unroll
    for (int y = 0; y < M; y++)
#pragma unroll
        for (int x = 0; x < M; x++)
            sum += c[y][x];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <typename T, Form F, int M, bool LOCAL = true>
void run(const char *dtype, const char *form, int iterations, int reps) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int blocks = prop.multiProcessorCount * 8, threads = 256;
    T *out;
    cudaMalloc(&out, sizeof(T) * blocks * threads);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    float ms[16];
    for (int r = -1; r < reps; r++) { // r = -1: a warm-up
        cudaEventRecord(start);
        probe<T, F, M, LOCAL><<<blocks, threads>>>(out, iterations);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        if (r >= 0)
            cudaEventElapsedTime(&ms[r], start, stop);
    }
    std::sort(ms, ms + reps);
    double relaxations = (double)blocks * threads * iterations * M * M;
    printf("PROBE api=cuda device=\"%s\" dtype=%s form=%s operands=%s m=%d Trelax=%.2f%s\n",
           prop.name, dtype, form, LOCAL ? "local" : "registers", M, relaxations / (ms[reps / 2] * 1e-3) / 1e12,
           cudaGetLastError() == cudaSuccess ? "" : " ERROR");
    cudaFree(out);
}

int main() {
    const int reps = 5;
    run<int, MIN, 8>("int32", "min", 20000, reps);
    run<float, FMIN, 8>("float32", "fmin", 20000, reps);
    run<float, SELECT, 8>("float32", "select", 20000, reps);
    run<long long, MIN, 8>("int64", "min", 4000, reps);
    run<long long, MIN, 4>("int64", "min", 4000, reps);
    run<double, FMIN, 8>("float64", "fmin", 4000, reps);
    run<double, SELECT, 8>("float64", "select", 4000, reps);
    run<double, SELECT, 4>("float64", "select", 4000, reps);
    run<int, MIN, 8, false>("int32", "min", 20000, reps);
    run<float, FMIN, 8, false>("float32", "fmin", 20000, reps);
    run<long long, MIN, 8, false>("int64", "min", 4000, reps);
    run<double, SELECT, 8, false>("float64", "select", 4000, reps);
    return 0;
}
