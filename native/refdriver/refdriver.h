/* Internal declarations shared by the CPU reference Level Zero driver's translation units. */
#ifndef XPU_SETUP_REFDRIVER_H
#define XPU_SETUP_REFDRIVER_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define RD_EXPORT __attribute__((visibility("default")))
/* This driver's own version, which the default profile (no GPU impersonated) reports, as
   ZE_intel_get_driver_version_string spells it ("Major.Minor.Build[+Hotfix]"); ze_driver_properties_t.driverVersion
   packs the same as Intel's driver and UR's Level Zero adapter read it: major<<24 | minor<<16 | build. */
#define RD_OWN_DRIVER_VERSION "1.0.0"
/* What GPU profiles report: a current rolling compute-runtime driver (the version PyTorch showed for an Arc Pro B70 in
   2026). Triton's is_lts() reads any version below 1.6.35096+9 as an LTS driver and turns features off for it. */
#define RD_ROLLING_DRIVER_VERSION "1.17.39395+13"
#define RD_NAME_SUFFIX " (xpu-setup CPU reference driver)"

/* Structures newer than the 1.8.12 headers or only in compute-runtime's ze_intel_gpu.h; layouts match upstream. */
#define RD_STYPE_DEVICE_IP_VERSION_EXT ((ze_structure_type_t)0x0001000f)
#define RD_STYPE_INTEL_DEVICE_BLOCK_ARRAY_EXP_PROPERTIES ((ze_structure_type_t)0x00030007)
#define RD_STYPE_INTEL_DEVICE_MODULE_DP_EXP_PROPERTIES ((ze_structure_type_t)0x00030013)
/* cl_ext_float_atomics (OpenCL 3.0): queries and the capability bits, which match ze_device_fp_atomic_ext_flags_t. */
#define RD_CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT 0x4231
#define RD_CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT 0x4232
#define RD_CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT 0x4233
#define RD_FP_ATOMIC_FLAGS 0x70007u
#define RD_STYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES ((ze_structure_type_t)0x00010013)

typedef struct rd_device_ip_version_ext {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t ipVersion;
} rd_device_ip_version_ext_t;

/* ze_kernel_max_group_size_ext_properties_t (ZE_extension_kernel_max_group_size_properties, spec 1.11). */
typedef struct rd_kernel_max_group_size_ext {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t maxGroupSize;
} rd_kernel_max_group_size_ext_t;

typedef struct rd_intel_flags_props {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t flags;
} rd_intel_flags_props_t;

#define RD_DP_FLAG_DP4A (1u << 0)
#define RD_DP_FLAG_DPAS (1u << 1)
#define RD_BLOCK_FLAG_STORE (1u << 0)
#define RD_BLOCK_FLAG_LOAD (1u << 1)

typedef struct rd_profile {
    const char *key;
    const char *name; /* without RD_NAME_SUFFIX for GPU profiles */
    ze_device_type_t type;
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t ip_version;
    uint32_t num_sub_group_sizes;
    uint32_t sub_group_sizes[4];
    uint32_t dp_flags;
    uint32_t block_flags;
    uint32_t max_group_size; /* 0: whatever the OpenCL device allows */
    int integrated;
    /* ze_device_module_flags_t FP16/FP64/INT64_ATOMICS as the real GPU's driver reports them;
       RD_MODULE_FROM_OPENCL: what the PoCL device itself has (the default profile is that device). */
    uint32_t module_flags;
} rd_profile;

#define RD_MODULE_FROM_OPENCL 0x80000000u

const rd_profile *rd_profile_find(const char *key);

/* Every object handed out starts with a tag so stale or foreign handles are rejected, not dereferenced blindly. */
enum rd_tag {
    RD_TAG_DRIVER = 0x52440001,
    RD_TAG_DEVICE,
    RD_TAG_CONTEXT,
    RD_TAG_QUEUE,
    RD_TAG_CMDLIST,
    RD_TAG_EVENT_POOL,
    RD_TAG_EVENT,
    RD_TAG_FENCE,
    RD_TAG_MODULE,
    RD_TAG_BUILD_LOG,
    RD_TAG_KERNEL,
    RD_TAG_DEAD = 0x52440dea,
};

