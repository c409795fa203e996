/* What starting OpenCL costs a process before apsp does anything of its own (issue 14's warm
 * set-up target): the ICD loader loading every vendor's platform, the device query, a context
 * and a queue on the first device of the type asked for, then their release. Each run is a
 * process of its own, as apsp is; run it several times and read the medians:
 *   build/tests/bench/opencl-start [gpu|cpu|all]
 * It prints one line of milliseconds per step. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static cl_device_type type_named(const char *name) {
    if (strcmp(name, "cpu") == 0)
        return CL_DEVICE_TYPE_CPU;
    if (strcmp(name, "all") == 0)
        return CL_DEVICE_TYPE_ALL;
    return CL_DEVICE_TYPE_GPU;
}

int main(int argc, char **argv) {
    cl_device_type type = type_named(argc > 1 ? argv[1] : "gpu");
    double t0 = now_ms();
    cl_platform_id platforms[16];
    cl_uint count = 0;
    if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS || count == 0) {
        fprintf(stderr, "opencl-start: no OpenCL platform\n");
        return 1;
    }
    double t1 = now_ms();
    cl_device_id device = NULL;
    for (cl_uint p = 0; p < count && !device; p++)
        if (clGetDeviceIDs(platforms[p], type, 1, &device, NULL) != CL_SUCCESS)
            device = NULL;
    double t2 = now_ms();
    if (!device) {
        fprintf(stderr, "opencl-start: no device of that type\n");
        return 1;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    double t3 = now_ms();
    cl_command_queue queue = context ? clCreateCommandQueue(context, device, 0, &err) : NULL;
    if (queue)
        clFinish(queue);
    double t4 = now_ms();
    if (!queue) {
        fprintf(stderr, "opencl-start: no context or queue (error %d)\n", err);
        return 1;
    }
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    double t5 = now_ms();
    char name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("opencl-start: %u platform(s) %.1f ms, devices %.1f ms, context %.1f ms, queue %.1f ms, "
           "release %.1f ms, total %.1f ms (%s)\n",
           count, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t5 - t0, name);
    return 0;
}
