/* Two defects of Oclgrind's --uninitialized plugin (Oclgrind 21.10, Debian 12), reduced from what
 * it reported on apsp (docs/reliability.md, "Oclgrind"); no apsp code involved.
 *
 *   oclgrind [--uninitialized] oclgrind-uninit CASE      CASE: whole, rect, offset or freeze
 *
 * Each case fills a 4 x 8 int buffer from the host, runs a one-line kernel over it and checks what
 * comes back:
 *   whole   one clEnqueueWriteBuffer of the whole buffer, kernel dst[i] = src[i]: the control,
 *           which --uninitialized passes without a report;
 *   rect    one clEnqueueWriteBufferRect of all 4 rows (every byte written), the same kernel:
 *           --uninitialized reports every value "uninitialized" (apsp's upload to its row bands);
 *   offset  two clEnqueueWriteBuffer calls, one per half: the same reports. The plugin's
 *           hostMemoryStore replaces the buffer's whole shadow by one of the store's size at the
 *           buffer's start, so a host write that is not one whole-buffer write leaves the shadow
 *           wrong (src/plugins/Uninitialized.cpp, ShadowMemory::allocate);
 *   freeze  dst[i] = src[i] / d + src[i] % d with d an argument, for which the compiler emits
 *           LLVM's `freeze` instruction: the plugin stops with "OCLGRIND FATAL ERROR ...
 *           Unsupported instruction: freeze", the work-groups left to that worker never run,
 *           and the kernel still completes with CL_SUCCESS, so the results are silently wrong
 *           (apsp's work-group phase 3; fixed upstream in Oclgrind 26.03.1).
 * Without --uninitialized every case is right and silent. Exit status: 0 when the values read
 * back are right, 1 when they are wrong (the freeze case under --uninitialized), 2 on an OpenCL
 * error, 77 when there is no OpenCL device. Whether Oclgrind reported anything is for the caller
 * to see on stderr (tests/opencl/oclgrind.py --uninit-demo runs all four cases both ways). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdio.h>
#include <string.h>

enum { ROWS = 4, COLS = 8, DIVISOR = 3 };

static const char *source = "__kernel void copy(__global int *dst, __global const int *src) {\n"
                            "    const int i = get_global_id(0);\n"
                            "    dst[i] = src[i];\n"
                            "}\n"
                            "__kernel void divide(__global int *dst, __global const int *src,\n"
                            "                     int d) {\n"
                            "    const int i = get_global_id(0);\n"
                            "    dst[i] = src[i] / d + src[i] % d;\n"
                            "}\n";

#define CHECK_CL(call)                                                                             \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS) {                                                                  \
            fprintf(stderr, "oclgrind-uninit: %s failed: %d\n", #call, err_);                      \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    const char *mode = argc == 2 ? argv[1] : "";
    if (strcmp(mode, "whole") && strcmp(mode, "rect") && strcmp(mode, "offset") &&
        strcmp(mode, "freeze")) {
        fprintf(stderr, "usage: oclgrind-uninit whole|rect|offset|freeze\n");
        return 2;
    }
    cl_platform_id platform;
    cl_device_id device;
    cl_uint count = 0;
    if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || count == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) {
        fprintf(stderr, "oclgrind-uninit: no OpenCL device\n");
        return 77;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK_CL(err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK_CL(err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK_CL(err);
    CHECK_CL(clBuildProgram(program, 1, &device, "", NULL, NULL));
    int freeze = strcmp(mode, "freeze") == 0;
    cl_kernel kernel = clCreateKernel(program, freeze ? "divide" : "copy", &err);
    CHECK_CL(err);

    const size_t bytes = ROWS * COLS * sizeof(cl_int);
    cl_int host[ROWS * COLS], back[ROWS * COLS] = {0};
    for (int i = 0; i < ROWS * COLS; i++)
        host[i] = 10 * i + 7;
    cl_mem src = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    CHECK_CL(err);
    cl_mem dst = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CHECK_CL(err);

    if (strcmp(mode, "rect") == 0) {
        /* The whole buffer as ROWS rows of COLS ints: Oclgrind stores it row by row. */
        const size_t origin[3] = {0, 0, 0}, region[3] = {COLS * sizeof(cl_int), ROWS, 1};
        CHECK_CL(clEnqueueWriteBufferRect(queue, src, CL_TRUE, origin, origin, region,
                                          COLS * sizeof(cl_int), 0, COLS * sizeof(cl_int), 0, host,
                                          0, NULL, NULL));
    } else if (strcmp(mode, "offset") == 0) {
        CHECK_CL(clEnqueueWriteBuffer(queue, src, CL_TRUE, 0, bytes / 2, host, 0, NULL, NULL));
        CHECK_CL(clEnqueueWriteBuffer(queue, src, CL_TRUE, bytes / 2, bytes / 2,
                                      host + ROWS * COLS / 2, 0, NULL, NULL));
    } else {
        CHECK_CL(clEnqueueWriteBuffer(queue, src, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
    }

    cl_int divisor = DIVISOR;
    CHECK_CL(clSetKernelArg(kernel, 0, sizeof dst, &dst));
    CHECK_CL(clSetKernelArg(kernel, 1, sizeof src, &src));
    if (freeze)
        CHECK_CL(clSetKernelArg(kernel, 2, sizeof divisor, &divisor));
    /* Work-groups of one item, so that each of Oclgrind's worker threads has several. */
    const size_t global = ROWS * COLS, local = 1;
    CHECK_CL(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK_CL(clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, bytes, back, 0, NULL, NULL));

    int wrong = 0;
    for (int i = 0; i < ROWS * COLS; i++) {
        cl_int want = freeze ? host[i] / DIVISOR + host[i] % DIVISOR : host[i];
        wrong += back[i] != want;
    }
    printf("oclgrind-uninit %s: %d of %d values wrong\n", mode, wrong, ROWS * COLS);

    clReleaseMemObject(dst);
    clReleaseMemObject(src);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return wrong ? 1 : 0;
}