typedef struct _ze_driver_handle_t {
    uint32_t tag;
} rd_driver;

typedef struct _ze_device_handle_t {
    uint32_t tag;
} rd_device;

typedef struct _ze_context_handle_t {
    uint32_t tag;
} rd_context;

struct rd_state {
    pthread_mutex_t lock;
    int attempted;
    ze_result_t init_result;
    const rd_profile *profile;
    char device_name[ZE_MAX_DEVICE_NAME];
    cl_platform_id platform;
    cl_device_id cl_dev;
    cl_context cl_ctx;
    cl_command_queue cl_queue;
    int takes_spirv; /* the device lists SPIR-V in CL_DEVICE_IL_VERSION: modules go to clCreateProgramWithIL */
    pthread_mutex_t exec_lock; /* kernel argument state and the OpenCL queue are shared by every engine */
    size_t max_group_size;
    size_t max_item_sizes[3];
    cl_ulong max_alloc;
    size_t svm_alignment; /* the largest alignment clSVMAlloc grants (CL_DEVICE_MEM_BASE_ADDR_ALIGN) */
    ze_device_fp_atomic_ext_flags_t fp_atomics[3]; /* fp16, fp32, fp64: what the PoCL device reports */
    cl_ulong global_mem;
    cl_ulong local_mem;
    cl_uint compute_units;
    cl_uint clock_mhz;
    uint32_t module_flags; /* FP16/FP64/INT64_ATOMICS, resolved at init */
    uint32_t driver_version;       /* packed, from driver_version_string */
    char driver_version_string[64]; /* the profile's, or XPU_SETUP_REFDRIVER_DRIVER_VERSION */
    uint32_t ip_version;           /* the profile's, or XPU_SETUP_REFDRIVER_IP */
    rd_driver driver;
    rd_device device;
};
extern struct rd_state rd;

ze_result_t rd_ensure_init(void);
int rd_valid(const void *h, uint32_t tag);
uint64_t rd_now_ns(void);
void rd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation table: lets kernel argument checks and zeMemGetAllocProperties know what a pointer is. */
typedef struct rd_alloc {
    void *base;
    size_t size;
    ze_memory_type_t type;
    uint64_t id;
} rd_alloc;
int rd_alloc_lookup(const void *ptr, rd_alloc *out);
/* Marks the allocation holding ptr as used by a queued command (NULL: not this driver's memory); zeMemFree waits
   until every hold is released. */
typedef struct rd_alloc_rec rd_alloc_rec;
rd_alloc_rec *rd_alloc_hold(const void *ptr);
void rd_alloc_release(rd_alloc_rec *r);

/* SPIR-V kernel interface: what each parameter is, for zeKernelSetArgumentValue. */
enum rd_arg_kind { RD_ARG_VALUE, RD_ARG_GLOBAL_PTR, RD_ARG_LOCAL_PTR, RD_ARG_UNSUPPORTED };
typedef struct rd_param {
    enum rd_arg_kind kind;
    size_t size; /* value size in bytes; 0 when it cannot be known */
} rd_param;
typedef struct rd_kernel_info {
    char *name;
    uint32_t nparams;
    rd_param *params;
    uint32_t reqd_group[3]; /* zeros when the kernel has none */
    uint32_t reqd_sub_group;
} rd_kernel_info;
typedef struct rd_spirv_info {
    uint32_t nkernels;
    rd_kernel_info *kernels;
} rd_spirv_info;
int rd_spirv_parse(const uint8_t *bytes, size_t size, rd_spirv_info *out, char *err, size_t errlen);
void rd_spirv_free(rd_spirv_info *info);
int rd_spirv_specialize(const uint8_t *bytes, size_t size, uint32_t count, const uint32_t *spec_ids, const void *const *values,
                        uint32_t **out, char *err, size_t errlen);
int rd_spirv_lower_generic_atomics(const uint8_t *bytes, size_t size, uint32_t **out, size_t *out_size, char *err,
                                   size_t errlen);

