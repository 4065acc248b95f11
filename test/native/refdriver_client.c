/* What a real client (SYCL/Unified Runtime, PyTorch, Intel's conformance tests) asks of the CPU reference driver,
   through the real Level Zero loader; prints key=value lines for the test to read.
   Built against whatever headers the test picks: the host-synchronise sequence needs 1.6+ headers and loader. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include "l0_check.h"
#include <level_zero/ze_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#define N 1024

#if defined(ZE_API_VERSION_CURRENT_M) && ZE_API_VERSION_CURRENT_M >= ZE_MAKE_VERSION(1, 9)
#define HAVE_HOST_SYNCHRONIZE 1

/* The command-list entry points after API 1.4, as this run reaches them: exported by the loader when it has them
   (1.2x), else from the driver's own command-list table (Debian's 1.8.12 loader neither exports nor routes them; with
   one driver and no interception the loader hands the driver's own handles to the application, so the driver's
   functions take them as they are). */
static ze_pfnCommandListHostSynchronize_t host_synchronize;
static ze_pfnCommandListIsImmediate_t is_immediate;
static ze_pfnCommandListGetContextHandle_t get_context_handle;
static const char *route = "loader";

static int resolve_newer_entry_points(void)
{
    host_synchronize = (ze_pfnCommandListHostSynchronize_t)dlsym(RTLD_DEFAULT, "zeCommandListHostSynchronize");
    is_immediate = (ze_pfnCommandListIsImmediate_t)dlsym(RTLD_DEFAULT, "zeCommandListIsImmediate");
    get_context_handle = (ze_pfnCommandListGetContextHandle_t)dlsym(RTLD_DEFAULT, "zeCommandListGetContextHandle");
    if (host_synchronize && is_immediate && get_context_handle) return 0;
    const char *driver = getenv("ZE_ENABLE_ALT_DRIVERS");
    void *lib = driver ? dlopen(driver, RTLD_NOW | RTLD_NOLOAD) : NULL;
    ze_pfnGetCommandListProcAddrTable_t get = lib ? (ze_pfnGetCommandListProcAddrTable_t)dlsym(lib, "zeGetCommandListProcAddrTable") : NULL;
    ze_command_list_dditable_t table;
    memset(&table, 0, sizeof table);
    if (!get || get(ZE_API_VERSION_CURRENT, &table) != ZE_RESULT_SUCCESS) return -1;
    host_synchronize = table.pfnHostSynchronize;
    is_immediate = table.pfnIsImmediate;
    get_context_handle = table.pfnGetContextHandle;
    route = "driver";
    return host_synchronize && is_immediate && get_context_handle ? 0 : -1;
}
#endif

static ze_driver_handle_t drv;
static ze_device_handle_t dev;
static ze_context_handle_t ctx;
static const ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
static const ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};

static ze_module_handle_t load_module(const char *path)
{
    size_t size;
    unsigned char *spv = read_all(path, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, spv, "", NULL};
    ze_module_handle_t mod;
    CHECK(zeModuleCreate(ctx, dev, &md, &mod, NULL));
    free(spv);
    return mod;
}

static ze_kernel_handle_t make_kernel(ze_module_handle_t mod, const char *name)
{
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, name};
    ze_kernel_handle_t k;
    CHECK(zeKernelCreate(mod, &kd, &k));
    return k;
}

static void set_vector_add_args(ze_kernel_handle_t k, float *a, float *b, float *c)
{
    CHECK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    CHECK(zeKernelSetArgumentValue(k, 1, sizeof b, &b));
    CHECK(zeKernelSetArgumentValue(k, 2, sizeof c, &c));
    CHECK(zeKernelSetGroupSize(k, 64, 1, 1));
}

static void fill_inputs(float *a, float *b)
{
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i) + 0.5f;
    }
}

/* a and b filled with the inputs, c device memory for the sum, d host memory to copy it to. */
static void vector_add_buffers(float **a, float **b, float **c, float **d)
{
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 0, dev, (void **)a));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 0, dev, (void **)b));
    CHECK(zeMemAllocDevice(ctx, &dd, N * sizeof(float), 0, dev, (void **)c));
    CHECK(zeMemAllocHost(ctx, &hd, N * sizeof(float), 0, (void **)d));
    fill_inputs(*a, *b);
}

/* A host-visible pool of n events, each created. */
static ze_event_pool_handle_t host_events(uint32_t n, ze_event_handle_t *events)
{
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, n};
    ze_event_pool_handle_t pool;
    CHECK(zeEventPoolCreate(ctx, &pd, 1, &dev, &pool));
    for (uint32_t i = 0; i < n; i++) {
        ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, i, 0, ZE_EVENT_SCOPE_FLAG_HOST};
        CHECK(zeEventCreate(pool, &ed, &events[i]));
    }
    return pool;
}

static const char *verdict(const float *a, const float *b, const float *c)
{
    static char text[128];
    for (int i = 0; i < N; i++)
        if (c[i] != a[i] + b[i]) {
            snprintf(text, sizeof text, "mismatch index %d got %g expected %g", i, c[i], a[i] + b[i]);
            return text;
        }
    return "ok";
}

static ze_command_list_handle_t immediate_list(ze_command_queue_mode_t mode)
{
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, mode, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t l;
    CHECK(zeCommandListCreateImmediate(ctx, dev, &qd, &l));
    return l;
}

static const ze_group_count_t groups = {N / 64, 1, 1};

