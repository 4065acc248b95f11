/* Driver, device and context entry points, plus the lazy OpenCL (PoCL) start-up they all rely on. */
#include "entrypoints.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rd_state rd = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .exec_lock = PTHREAD_MUTEX_INITIALIZER,
    .driver = {RD_TAG_DRIVER},
    .device = {RD_TAG_DEVICE},
};

/* The calling thread's last message, for zeDriverGetLastErrorDescription. */
static __thread char last_error[512];

void rd_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "xpu-setup refdriver: %s\n", last_error);
}

int rd_valid(const void *h, uint32_t tag)
{
    return h != NULL && *(const uint32_t *)h == tag;
}

uint64_t rd_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int find_pocl(void)
{
    cl_uint n = 0;
    if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0)
        return 0;
    cl_platform_id *ids = calloc(n, sizeof *ids);
    if (ids == NULL || clGetPlatformIDs(n, ids, NULL) != CL_SUCCESS) {
        free(ids);
        return 0;
    }
    int found = 0;
    for (cl_uint i = 0; i < n && !found; i++) {
        char name[256] = {0};
        clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        if (strstr(name, "Portable Computing Language") == NULL)
            continue;
        if (clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_CPU, 1, &rd.cl_dev, NULL) == CL_SUCCESS) {
            rd.platform = ids[i];
            found = 1;
        }
    }
    free(ids);
    return found;
}

/* OpenCL 2.1+ devices that read SPIR-V say so in CL_DEVICE_IL_VERSION ("SPIR-V_1.5 SPIR-V_1.4 ..." on PoCL 7); PoCL 3.1,
   built without it, answers an empty string. */
static int device_takes_spirv(void)
{
    size_t len = 0;
    if (clGetDeviceInfo(rd.cl_dev, CL_DEVICE_IL_VERSION, 0, NULL, &len) != CL_SUCCESS || len <= 1)
        return 0;
    char *il = calloc(1, len + 1);
    int takes = il != NULL && clGetDeviceInfo(rd.cl_dev, CL_DEVICE_IL_VERSION, len, il, NULL) == CL_SUCCESS &&
                strstr(il, "SPIR-V") != NULL;
    free(il);
    return takes;
}

/* "major.minor.build[+hotfix]" -> major<<24 | minor<<16 | build; 0 when the text is not that or a field overflows. */
static int parse_driver_version(const char *text, uint32_t *packed)
{
    unsigned major, minor, build, hotfix;
    int used = 0, more = 0;
    if (*text < '0' || *text > '9' || sscanf(text, "%u.%u.%u%n", &major, &minor, &build, &used) != 3)
        return 0;
    const char *rest = text + used;
    if (*rest == '+' && sscanf(rest, "+%u%n", &hotfix, &more) == 1 && more > 1)
        rest += more;
    if (*rest != '\0' || major > 255 || minor > 255 || build > 65535)
        return 0;
    *packed = (major << 24) | (minor << 16) | build;
    return 1;
}

/* "major.minor.revision" -> the GMDID (major<<22 | minor<<14 | revision); 0 when the text is not that or overflows. */
static int parse_ip_version(const char *text, uint32_t *ip)
{
    unsigned major, minor, revision;
    int used = 0;
    if (*text < '0' || *text > '9' || sscanf(text, "%u.%u.%u%n", &major, &minor, &revision, &used) != 3 || text[used] != '\0')
        return 0;
    if (major > 1023 || minor > 255 || revision > 63)
        return 0;
    *ip = (major << 22) | (minor << 14) | revision;
    return 1;
}

