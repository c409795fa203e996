/* Ceiling probes on the first OpenCL GPU (or CPU, for a check of the probe itself): probe.cl
 * for each element type and relaxation form fw.cl uses, each timed REPS times, the median
 * printed as relaxations per second. Not part of the Meson build (tests/gpu/probe/run.sh
 * builds it).
 *   probe [PROBE_CL] [REPS] [gpu|cpu]
 * Prints one line per probe: `PROBE ... dtype=float32 form=fmin operands=local m=8 Trelax=...`. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct probe_kind {
    const char *dtype, *form, *defines;
    size_t cell; /* bytes */
    int iterations;
} probe_kind;

static const probe_kind kinds[] = {
    {"int32", "min", "-DDIST=int -DFORM=0", 4, 20000},
    {"float32", "fmin", "-DDIST=float -DFORM=1", 4, 20000},
    {"float32", "select", "-DDIST=float -DFORM=2", 4, 20000},
    {"int64", "min", "-DDIST=long -DFORM=0", 8, 4000},
    {"float64", "fmin", "-DDIST=double -DFORM=1 -DFP64", 8, 4000},
    {"float64", "select", "-DDIST=double -DFORM=2 -DFP64", 8, 4000},
};

static void check(cl_int status, const char *what) {
    if (status != CL_SUCCESS) {
        fprintf(stderr, "probe: %s: OpenCL error %d\n", what, status);
        exit(1);
    }
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static cl_device_id find_device(cl_device_type type) {
    cl_platform_id platforms[16];
    cl_uint count = 0;
    check(clGetPlatformIDs(16, platforms, &count), "clGetPlatformIDs");
    for (cl_uint p = 0; p < count; p++) {
        cl_device_id device;
        cl_uint found = 0;
        if (clGetDeviceIDs(platforms[p], type, 1, &device, &found) == CL_SUCCESS && found)
            return device;
    }
    fprintf(stderr, "probe: no OpenCL device of that type\n");
    exit(77);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One probe: build with its defines, run REPS times on units x 8 work-groups of 256. */
static double run_probe(cl_context context, cl_command_queue queue, cl_device_id device,
                        const char *source, const probe_kind *kind, int m, int local_operands,
                        int reps) {
    cl_int status;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &status);
    check(status, "clCreateProgramWithSource");
    char options[256];
    snprintf(options, sizeof options, "%s -DM=%d -DLOCAL=%d", kind->defines, m, local_operands);
    if (clBuildProgram(program, 1, &device, options, NULL, NULL) != CL_SUCCESS) {
        static char log[1 << 16];
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "probe: build %s: %s\n", options, log);
        exit(1);
    }
    cl_kernel kernel = clCreateKernel(program, "probe", &status);
    check(status, "clCreateKernel");
    cl_uint units;
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    size_t local = 256, global = (size_t)units * 8 * local;
    cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, global * kind->cell, NULL, &status);
    check(status, "clCreateBuffer");
    check(clSetKernelArg(kernel, 0, sizeof out, &out), "clSetKernelArg");
    check(clSetKernelArg(kernel, 1, sizeof kind->iterations, &kind->iterations), "clSetKernelArg");
    double seconds[16];
    for (int r = -1; r < reps; r++) { /* r = -1: a warm-up */
        double start = now();
        check(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL),
              "clEnqueueNDRangeKernel");
        check(clFinish(queue), "clFinish");
        if (r >= 0)
            seconds[r] = now() - start;
    }
    qsort(seconds, (size_t)reps, sizeof seconds[0], compare_doubles);
    clReleaseMemObject(out);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    return (double)global * kind->iterations * m * m / seconds[reps / 2];
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tests/gpu/probe/probe.cl";
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1 || reps > 16)
        reps = 5;
    const char *source = read_file(path);
    cl_device_id device = find_device(argc > 3 && strcmp(argv[3], "cpu") == 0 ? CL_DEVICE_TYPE_CPU
                                                                              : CL_DEVICE_TYPE_GPU);
    char name[256];
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_int status;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &status);
    check(status, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
    check(status, "clCreateCommandQueue");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int local = 1; local >= 0; local--)
            for (int m = 4; m <= 8; m += 4) {
                double rate = run_probe(context, queue, device, source, &kinds[k], m, local, reps);
                printf("PROBE api=opencl device=\"%s\" dtype=%s form=%s operands=%s m=%d "
                       "Trelax=%.2f\n",
                       name, kinds[k].dtype, kinds[k].form, local ? "local" : "registers", m,
                       rate / 1e12);
                fflush(stdout);
            }
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return 0;
}
