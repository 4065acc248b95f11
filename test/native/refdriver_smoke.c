/* Exercises the CPU reference driver through the real Level Zero loader; prints key=value lines for the test to read. */
#include "l0_check.h"
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024

/* Structures the 1.8.12 headers lack, laid out as in newer headers and compute-runtime's ze_intel_gpu.h. */
typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t value;
} ext_u32;

static void props(ze_device_handle_t dev, int d)
{
    ext_u32 block = {(ze_structure_type_t)0x00030007, NULL, 0};
    ext_u32 ip = {(ze_structure_type_t)0x0001000f, &block, 0};
    ze_device_properties_t p = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, &ip};
    CHECK(zeDeviceGetProperties(dev, &p));
    ext_u32 dp = {(ze_structure_type_t)0x00030013, NULL, 0};
    ze_device_module_properties_t m = {ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, &dp};
    CHECK(zeDeviceGetModuleProperties(dev, &m));
    ze_device_compute_properties_t c = {ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    CHECK(zeDeviceGetComputeProperties(dev, &c));
    printf("device%d.name=%s\n", d, p.name);
    printf("device%d.type=%u\n", d, (unsigned)p.type);
    printf("device%d.vendorId=0x%x\n", d, p.vendorId);
    printf("device%d.deviceId=0x%x\n", d, p.deviceId);
    printf("device%d.ipVersion=0x%08x\n", d, ip.value);
    printf("device%d.blockFlags=%u\n", d, block.value);
    printf("device%d.dpFlags=%u\n", d, dp.value);
    printf("device%d.moduleFlags=%u\n", d, (unsigned)(m.flags & (ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64 | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS)));
    printf("device%d.subGroupSizes=", d);
    for (uint32_t i = 0; i < c.numSubGroupSizes; i++)
        printf("%s%u", i ? "," : "", c.subGroupSizes[i]);
    printf("\n");
}

static int check(const char *label, int d, const float *a, const float *b, const float *c)
{
    for (int i = 0; i < N; i++)
        if (c[i] != a[i] + b[i]) {
            printf("device%d.%s=mismatch index %d got %g expected %g\n", d, label, i, c[i], a[i] + b[i]);
            return 1;
        }
    printf("device%d.%s=ok\n", d, label);
    return 0;
}

static int run(ze_driver_handle_t drv, ze_device_handle_t dev, int d, const char *spv_path)
{
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(drv, &cd, &ctx));

    size_t size;
    unsigned char *spv = read_all(spv_path, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, spv, "", NULL};
    ze_module_handle_t mod;
    ze_module_build_log_handle_t log;
    CHECK(zeModuleCreate(ctx, dev, &md, &mod, &log));
    CHECK(zeModuleBuildLogDestroy(log));
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vector_add"};
    ze_kernel_handle_t k;
    CHECK(zeKernelCreate(mod, &kd, &k));
    ze_kernel_properties_t kp = {ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    CHECK(zeKernelGetProperties(k, &kp));
    printf("device%d.numKernelArgs=%u\n", d, kp.numKernelArgs);

    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    float *a, *b, *c, *dev_a, *host_c;
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 64, dev, (void **)&a));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 64, dev, (void **)&b));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 64, dev, (void **)&c));
    CHECK(zeMemAllocDevice(ctx, &dd, N * sizeof(float), 64, dev, (void **)&dev_a));
    CHECK(zeMemAllocHost(ctx, &hd, N * sizeof(float), 64, (void **)&host_c));
    ze_memory_allocation_properties_t ap = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t owner;
    CHECK(zeMemGetAllocProperties(ctx, dev_a + 3, &ap, &owner));
    printf("device%d.devAllocType=%u\n", d, (unsigned)ap.type);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i) + 0.5f;
    }

    uint32_t gx, gy, gz;
    CHECK(zeKernelSuggestGroupSize(k, N, 1, 1, &gx, &gy, &gz));
    CHECK(zeKernelSetGroupSize(k, gx, gy, gz));
    ze_group_count_t groups = {N / gx, 1, 1};
    printf("device%d.groupSize=%u\n", d, gx);
    int bad = 0;

    /* 1: immediate (synchronous) command list, arguments straight from shared memory. */
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
                                  ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t imm;
    CHECK(zeCommandListCreateImmediate(ctx, dev, &qd, &imm));
    CHECK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    CHECK(zeKernelSetArgumentValue(k, 1, sizeof b, &b));
    CHECK(zeKernelSetArgumentValue(k, 2, sizeof c, &c));
    CHECK(zeCommandListAppendLaunchKernel(imm, k, &groups, NULL, 0, NULL));
    bad |= check("immediate", d, a, b, c);

    /* 2: queue + regular list with events, a fence, a copy in and a copy out through device memory. */
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 2};
    ze_event_pool_handle_t pool;
    CHECK(zeEventPoolCreate(ctx, &pd, 1, &dev, &pool));
    ze_event_desc_t ed0 = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_desc_t ed1 = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 1, 0, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t copied, done;
    CHECK(zeEventCreate(pool, &ed0, &copied));
    CHECK(zeEventCreate(pool, &ed1, &done));
    qd.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
    ze_command_queue_handle_t q;
    CHECK(zeCommandQueueCreate(ctx, dev, &qd, &q));
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    CHECK(zeCommandListCreate(ctx, dev, &ld, &list));
    float zero = 0.0f;
    CHECK(zeCommandListAppendMemoryFill(list, c, &zero, sizeof zero, N * sizeof(float), NULL, 0, NULL));
    CHECK(zeCommandListAppendMemoryCopy(list, dev_a, a, N * sizeof(float), copied, 0, NULL));
    CHECK(zeKernelSetArgumentValue(k, 0, sizeof dev_a, &dev_a));
    CHECK(zeCommandListAppendLaunchKernel(list, k, &groups, done, 1, &copied));
    CHECK(zeKernelSetArgumentValue(k, 0, sizeof a, &a)); /* must not affect the launch recorded above */
    CHECK(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    CHECK(zeCommandListAppendMemoryCopy(list, host_c, c, N * sizeof(float), NULL, 1, &done));
    CHECK(zeCommandListClose(list));
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC};
    ze_fence_handle_t fence;
    CHECK(zeFenceCreate(q, &fd, &fence));
    CHECK(zeCommandQueueExecuteCommandLists(q, 1, &list, fence));
    CHECK(zeFenceHostSynchronize(fence, UINT64_MAX));
    CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    CHECK(zeCommandQueueSynchronize(q, UINT64_MAX));
    ze_kernel_timestamp_result_t ts;
    CHECK(zeEventQueryKernelTimestamp(done, &ts));
    printf("device%d.kernelTimestampOrdered=%d\n", d, ts.global.kernelEnd >= ts.global.kernelStart && ts.global.kernelStart > 0);
    bad |= check("regular", d, a, b, host_c);

    /* Running the same closed list again must work too. */
    CHECK(zeEventHostReset(copied));
    CHECK(zeEventHostReset(done));
    CHECK(zeFenceReset(fence));
    memset(host_c, 0, N * sizeof(float));
    CHECK(zeCommandQueueExecuteCommandLists(q, 1, &list, fence));
    CHECK(zeFenceHostSynchronize(fence, UINT64_MAX));
    bad |= check("regular_again", d, a, b, host_c);

    CHECK(zeFenceDestroy(fence));
    CHECK(zeCommandListDestroy(list));
    CHECK(zeCommandQueueDestroy(q));
    CHECK(zeEventDestroy(copied));
    CHECK(zeEventDestroy(done));
    CHECK(zeEventPoolDestroy(pool));
    CHECK(zeCommandListDestroy(imm));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    CHECK(zeMemFree(ctx, a));
    CHECK(zeMemFree(ctx, b));
    CHECK(zeMemFree(ctx, c));
    CHECK(zeMemFree(ctx, dev_a));
    CHECK(zeMemFree(ctx, host_c));
    CHECK(zeContextDestroy(ctx));
    free(spv);
    return bad;
}