/* The profile's identity, with the overrides the environment asks for (to run other steppings and LTS drivers). */
static int resolve_identity(void)
{
    const char *ver = getenv("XPU_SETUP_REFDRIVER_DRIVER_VERSION");
    if (ver == NULL || *ver == '\0')
        ver = rd.profile->type == ZE_DEVICE_TYPE_CPU ? RD_OWN_DRIVER_VERSION : RD_ROLLING_DRIVER_VERSION;
    if (strlen(ver) >= sizeof rd.driver_version_string || !parse_driver_version(ver, &rd.driver_version)) {
        rd_log("XPU_SETUP_REFDRIVER_DRIVER_VERSION '%s' is not major.minor.build[+hotfix] (e.g. 1.6.33578+51)", ver);
        return 0;
    }
    snprintf(rd.driver_version_string, sizeof rd.driver_version_string, "%s", ver);
    rd.ip_version = rd.profile->ip_version;
    const char *ip = getenv("XPU_SETUP_REFDRIVER_IP");
    if (ip != NULL && *ip != '\0') {
        if (rd.profile->type == ZE_DEVICE_TYPE_CPU) {
            rd_log("XPU_SETUP_REFDRIVER_IP needs a GPU profile (XPU_SETUP_REFDRIVER_PROFILE), not '%s'", rd.profile->key);
            return 0;
        }
        if (!parse_ip_version(ip, &rd.ip_version)) {
            rd_log("XPU_SETUP_REFDRIVER_IP '%s' is not major.minor.revision (e.g. 20.1.0)", ip);
            return 0;
        }
    }
    return 1;
}

static ze_result_t init_locked(void)
{
    const char *key = getenv("XPU_SETUP_REFDRIVER_PROFILE");
    rd.profile = rd_profile_find(key);
    if (rd.profile == NULL) {
        rd_log("unknown XPU_SETUP_REFDRIVER_PROFILE '%s' (known: default pvc bmg dg2 lnl mtl arl_h ptl_h)", key);
        return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    if (!resolve_identity())
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (rd.profile->type == ZE_DEVICE_TYPE_CPU)
        snprintf(rd.device_name, sizeof rd.device_name, "%s", rd.profile->name);
    else
        snprintf(rd.device_name, sizeof rd.device_name, "%s%s", rd.profile->name, RD_NAME_SUFFIX);

    if (!find_pocl()) {
        rd_log("no PoCL CPU device found through the OpenCL ICD loader (install pocl-opencl-icd)");
        return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    cl_device_svm_capabilities svm = 0;
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
    if (!(svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER)) {
        rd_log("the PoCL device lacks fine-grained buffer SVM, which host/device/shared memory needs");
        return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    rd.takes_spirv = device_takes_spirv();
    cl_int err;
    rd.cl_ctx = clCreateContext(NULL, 1, &rd.cl_dev, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return ZE_RESULT_ERROR_UNINITIALIZED;
    cl_queue_properties qprops[] = {0};
    rd.cl_queue = clCreateCommandQueueWithProperties(rd.cl_ctx, rd.cl_dev, qprops, &err);
    if (err != CL_SUCCESS) {
        clReleaseContext(rd.cl_ctx);
        return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof rd.max_group_size, &rd.max_group_size, NULL);
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof rd.max_item_sizes, rd.max_item_sizes, NULL);
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof rd.max_alloc, &rd.max_alloc, NULL);
    cl_uint base_align_bits = 0;
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof base_align_bits, &base_align_bits, NULL);
    rd.svm_alignment = base_align_bits >= 64 ? base_align_bits / 8 : sizeof(cl_long16);
    /* cl_ext_float_atomics capabilities use the bit values of ze_device_fp_atomic_ext_flags_t; a device without the
       extension rejects the query and has none. */
    static const cl_device_info fp_atomic_queries[3] = {RD_CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT,
                                                        RD_CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT,
                                                        RD_CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT};
    for (int i = 0; i < 3; i++) {
        cl_bitfield caps = 0;
        if (clGetDeviceInfo(rd.cl_dev, fp_atomic_queries[i], sizeof caps, &caps, NULL) != CL_SUCCESS)
            caps = 0;
        rd.fp_atomics[i] = (ze_device_fp_atomic_ext_flags_t)(caps & RD_FP_ATOMIC_FLAGS);
    }
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof rd.global_mem, &rd.global_mem, NULL);
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof rd.local_mem, &rd.local_mem, NULL);
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof rd.compute_units, &rd.compute_units, NULL);
    clGetDeviceInfo(rd.cl_dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof rd.clock_mhz, &rd.clock_mhz, NULL);
    rd.module_flags = rd.profile->module_flags;
    if (rd.module_flags & RD_MODULE_FROM_OPENCL) {
        /* The default profile is the PoCL device: its own extension list says what it has. */
        char ext[8192] = {0};
        clGetDeviceInfo(rd.cl_dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
        rd.module_flags = 0;
        if (strstr(ext, "cl_khr_fp16"))
            rd.module_flags |= ZE_DEVICE_MODULE_FLAG_FP16;
        if (strstr(ext, "cl_khr_fp64"))
            rd.module_flags |= ZE_DEVICE_MODULE_FLAG_FP64;
        if (strstr(ext, "cl_khr_int64_base_atomics"))
            rd.module_flags |= ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
    }
    if (rd.profile->max_group_size && rd.profile->max_group_size < rd.max_group_size)
        rd.max_group_size = rd.profile->max_group_size;
    for (int i = 0; i < 3; i++)
        if (rd.max_item_sizes[i] > rd.max_group_size)
            rd.max_item_sizes[i] = rd.max_group_size;
    return ZE_RESULT_SUCCESS;
}