typedef struct _ze_module_handle_t {
    uint32_t tag;
    cl_program program;
    rd_spirv_info info;
    uint64_t id;
    unsigned char *native; /* what zeModuleGetNativeBinary returns */
    size_t native_size;
    unsigned refs; /* the handle plus each kernel (atomic): kernels read the module's tables until their last use */
} rd_module;
void rd_module_unref(rd_module *m);

typedef struct _ze_module_build_log_handle_t {
    uint32_t tag;
    char *text;
} rd_build_log;

typedef struct rd_arg {
    int set;
    enum rd_arg_kind kind;
    size_t size;
    void *ptr;           /* RD_ARG_GLOBAL_PTR */
    unsigned char *bytes; /* RD_ARG_VALUE */
} rd_arg;

typedef struct _ze_kernel_handle_t {
    uint32_t tag;
    rd_module *module;
    const rd_kernel_info *info;
    cl_kernel cl;
    uint32_t group[3];
    rd_arg *args;
    size_t cl_max_group;
    size_t preferred_multiple;
    cl_ulong local_mem;
    cl_ulong private_mem;
    ze_kernel_indirect_access_flags_t indirect;
    unsigned refs; /* the handle plus each recorded launch (atomic): the object goes with the last */
} rd_kernel;
void rd_kernel_unref(rd_kernel *k);

typedef struct _ze_event_pool_handle_t {
    uint32_t tag;
    ze_context_handle_t ctx;
    ze_event_pool_flags_t flags;
    uint32_t count;
    struct _ze_event_handle_t **slots;
} rd_event_pool;

typedef struct _ze_event_handle_t {
    uint32_t tag;
    rd_event_pool *pool; /* NULL once the pool is gone */
    uint32_t index;
    int timestamps; /* the pool's ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP */
    ze_event_scope_flags_t signal_scope, wait_scope;
    int signaled;
    uint64_t ts_start, ts_end;
} rd_event;

typedef struct _ze_fence_handle_t {
    uint32_t tag;
    struct _ze_command_queue_handle_t *queue;
    int signaled;
    unsigned refs; /* the handle plus each queued execution that will set it (under the sync lock) */
} rd_fence;

enum rd_cmd_kind {
    RD_CMD_LAUNCH,
    RD_CMD_COPY,
    RD_CMD_COPY_REGION,
    RD_CMD_FILL,
    RD_CMD_BARRIER,
    RD_CMD_SIGNAL,
    RD_CMD_WAIT,
    RD_CMD_RESET,
    RD_CMD_TIMESTAMP,
};

typedef struct rd_cmd {
    enum rd_cmd_kind kind;
    rd_event *signal;
    uint32_t nwait;
    rd_event **wait;
    union {
        struct {
            rd_kernel *kernel;
            uint32_t count[3];
            const ze_group_count_t *indirect;
            uint32_t group[3];
            rd_arg *args;
        } launch;
        struct {
            void *dst;
            const void *src;
            size_t size;
        } copy;
        struct {
            void *dst;
            const void *src;
            ze_copy_region_t dreg, sreg;
            uint32_t dpitch, dslice, spitch, sslice;
        } region;
        struct {
            void *dst;
            unsigned char pattern[128];
            size_t pattern_size;
            size_t size;
        } fill;
        struct {
            uint64_t *dst;
        } timestamp;
    } u;
} rd_cmd;

typedef struct rd_job rd_job;
typedef struct rd_engine {
    pthread_mutex_t m;
    pthread_cond_t cv;
    pthread_t thread;
    int started;
    int stop;
    rd_job *head, *tail;
    uint64_t submitted, completed;
    ze_result_t error;
} rd_engine;

typedef struct _ze_command_queue_handle_t {
    uint32_t tag;
    ze_command_queue_mode_t mode;
    rd_engine engine;
} rd_queue;

typedef struct _ze_command_list_handle_t {
    uint32_t tag;
    ze_context_handle_t ctx;
    int immediate;
    int closed;
    unsigned inflight; /* regular lists: executions queued or running (under the sync lock) */
    ze_command_queue_mode_t mode;
    rd_cmd *cmds;
    size_t ncmds, cap;
    rd_engine engine; /* immediate lists only */
} rd_cmdlist;

#endif