/* Every kind of allocation at every alignment a GPU driver grants, then what must be refused. */
static int align_mode(const char *spv)
{
    static const size_t aligns[] = {0, 1, 16, 64, 128, 256, 512, 4096, 65536, 8388608};
    static const char *const kinds[] = {"host", "device", "shared"};
    static const ze_memory_type_t types[] = {ZE_MEMORY_TYPE_HOST, ZE_MEMORY_TYPE_DEVICE, ZE_MEMORY_TYPE_SHARED};
    const size_t size = 1000;
    for (int kind = 0; kind < 3; kind++)
        for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
            void *p = NULL, *p2 = NULL;
            ze_result_t r = ZE_RESULT_SUCCESS, r2 = ZE_RESULT_SUCCESS;
            /* two in a row: the second must not overlap the first's padding */
            for (int n = 0; n < 2; n++) {
                void **out = n ? &p2 : &p;
                ze_result_t *res = n ? &r2 : &r;
                if (kind == 0)
                    *res = zeMemAllocHost(ctx, &hd, size, aligns[i], out);
                else if (kind == 1)
                    *res = zeMemAllocDevice(ctx, &dd, size, aligns[i], dev, out);
                else
                    *res = zeMemAllocShared(ctx, &dd, &hd, size, aligns[i], dev, out);
            }
            const char *what = "ok";
            ze_memory_allocation_properties_t ap = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
            void *base = NULL;
            size_t range = 0;
            if (r != ZE_RESULT_SUCCESS || r2 != ZE_RESULT_SUCCESS || p == NULL || p2 == NULL)
                what = "alloc failed";
            else if (aligns[i] > 1 && (((uintptr_t)p | (uintptr_t)p2) & (aligns[i] - 1)))
                what = "misaligned";
            else if ((char *)p2 < (char *)p + size && (char *)p < (char *)p2 + size)
                what = "overlap";
            else if (zeMemGetAllocProperties(ctx, (char *)p + size - 1, &ap, NULL) != ZE_RESULT_SUCCESS || ap.type != types[kind])
                what = "wrong type from an interior pointer";
            else if (zeMemGetAddressRange(ctx, (char *)p + 17, &base, &range) != ZE_RESULT_SUCCESS || base != p || range != size)
                what = "wrong address range";
            else if (zeMemGetAllocProperties(ctx, (char *)p + size, &ap, NULL) != ZE_RESULT_SUCCESS || ap.type != ZE_MEMORY_TYPE_UNKNOWN)
                what = "one past the end is still the allocation";
            else if (zeMemFree(ctx, (char *)p + 1) != ZE_RESULT_ERROR_INVALID_ARGUMENT)
                what = "an interior pointer was freed";
            if (p)
                memset(p, 0x5a, size);
            if (p && zeMemFree(ctx, p) != ZE_RESULT_SUCCESS)
                what = "free failed";
            if (p2 && zeMemFree(ctx, p2) != ZE_RESULT_SUCCESS)
                what = "free failed";
            printf("align.%s.%zu=%s (0x%x)\n", kinds[kind], aligns[i], what, (unsigned)r);
        }
    void *p = NULL;
    printf("align.host.3=0x%x\n", (unsigned)zeMemAllocHost(ctx, &hd, 64, 3, &p));
    printf("align.device.384=0x%x\n", (unsigned)zeMemAllocDevice(ctx, &dd, 64, 384, dev, &p));
    printf("align.shared.16777216=0x%x\n", (unsigned)zeMemAllocShared(ctx, &dd, &hd, 64, 16777216, dev, &p));
    printf("align.nullAfterRefusal=%d\n", p == NULL);

    /* A kernel reads and writes 64 KiB-aligned buffers of all three kinds. */
    ze_module_handle_t mod = load_module(spv);
    ze_kernel_handle_t k = make_kernel(mod, "vector_add");
    float *a, *b, *c;
    CHECK(zeMemAllocHost(ctx, &hd, N * sizeof(float), 65536, (void **)&a));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 65536, dev, (void **)&b));
    CHECK(zeMemAllocDevice(ctx, &dd, N * sizeof(float), 65536, dev, (void **)&c));
    fill_inputs(a, b);
    set_vector_add_args(k, a, b, c);
    ze_command_list_handle_t l = immediate_list(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    CHECK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    printf("align.kernel=%s\n", verdict(a, b, c));
    CHECK(zeCommandListDestroy(l));
    CHECK(zeMemFree(ctx, a));
    CHECK(zeMemFree(ctx, b));
    CHECK(zeMemFree(ctx, c));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    return 0;
}