static int malformed(ze_driver_handle_t drv, ze_device_handle_t dev, int d, const char *spv_path)
{
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(drv, &cd, &ctx));
    size_t size;
    unsigned char *spv = read_all(spv_path, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, spv, "", NULL};
    ze_module_handle_t mod = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zeModuleCreate(ctx, dev, &md, &mod, &log);
    printf("device%d.moduleCreate=0x%x\n", d, (unsigned)r);
    size_t n = 0;
    if (log != NULL) {
        CHECK(zeModuleBuildLogGetString(log, &n, NULL));
        char *text = malloc(n);
        CHECK(zeModuleBuildLogGetString(log, &n, text));
        for (char *p = text; *p; p++)
            if (*p == '\n')
                *p = ' ';
        printf("device%d.buildLog=%s\n", d, text);
        free(text);
        CHECK(zeModuleBuildLogDestroy(log));
    }
    free(spv);
    CHECK(zeContextDestroy(ctx));
    return r != ZE_RESULT_SUCCESS && n > 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s props | run <kernel.spv> | malformed <module.spv>\n", argv[0]);
        return 2;
    }
    CHECK(zeInit(0));
    CHECK(zeInit(0)); /* a second call must be harmless */
    uint32_t ndrv = 0;
    CHECK(zeDriverGet(&ndrv, NULL));
    ze_driver_handle_t drivers[8];
    if (ndrv > 8)
        ndrv = 8;
    CHECK(zeDriverGet(&ndrv, drivers));
    printf("drivers=%u\n", ndrv);
    int bad = 0;
    for (uint32_t d = 0; d < ndrv; d++) {
        uint32_t ndev = 0;
        CHECK(zeDeviceGet(drivers[d], &ndev, NULL));
        printf("driver%u.devices=%u\n", d, ndev);
        ze_driver_properties_t dp = {ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, NULL};
        CHECK(zeDriverGetProperties(drivers[d], &dp));
        printf("driver%u.version=0x%08x\n", d, dp.driverVersion);
        if (ndev == 0)
            continue;
        ndev = 1;
        ze_device_handle_t dev;
        CHECK(zeDeviceGet(drivers[d], &ndev, &dev));
        if (strcmp(argv[1], "props") == 0)
            props(dev, (int)d);
        else if (strcmp(argv[1], "run") == 0 && argc > 2)
            bad |= run(drivers[d], dev, (int)d, argv[2]);
        else if (strcmp(argv[1], "malformed") == 0 && argc > 2)
            bad |= malformed(drivers[d], dev, (int)d, argv[2]);
        else
            return 2;
    }
    return bad;
}