/* zeInitDrivers-style loaders never call zeInit, so every entry point that can come first initialises lazily. */
ze_result_t rd_ensure_init(void)
{
    pthread_mutex_lock(&rd.lock);
    if (!rd.attempted) {
        rd.init_result = init_locked();
        rd.attempted = 1;
    }
    ze_result_t r = rd.init_result;
    pthread_mutex_unlock(&rd.lock);
    return r;
}

ze_result_t rdGlobalInit(ze_init_flags_t flags)
{
    if (flags & ~(ze_init_flags_t)(ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return rd_ensure_init();
}

/* ---- driver ---- */

#if defined(ZE_API_VERSION_CURRENT_M) && ZE_API_VERSION_CURRENT_M >= ZE_MAKE_VERSION(1, 10)
/* Level Zero has no CPU driver type, so the reference driver answers requests for GPU drivers. */
ze_result_t rdGlobalInitDrivers(uint32_t *pCount, ze_driver_handle_t *phDrivers, ze_init_driver_type_desc_t *desc)
{
    if (pCount == NULL || desc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!(desc->flags & ZE_INIT_DRIVER_TYPE_FLAG_GPU)) {
        *pCount = 0;
        return ZE_RESULT_SUCCESS;
    }
    return rdDriverGet(pCount, phDrivers);
}
#endif

ze_result_t rdDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers)
{
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (rd_ensure_init() != ZE_RESULT_SUCCESS) {
        *pCount = 0;
        return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    if (*pCount == 0 || phDrivers == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    phDrivers[0] = &rd.driver;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDriverGetApiVersion(ze_driver_handle_t h, ze_api_version_t *version)
{
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (version == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Loaders expect DDI-handle support from drivers reporting 1.17 or later, which this driver does not have. */
    *version = ZE_API_VERSION_CURRENT < ZE_MAKE_VERSION(1, 16) ? ZE_API_VERSION_CURRENT : ZE_MAKE_VERSION(1, 16);
    return ZE_RESULT_SUCCESS;
}

static void make_uuid(uint8_t *out, size_t n, const char *salt)
{
    /* FNV-1a over a fixed label: stable across runs, distinct per profile. */
    uint64_t h = 1469598103934665603ull;
    for (const char *p = "xpu-setup-refdriver:"; *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    for (const char *p = salt; *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ i) * 1099511628211ull;
        out[i] = (uint8_t)(h >> 56);
    }
}

ze_result_t rdDriverGetProperties(ze_driver_handle_t h, ze_driver_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    make_uuid(p->uuid.id, ZE_MAX_DRIVER_UUID_SIZE, "driver");
    p->driverVersion = rd.driver_version;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDriverGetIpcProperties(ze_driver_handle_t h, ze_driver_ipc_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0;
    return ZE_RESULT_SUCCESS;
}

static const struct {
    const char *name;
    uint32_t version;
} extensions[] = {
    {"ZE_extension_device_ip_version", ZE_MAKE_VERSION(1, 0)},
    {"ZE_intel_experimental_device_module_dp_properties", ZE_MAKE_VERSION(1, 0)},
    {"ZE_intel_experimental_device_block_array_properties", ZE_MAKE_VERSION(1, 0)},
    {"ZE_intel_get_driver_version_string", ZE_MAKE_VERSION(1, 0)},
    {"ZE_extension_float_atomics", ZE_MAKE_VERSION(1, 0)},
    {"ZE_extension_kernel_max_group_size_properties", ZE_MAKE_VERSION(1, 0)},
#if RD_HEADERS_HAVE(9)
    {"ZE_experimental_immediate_command_list_append", ZE_MAKE_VERSION(1, 0)},
#endif
};

/* zeIntelGetDriverVersionString (compute-runtime's ze_intel_gpu.h): with *pSize == 0 or no buffer it reports the
   length without the terminating NUL; otherwise it copies at most *pSize bytes. */
static ze_result_t rdIntelGetDriverVersionString(ze_driver_handle_t h, char *pVersion, size_t *pSize)
{
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t len = strlen(rd.driver_version_string);
    if (*pSize == 0 || pVersion == NULL) {
        *pSize = len;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < len + 1 ? *pSize : len + 1;
    memcpy(pVersion, rd.driver_version_string, n);
    pVersion[n - 1] = '\0';
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDriverGetExtensionProperties(ze_driver_handle_t h, uint32_t *pCount, ze_driver_extension_properties_t *p)
{
    const uint32_t total = sizeof extensions / sizeof extensions[0];
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || p == NULL) {
        *pCount = total;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *pCount < total ? *pCount : total;
    for (uint32_t i = 0; i < n; i++) {
        snprintf(p[i].name, ZE_MAX_EXTENSION_NAME, "%s", extensions[i].name);
        p[i].version = extensions[i].version;
    }
    *pCount = n;
    return ZE_RESULT_SUCCESS;
}

#if RD_HEADERS_HAVE(6)
ze_result_t rdDriverGetLastErrorDescription(ze_driver_handle_t h, const char **ppString)
{
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ppString == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *ppString = last_error;
    return ZE_RESULT_SUCCESS;
}
#endif

ze_result_t rdDriverGetExtensionFunctionAddress(ze_driver_handle_t h, const char *name, void **ppFunction)
{
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (name == NULL || ppFunction == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (strcmp(name, "zeIntelGetDriverVersionString") == 0) {
        *ppFunction = (void *)rdIntelGetDriverVersionString;
        return ZE_RESULT_SUCCESS;
    }
    *ppFunction = NULL;
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* ---- device ---- */

/* ZE_AFFINITY_MASK, applied by the driver as compute-runtime does: a comma-separated list of "root" or
   "root.sub" indices; set and non-empty, it hides every device it does not name. This driver has one root device. */
static int affinity_keeps_device0(void)
{
    const char *mask = getenv("ZE_AFFINITY_MASK");
    if (mask == NULL || *mask == '\0')
        return 1;
    for (const char *p = mask; *p != '\0';) {
        char *end;
        long root = strtol(p, &end, 10);
        if (end != p && root == 0 && (*end == '\0' || *end == ',' || *end == '.'))
            return 1;
        p = strchr(p, ',');
        if (p == NULL)
            break;
        p++;
    }
    return 0;
}

ze_result_t rdDeviceGet(ze_driver_handle_t h, uint32_t *pCount, ze_device_handle_t *phDevices)
{
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t visible = affinity_keeps_device0() ? 1 : 0;
    if (*pCount == 0 || phDevices == NULL) {
        *pCount = visible;
        return ZE_RESULT_SUCCESS;
    }
    if (visible)
        phDevices[0] = &rd.device;
    *pCount = visible;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetSubDevices(ze_device_handle_t h, uint32_t *pCount, ze_device_handle_t *ph)
{
    (void)ph;
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pCount = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetProperties(ze_device_handle_t h, ze_device_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const rd_profile *pr = rd.profile;
    p->type = pr->type;
    p->vendorId = pr->vendor_id;
    p->deviceId = pr->device_id;
    p->flags = pr->integrated ? ZE_DEVICE_PROPERTY_FLAG_INTEGRATED : 0;
    p->subdeviceId = 0;
    p->coreClockRate = rd.clock_mhz;
    p->maxMemAllocSize = rd.max_alloc;
    p->maxHardwareContexts = 1;
    p->maxCommandQueuePriority = 0;
    p->numThreadsPerEU = 1;
    p->physicalEUSimdWidth = 1;
    p->numEUsPerSubslice = rd.compute_units;
    p->numSubslicesPerSlice = 1;
    p->numSlices = 1;
    /* Timestamps are CLOCK_MONOTONIC nanoseconds; the 1.2 struct expresses resolution as ticks per second. */
    p->timerResolution = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000000ull : 1;
    p->timestampValidBits = 64;
    p->kernelTimestampValidBits = 64;
    make_uuid(p->uuid.id, ZE_MAX_DEVICE_UUID_SIZE, pr->key);
    snprintf(p->name, ZE_MAX_DEVICE_NAME, "%s", rd.device_name);

    for (ze_base_properties_t *ext = p->pNext; ext != NULL; ext = ext->pNext) {
        if (ext->stype == RD_STYPE_DEVICE_IP_VERSION_EXT)
            ((rd_device_ip_version_ext_t *)ext)->ipVersion = rd.ip_version;
        else if (ext->stype == RD_STYPE_INTEL_DEVICE_BLOCK_ARRAY_EXP_PROPERTIES)
            ((rd_intel_flags_props_t *)ext)->flags = pr->block_flags;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetComputeProperties(ze_device_handle_t h, ze_device_compute_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->maxTotalGroupSize = (uint32_t)rd.max_group_size;
    p->maxGroupSizeX = (uint32_t)rd.max_item_sizes[0];
    p->maxGroupSizeY = (uint32_t)rd.max_item_sizes[1];
    p->maxGroupSizeZ = (uint32_t)rd.max_item_sizes[2];
    p->maxGroupCountX = UINT32_MAX;
    p->maxGroupCountY = UINT32_MAX;
    p->maxGroupCountZ = UINT32_MAX;
    p->maxSharedLocalMemory = (uint32_t)rd.local_mem;
    p->numSubGroupSizes = rd.profile->num_sub_group_sizes;
    memset(p->subGroupSizes, 0, sizeof p->subGroupSizes);
    for (uint32_t i = 0; i < p->numSubGroupSizes; i++)
        p->subGroupSizes[i] = rd.profile->sub_group_sizes[i];
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetModuleProperties(ze_device_handle_t h, ze_device_module_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 2); /* what llvm-spirv-15 reads */
    /* What the impersonated GPU reports; a kernel the CPU cannot run then fails to build, as a runtime error. */
    p->flags = rd.module_flags;
    if (rd.profile->dp_flags & RD_DP_FLAG_DP4A)
        p->flags |= ZE_DEVICE_MODULE_FLAG_DP4A;
    ze_device_fp_flags_t fp = ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN | ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST |
                              ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO | ZE_DEVICE_FP_FLAG_ROUND_TO_INF | ZE_DEVICE_FP_FLAG_FMA;
    p->fp16flags = (rd.module_flags & ZE_DEVICE_MODULE_FLAG_FP16) ? fp : 0;
    p->fp32flags = fp;
    p->fp64flags = (rd.module_flags & ZE_DEVICE_MODULE_FLAG_FP64) ? fp : 0;
    p->maxArgumentsSize = 1024;
    p->printfBufferSize = 1024 * 1024;
    memset(&p->nativeKernelSupported, 0, sizeof p->nativeKernelSupported);
    for (ze_base_properties_t *ext = p->pNext; ext != NULL; ext = ext->pNext) {
        if (ext->stype == RD_STYPE_INTEL_DEVICE_MODULE_DP_EXP_PROPERTIES) {
            ((rd_intel_flags_props_t *)ext)->flags = rd.profile->dp_flags;
        } else if (ext->stype == ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES) {
            /* Every profile answers what the PoCL device runs: a float atomic it lacks would not build. */
            ze_float_atomic_ext_properties_t *fa = (ze_float_atomic_ext_properties_t *)ext;
            fa->fp16Flags = rd.fp_atomics[0];
            fa->fp32Flags = rd.fp_atomics[1];
            fa->fp64Flags = rd.fp_atomics[2];
        }
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetCommandQueueGroupProperties(ze_device_handle_t h, uint32_t *pCount,
                                                   ze_command_queue_group_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || p == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    p[0].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    p[0].maxMemoryFillPatternSize = 128;
    p[0].numQueues = 1;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetMemoryProperties(ze_device_handle_t h, uint32_t *pCount, ze_device_memory_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || p == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    /* Host memory seen through PoCL: neither OpenCL nor Linux (without root and SMBIOS) says its clock or bus width,
       and 0 is what Intel's driver reports for a value it does not know. */
    p[0].flags = 0;
    p[0].maxClockRate = 0;
    p[0].maxBusWidth = 0;
    p[0].totalSize = rd.global_mem;
    snprintf(p[0].name, ZE_MAX_DEVICE_NAME, "%s", "host memory (PoCL SVM)");
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetMemoryAccessProperties(ze_device_handle_t h, ze_device_memory_access_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_memory_access_cap_flags_t all = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC |
                                       ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;
    p->hostAllocCapabilities = all;
    p->deviceAllocCapabilities = all;
    p->sharedSingleDeviceAllocCapabilities = all;
    p->sharedCrossDeviceAllocCapabilities = 0;
    p->sharedSystemAllocCapabilities = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetCacheProperties(ze_device_handle_t h, uint32_t *pCount, ze_device_cache_properties_t *p)
{
    (void)p;
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pCount = 0; /* PoCL reports no device-managed cache */
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetImageProperties(ze_device_handle_t h, ze_device_image_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->maxImageDims1D = p->maxImageDims2D = p->maxImageDims3D = 0; /* images are not implemented */
    p->maxImageBufferSize = 0;
    p->maxImageArraySlices = 0;
    p->maxSamplers = 0;
    p->maxReadImageArgs = p->maxWriteImageArgs = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetExternalMemoryProperties(ze_device_handle_t h, ze_device_external_memory_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->memoryAllocationImportTypes = p->memoryAllocationExportTypes = 0;
    p->imageImportTypes = p->imageExportTypes = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetP2PProperties(ze_device_handle_t h, ze_device_handle_t peer, ze_device_p2p_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_DEVICE) || !rd_valid(peer, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceCanAccessPeer(ze_device_handle_t h, ze_device_handle_t peer, ze_bool_t *value)
{
    if (!rd_valid(h, RD_TAG_DEVICE) || !rd_valid(peer, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (value == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *value = h == peer;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdDeviceGetStatus(ze_device_handle_t h)
{
    return rd_valid(h, RD_TAG_DEVICE) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

#if RD_HEADERS_HAVE(7)
ze_result_t rdDeviceGetRootDevice(ze_device_handle_t h, ze_device_handle_t *root)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (root == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *root = NULL; /* the device is a root device */
    return ZE_RESULT_SUCCESS;
}
#endif

ze_result_t rdDeviceGetGlobalTimestamps(ze_device_handle_t h, uint64_t *host, uint64_t *dev)
{
    if (!rd_valid(h, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (host == NULL || dev == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *host = *dev = rd_now_ns();
    return ZE_RESULT_SUCCESS;
}

/* ---- context ---- */

ze_result_t rdContextCreate(ze_driver_handle_t h, const ze_context_desc_t *desc, ze_context_handle_t *ph)
{
    if (!rd_valid(h, RD_TAG_DRIVER))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    rd_context *c = malloc(sizeof *c);
    if (c == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->tag = RD_TAG_CONTEXT;
    *ph = c;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdContextCreateEx(ze_driver_handle_t h, const ze_context_desc_t *desc, uint32_t n, ze_device_handle_t *devs,
                              ze_context_handle_t *ph)
{
    for (uint32_t i = 0; i < n; i++)
        if (devs == NULL || !rd_valid(devs[i], RD_TAG_DEVICE))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return rdContextCreate(h, desc, ph);
}

ze_result_t rdContextDestroy(ze_context_handle_t h)
{
    if (!rd_valid(h, RD_TAG_CONTEXT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    h->tag = RD_TAG_DEAD;
    free(h);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdContextGetStatus(ze_context_handle_t h)
{
    return rd_valid(h, RD_TAG_CONTEXT) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

ze_result_t rdContextSystemBarrier(ze_context_handle_t h, ze_device_handle_t dev)
{
    if (!rd_valid(h, RD_TAG_CONTEXT) || !rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_SUCCESS; /* every command completes before its engine takes the next one */
}

ze_result_t rdContextMakeMemoryResident(ze_context_handle_t h, ze_device_handle_t dev, void *ptr, size_t size)
{
    (void)size;
    if (!rd_valid(h, RD_TAG_CONTEXT) || !rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ptr == NULL ? ZE_RESULT_ERROR_INVALID_NULL_POINTER : ZE_RESULT_SUCCESS; /* host memory is always resident */
}