/* The properties clients read, and what the PoCL device itself says about float atomics. */
static int props_mode(const char *spv)
{
    ze_float_atomic_ext_properties_t fa = {ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES};
    ze_device_module_properties_t m = {ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, &fa};
    CHECK(zeDeviceGetModuleProperties(dev, &m));
    printf("props.fp16Atomics=0x%x\nprops.fp32Atomics=0x%x\nprops.fp64Atomics=0x%x\n", fa.fp16Flags, fa.fp32Flags, fa.fp64Flags);

    cl_platform_id platforms[8];
    cl_uint np = 0;
    clGetPlatformIDs(8, platforms, &np);
    for (cl_uint i = 0; i < np; i++) {
        char name[256] = {0};
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        cl_device_id cpu;
        if (strstr(name, "Portable Computing Language") == NULL || clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, &cpu, NULL) != CL_SUCCESS)
            continue;
        static const cl_device_info queries[3] = {0x4233, 0x4231, 0x4232}; /* cl_ext_float_atomics: half, single, double */
        static const char *const names[3] = {"fp16", "fp32", "fp64"};
        for (int q = 0; q < 3; q++) {
            cl_bitfield caps = 0;
            cl_int err = clGetDeviceInfo(cpu, queries[q], sizeof caps, &caps, NULL);
            printf("opencl.%sAtomics=%s0x%llx\n", names[q], err == CL_SUCCESS ? "" : "refused:", (unsigned long long)caps);
        }
        break;
    }

    uint32_t n = 1;
    ze_device_memory_properties_t mem = {ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    CHECK(zeDeviceGetMemoryProperties(dev, &n, &mem));
    printf("props.memoryBusWidth=%u\nprops.memoryTotalSize=%llu\n", mem.maxBusWidth, (unsigned long long)mem.totalSize);
    ze_device_compute_properties_t cp = {ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    CHECK(zeDeviceGetComputeProperties(dev, &cp));
    printf("props.maxTotalGroupSize=%u\n", cp.maxTotalGroupSize);

    uint32_t next = 0;
    CHECK(zeDriverGetExtensionProperties(drv, &next, NULL));
    ze_driver_extension_properties_t *ext = calloc(next, sizeof *ext);
    CHECK(zeDriverGetExtensionProperties(drv, &next, ext));
    printf("props.extensions=");
    for (uint32_t i = 0; i < next; i++)
        printf("%s%s", i ? "," : "", ext[i].name);
    printf("\n");
    free(ext);

    /* ze_kernel_max_group_size_ext_properties_t (spec 1.11), laid out as in newer headers. */
    struct {
        ze_structure_type_t stype;
        void *pNext;
        uint32_t maxGroupSize;
    } mg = {(ze_structure_type_t)0x00010013, NULL, 0};
    ze_module_handle_t mod = load_module(spv);
    ze_kernel_handle_t k = make_kernel(mod, "vector_add");
    ze_kernel_properties_t kp = {ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES, &mg};
    CHECK(zeKernelGetProperties(k, &kp));
    printf("props.kernelMaxGroupSize=%u\n", mg.maxGroupSize);
    printf("props.kernelMaxGroupSizeAccepted=0x%x\n", (unsigned)zeKernelSetGroupSize(k, mg.maxGroupSize, 1, 1));
    printf("props.kernelAboveMaxGroupSize=0x%x\n", (unsigned)zeKernelSetGroupSize(k, mg.maxGroupSize + 1, 1, 1));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    return 0;
}

/* What SYCL over Unified Runtime does for q.parallel_for(...).wait(): an asynchronous immediate list, one launch,
   zeCommandListHostSynchronize, then the frees. */
static int sequence_mode(const char *spv)
{
#ifdef HAVE_HOST_SYNCHRONIZE
    if (resolve_newer_entry_points() != 0) {
        printf("sequence.result=neither the loader nor the driver has zeCommandListHostSynchronize\n");
        return 1;
    }
    printf("sequence.route=%s\n", route);
    ze_module_handle_t mod = load_module(spv);
    ze_kernel_handle_t k = make_kernel(mod, "vector_add");
    float *a, *b, *c;
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 256, dev, (void **)&a));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 256, dev, (void **)&b));
    CHECK(zeMemAllocDevice(ctx, &dd, N * sizeof(float), 4096, dev, (void **)&c));
    fill_inputs(a, b);
    ze_command_list_handle_t l = immediate_list(ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    set_vector_add_args(k, a, b, c);
    CHECK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    CHECK(host_synchronize(l, UINT64_MAX));
    printf("sequence.result=%s\n", verdict(a, b, c));
    ze_bool_t immediate = 0;
    CHECK(is_immediate(l, &immediate));
    ze_context_handle_t owner = NULL;
    CHECK(get_context_handle(l, &owner));
    printf("sequence.isImmediate=%u\nsequence.contextMatches=%d\n", (unsigned)immediate, owner == ctx);
    /* A second launch and a zero timeout: the poll answers at once, then the full wait. */
    CHECK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    ze_result_t poll = host_synchronize(l, 0);
    printf("sequence.poll=%s\n", poll == ZE_RESULT_SUCCESS || poll == ZE_RESULT_NOT_READY ? "ok" : "bad");
    CHECK(host_synchronize(l, UINT64_MAX));
    CHECK(zeMemFree(ctx, a));
    CHECK(zeMemFree(ctx, b));
    CHECK(zeMemFree(ctx, c));
    CHECK(zeCommandListDestroy(l));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    return 0;
#else
    (void)spv;
    printf("sequence.result=built against headers without zeCommandListHostSynchronize\n");
    return 3;
#endif
}

static int gate_signalled; /* set by signal_later just before it signals */

static void *signal_later(void *event)
{
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    __atomic_store_n(&gate_signalled, 1, __ATOMIC_SEQ_CST);
    zeEventHostSignal((ze_event_handle_t)event);
    return NULL;
}

/* A command of a regular list lets go of its memory before it signals its event: a launch signals, the next command
   waits on an event the host signals later, and the host frees the launch's output as soon as the launch's event is
   set. Holding the memory until the whole execution ends would make that free wait for the later signal. */
