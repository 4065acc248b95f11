/* Destroys the objects of a finished launch and copy in the order named on the command line, so each legal
   destruction order can be run under valgrind against the CPU reference driver through the real loader. */
#include "l0_check.h"
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024

/* usage: refdriver_lifetimes <vector_add.spv> regular|immediate <order>
   <order> names, comma-separated, each of: kernel, module, list, queue, fence and reset (zeCommandListReset): regular
   lists only; event, pool, memory. The client waits only on the copy's event before destroying: that signal is
   all a conforming client knows of the device being done. */
int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[2], "regular") != 0 && strcmp(argv[2], "immediate") != 0)) {
        fprintf(stderr, "usage: %s <vector_add.spv> regular|immediate <comma-separated order>\n", argv[0]);
        return 2;
    }
    int immediate = strcmp(argv[2], "immediate") == 0;
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    open_first_device(&drv, &dev, &ctx);

    size_t size;
    unsigned char *spv = read_all(argv[1], &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, spv, "", NULL};
    ze_module_handle_t mod;
    CHECK(zeModuleCreate(ctx, dev, &md, &mod, NULL));
    free(spv);
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vector_add"};
    ze_kernel_handle_t k;
    CHECK(zeKernelCreate(mod, &kd, &k));

    const ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    const ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    float *a, *b, *c, *d;
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 0, dev, (void **)&a));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 0, dev, (void **)&b));
    CHECK(zeMemAllocDevice(ctx, &dd, N * sizeof(float), 0, dev, (void **)&c));
    CHECK(zeMemAllocHost(ctx, &hd, N * sizeof(float), 0, (void **)&d));
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(3 * i) + 0.25f;
        d[i] = -1.0f;
    }
    CHECK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    CHECK(zeKernelSetArgumentValue(k, 1, sizeof b, &b));
    CHECK(zeKernelSetArgumentValue(k, 2, sizeof c, &c));
    CHECK(zeKernelSetGroupSize(k, 64, 1, 1));

    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    ze_event_pool_handle_t pool;
    CHECK(zeEventPoolCreate(ctx, &pd, 1, &dev, &pool));
    ze_event_handle_t launched, copied;
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, ZE_EVENT_SCOPE_FLAG_HOST};
    CHECK(zeEventCreate(pool, &ed, &launched));
    ed.index = 1;
    CHECK(zeEventCreate(pool, &ed, &copied));

    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                  ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t q = NULL;
    ze_fence_handle_t fence = NULL;
    ze_command_list_handle_t l;
    if (immediate) {
        CHECK(zeCommandListCreateImmediate(ctx, dev, &qd, &l));
    } else {
        CHECK(zeCommandQueueCreate(ctx, dev, &qd, &q));
        ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC};
        CHECK(zeFenceCreate(q, &fd, &fence));
        ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
        CHECK(zeCommandListCreate(ctx, dev, &ld, &l));
    }
    const ze_group_count_t groups = {N / 64, 1, 1};
    CHECK(zeCommandListAppendLaunchKernel(l, k, &groups, launched, 0, NULL));
    CHECK(zeCommandListAppendMemoryCopy(l, d, c, N * sizeof(float), copied, 1, &launched));
    if (!immediate) {
        CHECK(zeCommandListClose(l));
        CHECK(zeCommandQueueExecuteCommandLists(q, 1, &l, fence));
    }
    CHECK(zeEventHostSynchronize(copied, UINT64_MAX));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += d[i] != a[i] + b[i];
    printf("wrong=%d\n", wrong);

    char *order = strdup(argv[3]);
    for (char *name = strtok(order, ","); name != NULL; name = strtok(NULL, ",")) {
        if (strcmp(name, "kernel") == 0) {
            CHECK(zeKernelDestroy(k));
        } else if (strcmp(name, "module") == 0) {
            CHECK(zeModuleDestroy(mod));
        } else if (strcmp(name, "list") == 0) {
            CHECK(zeCommandListDestroy(l));
        } else if (strcmp(name, "reset") == 0 && !immediate) {
            CHECK(zeCommandListReset(l));
        } else if (strcmp(name, "fence") == 0 && !immediate) {
            CHECK(zeFenceDestroy(fence));
        } else if (strcmp(name, "queue") == 0 && !immediate) {
            CHECK(zeCommandQueueDestroy(q));
        } else if (strcmp(name, "event") == 0) {
            CHECK(zeEventDestroy(launched));
            CHECK(zeEventDestroy(copied));
        } else if (strcmp(name, "pool") == 0) {
            CHECK(zeEventPoolDestroy(pool));
        } else if (strcmp(name, "memory") == 0) {
            CHECK(zeMemFree(ctx, a));
            CHECK(zeMemFree(ctx, b));
            CHECK(zeMemFree(ctx, c));
            CHECK(zeMemFree(ctx, d));
        } else {
            printf("error=unknown object %s for a %s list\n", name, argv[2]);
            return 2;
        }
        printf("destroyed=%s\n", name);
    }
    free(order);
    CHECK(zeContextDestroy(ctx));
    return 0;
}