static int holds_mode(const char *spv)
{
    ze_module_handle_t mod = load_module(spv);
    ze_kernel_handle_t k = make_kernel(mod, "vector_add");
    float *a, *b, *c, *d;
    vector_add_buffers(&a, &b, &c, &d);
    ze_event_handle_t events[3];
    ze_event_pool_handle_t pool = host_events(3, events);
    ze_event_handle_t launched = events[0], gate = events[1], copied = events[2];
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                  ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t q;
    CHECK(zeCommandQueueCreate(ctx, dev, &qd, &q));
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t l;
    CHECK(zeCommandListCreate(ctx, dev, &ld, &l));
    set_vector_add_args(k, a, b, c);
    CHECK(zeCommandListAppendLaunchKernel(l, k, &groups, launched, 0, NULL));
    CHECK(zeCommandListAppendMemoryCopy(l, d, a, N * sizeof(float), copied, 1, &gate));
    CHECK(zeCommandListClose(l));
    CHECK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    CHECK(zeEventHostSynchronize(launched, UINT64_MAX));
    printf("holds.result=%s\n", verdict(a, b, c));
    pthread_t t;
    pthread_create(&t, NULL, signal_later, gate);
    CHECK(zeMemFree(ctx, c));
    printf("holds.freeBeforeGate=%d\n", !__atomic_load_n(&gate_signalled, __ATOMIC_SEQ_CST));
    pthread_join(t, NULL);
    CHECK(zeEventHostSynchronize(copied, UINT64_MAX));
    int copy_wrong = 0;
    for (int i = 0; i < N; i++)
        copy_wrong += d[i] != a[i];
    printf("holds.copyWrong=%d\n", copy_wrong);
    CHECK(zeCommandListDestroy(l));
    CHECK(zeCommandQueueDestroy(q));
    for (int i = 0; i < 3; i++)
        CHECK(zeEventDestroy(events[i]));
    CHECK(zeEventPoolDestroy(pool));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    CHECK(zeMemFree(ctx, a));
    CHECK(zeMemFree(ctx, b));
    CHECK(zeMemFree(ctx, d));
    return 0;
}

/* zeMemFree while a launch and a copy that use the memory still wait for an event another thread signals later: the
   free must wait for both (freeing first is a write into freed memory, which valgrind or ASan reports). What shows it
   is what the free returned after: the gate the other thread signals, and the copy's output, read at once. The
   commands' own events are set just after they let go of the memory, so they may still be unset at that moment. */
static int freewait_mode(const char *spv)
{
    ze_module_handle_t mod = load_module(spv);
    ze_kernel_handle_t k = make_kernel(mod, "vector_add");
    float *a, *b, *c, *d;
    vector_add_buffers(&a, &b, &c, &d);
    ze_event_handle_t events[3];
    ze_event_pool_handle_t pool = host_events(3, events);
    ze_event_handle_t gate = events[0], launched = events[1], copied = events[2];
    ze_command_list_handle_t l = immediate_list(ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    set_vector_add_args(k, a, b, c);
    CHECK(zeCommandListAppendLaunchKernel(l, k, &groups, launched, 1, &gate));
    CHECK(zeCommandListAppendMemoryCopy(l, d, c, N * sizeof(float), copied, 0, NULL));
    pthread_t t;
    pthread_create(&t, NULL, signal_later, gate);
    CHECK(zeMemFree(ctx, c));
    printf("freewait.gateSetAtFree=%d\n", zeEventQueryStatus(gate) == ZE_RESULT_SUCCESS);
    printf("freewait.result=%s\n", verdict(a, b, d));
    pthread_join(t, NULL);
    CHECK(zeEventHostSynchronize(copied, UINT64_MAX));
    CHECK(zeCommandListDestroy(l));
    CHECK(zeMemFree(ctx, a));
    CHECK(zeMemFree(ctx, b));
    CHECK(zeMemFree(ctx, d));
    CHECK(zeEventDestroy(gate));
    CHECK(zeEventDestroy(launched));
    CHECK(zeEventDestroy(copied));
    CHECK(zeEventPoolDestroy(pool));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    return 0;
}

/* What the driver does not implement answers UNSUPPORTED_FEATURE (0x78000003), each printed by name. */
static int refuse_mode(const char *spv, const char *struct_spv)
{
    ze_module_handle_t mod = load_module(spv);
    ze_kernel_handle_t k = make_kernel(mod, "vector_add");
    void *p = NULL;
    CHECK(zeMemAllocDevice(ctx, &dd, 4096, 0, dev, &p));

    /* Not a refusal: a by-value struct holding a pointer runs, since every allocation has one address on host and
       device. */
    ze_module_handle_t smod = load_module(struct_spv);
    ze_kernel_handle_t sk = make_kernel(smod, "struct_arg");
    struct {
        float *out;
        float value;
    } target = {p, 1.5f};
    CHECK(zeKernelSetArgumentValue(sk, 0, sizeof target, &target));
    CHECK(zeKernelSetGroupSize(sk, 64, 1, 1));
    ze_command_list_handle_t l = immediate_list(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    CHECK(zeCommandListAppendLaunchKernel(l, sk, &groups, NULL, 0, NULL));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += ((float *)p)[i] != 1.5f;
    printf("struct.wrong=%d\n", wrong);

    printf("refuse.moduleLink=0x%x\n", (unsigned)zeModuleDynamicLink(1, &mod, NULL));
    size_t size = 0;
    void *gp = NULL;
    printf("refuse.globalPointer=0x%x\n", (unsigned)zeModuleGetGlobalPointer(mod, "counter", &size, &gp));
    printf("refuse.functionPointer=0x%x\n", (unsigned)zeModuleGetFunctionPointer(mod, "vector_add", &gp));

    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 1};
    ze_event_pool_handle_t pool;
    CHECK(zeEventPoolCreate(ctx, &pd, 1, &dev, &pool));
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_event_handle_t ev;
    CHECK(zeEventCreate(pool, &ed, &ev));
    printf("refuse.queryKernelTimestamps=0x%x\n", (unsigned)zeCommandListAppendQueryKernelTimestamps(l, 1, &ev, p, NULL, NULL, 0, NULL));
    printf("refuse.cooperativeLaunch=0x%x\n", (unsigned)zeCommandListAppendLaunchCooperativeKernel(l, k, &groups, NULL, 0, NULL));

    ze_ipc_mem_handle_t ipc;
    printf("refuse.ipcMemHandle=0x%x\n", (unsigned)zeMemGetIpcHandle(ctx, p, &ipc));
    ze_event_pool_desc_t ipd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_IPC, 1};
    ze_event_pool_handle_t ipool = NULL;
    printf("refuse.ipcEventPool=0x%x\n", (unsigned)zeEventPoolCreate(ctx, &ipd, 1, &dev, &ipool));

    void *va = NULL;
    printf("refuse.virtualReserve=0x%x\n", (unsigned)zeVirtualMemReserve(ctx, NULL, 1 << 21, &va));
    size_t page = 0;
    printf("refuse.virtualPageSize=0x%x\n", (unsigned)zeVirtualMemQueryPageSize(ctx, dev, 1 << 21, &page));
    ze_physical_mem_desc_t phd = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, 0, 1 << 21};
    ze_physical_mem_handle_t phys;
    printf("refuse.physicalMem=0x%x\n", (unsigned)zePhysicalMemCreate(ctx, dev, &phd, &phys));

    ze_image_desc_t id2 = {ZE_STRUCTURE_TYPE_IMAGE_DESC};
    id2.type = ZE_IMAGE_TYPE_2D;
    id2.format.layout = ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8;
    id2.width = 16;
    id2.height = 16;
    ze_image_handle_t img;
    printf("refuse.image=0x%x\n", (unsigned)zeImageCreate(ctx, dev, &id2, &img));
    ze_sampler_desc_t sd = {ZE_STRUCTURE_TYPE_SAMPLER_DESC};
    ze_sampler_handle_t sampler;
    printf("refuse.sampler=0x%x\n", (unsigned)zeSamplerCreate(ctx, dev, &sd, &sampler));

    CHECK(zeEventDestroy(ev));
    CHECK(zeEventPoolDestroy(pool));
    CHECK(zeCommandListDestroy(l));
    CHECK(zeKernelDestroy(sk));
    CHECK(zeModuleDestroy(smod));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    CHECK(zeMemFree(ctx, p));
    return 0;
}

/* zeCommandListImmediateAppendCommandListsExp: a closed regular list (launch, then copy) appended to an asynchronous
   immediate list behind a wait on an event the host signals later; the signal event must stay unset until then. */
static int append_mode(const char *spv)
{
#ifdef HAVE_HOST_SYNCHRONIZE
    ze_pfnCommandListImmediateAppendCommandListsExp_t append =
        (ze_pfnCommandListImmediateAppendCommandListsExp_t)dlsym(RTLD_DEFAULT, "zeCommandListImmediateAppendCommandListsExp");
    if (append == NULL) {
        const char *driver = getenv("ZE_ENABLE_ALT_DRIVERS");
        void *lib = driver ? dlopen(driver, RTLD_NOW | RTLD_NOLOAD) : NULL;
        ze_pfnGetCommandListExpProcAddrTable_t get =
            lib ? (ze_pfnGetCommandListExpProcAddrTable_t)dlsym(lib, "zeGetCommandListExpProcAddrTable") : NULL;
        ze_command_list_exp_dditable_t table;
        memset(&table, 0, sizeof table);
        if (get && get(ZE_API_VERSION_CURRENT, &table) == ZE_RESULT_SUCCESS)
            append = table.pfnImmediateAppendCommandListsExp;
    }
    if (append == NULL || resolve_newer_entry_points() != 0) {
        printf("append.result=neither the loader nor the driver has zeCommandListImmediateAppendCommandListsExp and zeCommandListHostSynchronize\n");
        return 1;
    }
    ze_module_handle_t mod = load_module(spv);
    ze_kernel_handle_t k = make_kernel(mod, "vector_add");
    float *a, *b, *c, *d;
    vector_add_buffers(&a, &b, &c, &d);
    ze_event_handle_t events[2];
    ze_event_pool_handle_t pool = host_events(2, events);
    ze_event_handle_t gate = events[0], done = events[1];
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t regular;
    CHECK(zeCommandListCreate(ctx, dev, &ld, &regular));
    set_vector_add_args(k, a, b, c);
    CHECK(zeCommandListAppendLaunchKernel(regular, k, &groups, NULL, 0, NULL));
    CHECK(zeCommandListAppendBarrier(regular, NULL, 0, NULL));
    CHECK(zeCommandListAppendMemoryCopy(regular, d, c, N * sizeof(float), NULL, 0, NULL));
    CHECK(zeCommandListClose(regular));
    ze_command_list_handle_t l = immediate_list(ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    CHECK(append(l, 1, &regular, done, 1, &gate));
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    printf("append.doneBeforeGate=%d\n", zeEventQueryStatus(done) == ZE_RESULT_SUCCESS);
    CHECK(zeEventHostSignal(gate));
    CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    printf("append.result=%s\n", verdict(a, b, d));
    /* A list appended twice runs twice: the second run copies the zeroed destination's source again. */
    memset(d, 0, N * sizeof(float));
    CHECK(zeEventHostReset(done));
    CHECK(append(l, 1, &regular, done, 0, NULL));
    CHECK(host_synchronize(l, UINT64_MAX));
    printf("append.again=%s\n", verdict(a, b, d));
    printf("append.notImmediate=0x%x\n", (unsigned)append(regular, 1, &regular, NULL, 0, NULL));
    CHECK(zeCommandListDestroy(l));
    CHECK(zeCommandListDestroy(regular));
    CHECK(zeEventDestroy(gate));
    CHECK(zeEventDestroy(done));
    CHECK(zeEventPoolDestroy(pool));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    CHECK(zeMemFree(ctx, a));
    CHECK(zeMemFree(ctx, b));
    CHECK(zeMemFree(ctx, c));
    CHECK(zeMemFree(ctx, d));
    return 0;
#else
    (void)spv;
    printf("append.result=built against headers without zeCommandListImmediateAppendCommandListsExp\n");
    return 3;
#endif
}

/* Runs spec_scale (out = in * scale + offset + (big >> 32), SpecIds 1: float, 2: int, 3: long) from a module built
   with `consts`, and counts the values that differ from what those constants give. */
static int spec_module_wrong(ze_module_handle_t mod, float scale, int offset, long big)
{
    ze_kernel_handle_t k = make_kernel(mod, "spec_scale");
    float *in, *out;
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 0, dev, (void **)&in));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 0, dev, (void **)&out));
    for (int i = 0; i < N; i++)
        in[i] = (float)i * 0.5f;
    CHECK(zeKernelSetArgumentValue(k, 0, sizeof in, &in));
    CHECK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
    CHECK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_command_list_handle_t l = immediate_list(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    CHECK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += out[i] != in[i] * scale + (float)offset + (float)(big >> 32);
    CHECK(zeCommandListDestroy(l));
    CHECK(zeMemFree(ctx, in));
    CHECK(zeMemFree(ctx, out));
    CHECK(zeKernelDestroy(k));
    return wrong;
}

static ze_module_handle_t spec_module(const char *spv, const ze_module_constants_t *consts, ze_result_t *created)
{
    size_t size;
    unsigned char *bytes = read_all(spv, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, bytes, "", consts};
    ze_module_handle_t mod = NULL;
    *created = zeModuleCreate(ctx, dev, &md, &mod, NULL);
    free(bytes);
    return mod;
}

static int spec_wrong(const char *spv, const ze_module_constants_t *consts, float scale, int offset, long big, ze_result_t *created)
{
    ze_module_handle_t mod = spec_module(spv, consts, created);
    if (*created != ZE_RESULT_SUCCESS)
        return -1;
    int wrong = spec_module_wrong(mod, scale, offset, big);
    CHECK(zeModuleDestroy(mod));
    return wrong;
}

/* zeModuleGetNativeBinary, then a module from what it gave (the first destroyed before the second runs): the
   specialization constants of the first are in the binary. A damaged or cut binary is refused. */
static int native_mode(const char *spv)
{
    float scale = 2.5f;
    int offset = 7;
    long big = 3L << 32;
    uint32_t ids[] = {1, 2, 3};
    const void *values[] = {&scale, &offset, &big};
    ze_module_constants_t consts = {3, ids, values};
    ze_result_t created;
    ze_module_handle_t first = spec_module(spv, &consts, &created);
    CHECK(created);
    size_t size = 0;
    CHECK(zeModuleGetNativeBinary(first, &size, NULL));
    uint8_t *binary = malloc(size);
    CHECK(zeModuleGetNativeBinary(first, &size, binary));
    CHECK(zeModuleDestroy(first));
    printf("native.size=%zu\n", size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_NATIVE, size, binary, "", NULL};
    ze_module_handle_t again = NULL;
    CHECK(zeModuleCreate(ctx, dev, &md, &again, NULL));
    printf("native.wrong=%d\n", spec_module_wrong(again, scale, offset, big));
    CHECK(zeModuleDestroy(again));
    md.inputSize = size - 1;
    printf("native.truncated=0x%x\n", (unsigned)zeModuleCreate(ctx, dev, &md, &again, NULL));
    md.inputSize = size;
    binary[0] ^= 0xff;
    printf("native.damaged=0x%x\n", (unsigned)zeModuleCreate(ctx, dev, &md, &again, NULL));
    free(binary);
    return 0;
}

/* Specialization constants: the defaults without any, the given values with them, and an id the module lacks refused. */
static int specialize_mode(const char *spv)
{
    ze_result_t created;
    printf("spec.defaults.wrong=%d\n", spec_wrong(spv, NULL, 1.0f, 0, 0, &created));
    float scale = 2.5f;
    int offset = 7;
    long big = 3L << 32;
    uint32_t ids[] = {1, 2, 3};
    const void *values[] = {&scale, &offset, &big};
    ze_module_constants_t consts = {3, ids, values};
    printf("spec.set.wrong=%d\n", spec_wrong(spv, &consts, scale, offset, big, &created));
    /* Only some given: the others keep their defaults. */
    ze_module_constants_t one = {1, &ids[1], &values[1]};
    printf("spec.partial.wrong=%d\n", spec_wrong(spv, &one, 1.0f, offset, 0, &created));
    uint32_t missing = 42;
    ze_module_constants_t unknown = {1, &missing, values};
    spec_wrong(spv, &unknown, 1.0f, 0, 0, &created);
    printf("spec.unknownId=0x%x\n", (unsigned)created);
    return 0;
}

/* One zeCommandListAppendMemoryCopyRegion case: pitches, slice pitches and both regions (width in bytes). */
struct region_case {
    const char *name;
    ze_copy_region_t dst, src;
    uint32_t dpitch, dslice, spitch, sslice;
};

#define REGION_BYTES 4096

/* What the spec says the copy leaves in dst, computed from dst's side: every byte of dst is either inside the region
   (then it holds the source byte at the same offset within the region) or untouched; returns the bytes inside. Depth 0 is one 2D slice whose
   slice pitches and z origins are ignored. */
static size_t region_reference(const struct region_case *t, const unsigned char *src, unsigned char *dst)
{
    size_t placed = 0;
    uint32_t depth = t->dst.depth ? t->dst.depth : 1;
    size_t dslice = t->dst.depth ? t->dslice : 0, sslice = t->dst.depth ? t->sslice : 0;
    size_t dz0 = t->dst.depth ? t->dst.originZ : 0, sz0 = t->dst.depth ? t->src.originZ : 0;
    for (size_t at = 0; at < REGION_BYTES; at++) {
        size_t z = dslice ? at / dslice : 0, rest = dslice ? at % dslice : at;
        size_t y = rest / t->dpitch, x = rest % t->dpitch;
        if (z < dz0 || z >= dz0 + depth || y < t->dst.originY || y >= t->dst.originY + t->dst.height ||
            x < t->dst.originX || x >= t->dst.originX + t->dst.width)
            continue;
        size_t rz = z - dz0, ry = y - t->dst.originY, rx = x - t->dst.originX;
        dst[at] = src[(sz0 + rz) * sslice + (t->src.originY + ry) * t->spitch + t->src.originX + rx];
        placed++;
    }
    return placed;
}

/* zeCommandListAppendMemoryCopyRegion: 2D (depth 0) and 3D copies with their own pitches and origins, each compared
   byte for byte, over the whole destination buffer, with the reference copy above. */
static int region_mode(const char *unused)
{
    (void)unused;
    static const struct region_case cases[] = {
        /* The conformance suite's case: 16 x 16 bytes, pitch = width, depth 0, slice pitches 0. */
        {"packed2d", {0, 0, 0, 16, 16, 0}, {0, 0, 0, 16, 16, 0}, 16, 0, 16, 0},
        /* 2D between different pitches and origins; the slice pitches and z origins must be ignored. */
        {"pitched2d", {5, 1, 3, 20, 7, 0}, {3, 2, 9, 20, 7, 0}, 48, 777, 64, 999},
        /* 3D: three slices, each side with its own pitch, slice pitch and origin. */
        {"pitched3d", {4, 0, 2, 9, 5, 3}, {1, 2, 1, 9, 5, 3}, 50, 50 * 8 + 16, 40, 40 * 9},
        /* Depth 1 is a 3D copy of one slice: the z origins count. */
        {"oneSlice", {2, 3, 1, 11, 4, 1}, {0, 1, 2, 11, 4, 1}, 32, 32 * 10, 24, 24 * 8},
    };
    unsigned char *src, *dst, expected[REGION_BYTES];
    CHECK(zeMemAllocShared(ctx, &dd, &hd, REGION_BYTES, 0, dev, (void **)&src));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, REGION_BYTES, 0, dev, (void **)&dst));
    ze_command_list_handle_t l = immediate_list(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct region_case *t = &cases[i];
        for (size_t b = 0; b < REGION_BYTES; b++) {
            src[b] = (unsigned char)(b * 131 + b / 256 + 1);
            dst[b] = expected[b] = 0xee;
        }
        size_t inside = region_reference(t, src, expected);
        CHECK(zeCommandListAppendMemoryCopyRegion(l, dst, &t->dst, t->dpitch, t->dslice, src, &t->src, t->spitch, t->sslice,
                                                  NULL, 0, NULL));
        size_t wrong = 0;
        for (size_t b = 0; b < REGION_BYTES; b++)
            wrong += dst[b] != expected[b];
        printf("region.%s.inside=%zu\nregion.%s.wrong=%zu\n", t->name, inside, t->name, wrong);
    }
    /* From another context's host memory, then back into it from this context's shared memory. */
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t other;
    unsigned char *theirs;
    CHECK(zeContextCreate(drv, &cd, &other));
    CHECK(zeMemAllocHost(other, &hd, REGION_BYTES, 0, (void **)&theirs));
    for (size_t b = 0; b < REGION_BYTES; b++) {
        theirs[b] = (unsigned char)(b * 7 + 3);
        dst[b] = 0xee;
    }
    CHECK(zeCommandListAppendMemoryCopyFromContext(l, dst, other, theirs, REGION_BYTES, NULL, 0, NULL));
    size_t wrong = 0;
    for (size_t b = 0; b < REGION_BYTES; b++) {
        wrong += dst[b] != (unsigned char)(b * 7 + 3);
        src[b] = (unsigned char)(b * 5 + 1);
    }
    CHECK(zeCommandListAppendMemoryCopyFromContext(l, theirs, ctx, src, REGION_BYTES, NULL, 0, NULL));
    for (size_t b = 0; b < REGION_BYTES; b++)
        wrong += theirs[b] != (unsigned char)(b * 5 + 1);
    printf("region.fromContext.wrong=%zu\n", wrong);
    CHECK(zeMemFree(other, theirs));
    CHECK(zeContextDestroy(other));
    CHECK(zeCommandListDestroy(l));
    CHECK(zeMemFree(ctx, src));
    CHECK(zeMemFree(ctx, dst));
    return 0;
}

/* OpenCL 2.0 atomics on generic pointers (atomics20.cl): every work-item adds its id and then 1 to one counter, stores
   and loads back its own flag, and counts itself in its group's local counter. Prints whether the module built and
   how many values are wrong. */
static int atomics_mode(const char *spv)
{
    enum { ITEMS = 1024, GROUP = 64 };
    size_t size;
    unsigned char *bytes = read_all(spv, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, bytes, "", NULL};
    ze_module_handle_t mod = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t created = zeModuleCreate(ctx, dev, &md, &mod, &log);
    free(bytes);
    printf("atomics.module=0x%x\n", (unsigned)created);
    if (created != ZE_RESULT_SUCCESS) {
        size_t len = 0;
        zeModuleBuildLogGetString(log, &len, NULL);
        char *text = malloc(len + 1);
        zeModuleBuildLogGetString(log, &len, text);
        fprintf(stderr, "%s\n", text);
        free(text);
        zeModuleBuildLogDestroy(log);
        return 1;
    }
    zeModuleBuildLogDestroy(log);
    ze_kernel_handle_t k = make_kernel(mod, "atomics20");
    int *counter, *flags, *seen, *totals;
    CHECK(zeMemAllocShared(ctx, &dd, &hd, sizeof *counter, 0, dev, (void **)&counter));
    CHECK(zeMemAllocDevice(ctx, &dd, ITEMS * sizeof *flags, 0, dev, (void **)&flags));
    CHECK(zeMemAllocHost(ctx, &hd, ITEMS * sizeof *seen, 0, (void **)&seen));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, ITEMS / GROUP * sizeof *totals, 0, dev, (void **)&totals));
    *counter = 0;
    memset(seen, 0xff, ITEMS * sizeof *seen);
    CHECK(zeKernelSetArgumentValue(k, 0, sizeof counter, &counter));
    CHECK(zeKernelSetArgumentValue(k, 1, sizeof flags, &flags));
    CHECK(zeKernelSetArgumentValue(k, 2, sizeof seen, &seen));
    CHECK(zeKernelSetArgumentValue(k, 3, sizeof totals, &totals));
    CHECK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    ze_group_count_t count = {ITEMS / GROUP, 1, 1};
    ze_command_list_handle_t l = immediate_list(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    CHECK(zeCommandListAppendLaunchKernel(l, k, &count, NULL, 0, NULL));
    int wrong = 0;
    for (int i = 0; i < ITEMS; i++)
        wrong += seen[i] != i * 3;
    for (int g = 0; g < ITEMS / GROUP; g++)
        wrong += totals[g] != GROUP;
    printf("atomics.counter=%d\n", *counter);
    printf("atomics.expected=%d\n", ITEMS * (ITEMS - 1) / 2 + ITEMS);
    printf("atomics.wrong=%d\n", wrong);
    CHECK(zeCommandListDestroy(l));
    CHECK(zeMemFree(ctx, counter));
    CHECK(zeMemFree(ctx, flags));
    CHECK(zeMemFree(ctx, seen));
    CHECK(zeMemFree(ctx, totals));
    CHECK(zeKernelDestroy(k));
    CHECK(zeModuleDestroy(mod));
    return 0;
}

/* The driver's own tables at this client's API version: how many slots each leaves empty (every slot the version has
   should be set, to an implementation or to the unsupported stub), and what an unimplemented one answers. */
static int slots_mode(const char *unused)
{
    (void)unused;
    const char *driver = getenv("ZE_ENABLE_ALT_DRIVERS");
    void *lib = driver ? dlopen(driver, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (lib == NULL) {
        printf("slots.result=driver not loaded\n");
        return 1;
    }
#define COUNT_NULLS(getter, type, name)                                                                   \
    {                                                                                                     \
        type t;                                                                                           \
        memset(&t, 0, sizeof t);                                                                          \
        ze_result_t (*get)(ze_api_version_t, type *) = (ze_result_t(*)(ze_api_version_t, type *))dlsym(lib, getter); \
        void **slot = (void **)&t;                                                                        \
        unsigned nulls = 0;                                                                               \
        ze_result_t r = get ? get(ZE_API_VERSION_CURRENT, &t) : ZE_RESULT_ERROR_UNINITIALIZED;             \
        for (size_t i = 0; i < sizeof t / sizeof *slot; i++)                                               \
            nulls += slot[i] == NULL;                                                                     \
        printf("slots.%s=0x%x %u/%zu empty\n", name, (unsigned)r, nulls, sizeof t / sizeof *slot);         \
    }
    COUNT_NULLS("zeGetImageProcAddrTable", ze_image_dditable_t, "image")
    COUNT_NULLS("zeGetCommandListProcAddrTable", ze_command_list_dditable_t, "commandList")
    COUNT_NULLS("zeGetDeviceProcAddrTable", ze_device_dditable_t, "device")
    COUNT_NULLS("zeGetMemProcAddrTable", ze_mem_dditable_t, "mem")
    COUNT_NULLS("zeGetEventPoolProcAddrTable", ze_event_pool_dditable_t, "eventPool")
    COUNT_NULLS("zeGetKernelExpProcAddrTable", ze_kernel_exp_dditable_t, "kernelExp")
    COUNT_NULLS("zetGetMetricGroupProcAddrTable", zet_metric_group_dditable_t, "metricGroup")
    COUNT_NULLS("zesGetDeviceProcAddrTable", zes_device_dditable_t, "sysmanDevice")
#undef COUNT_NULLS
    ze_image_dditable_t image;
    memset(&image, 0, sizeof image);
    ze_result_t (*get)(ze_api_version_t, ze_image_dditable_t *) =
        (ze_result_t(*)(ze_api_version_t, ze_image_dditable_t *))dlsym(lib, "zeGetImageProcAddrTable");
    if (get && get(ZE_API_VERSION_CURRENT, &image) == ZE_RESULT_SUCCESS && image.pfnCreate) {
        ze_image_handle_t img = NULL;
        printf("slots.imageCreate=0x%x\n", (unsigned)image.pfnCreate(ctx, dev, NULL, &img));
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s align|props|sequence|freewait|holds|region|append|slots <vector_add.spv> | atomics <atomics20.spv> | specialize|native <spec_const.spv> | refuse <vector_add.spv> <struct_arg.spv>\n", argv[0]);
        return 2;
    }
    open_first_device(&drv, &dev, &ctx);
    static const struct {
        const char *name;
        int (*run)(const char *spv);
    } modes[] = {{"align", align_mode},           {"props", props_mode},   {"sequence", sequence_mode},
                 {"freewait", freewait_mode},     {"append", append_mode}, {"specialize", specialize_mode},
                 {"native", native_mode},         {"region", region_mode}, {"holds", holds_mode},
                 {"slots", slots_mode},           {"atomics", atomics_mode}};
    int rc = 2;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(argv[1], modes[i].name) == 0)
            rc = modes[i].run(argv[2]);
    if (strcmp(argv[1], "refuse") == 0 && argc > 3)
        rc = refuse_mode(argv[2], argv[3]);
    CHECK(zeContextDestroy(ctx));
    return rc;
}
