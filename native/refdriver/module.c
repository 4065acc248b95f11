/* Modules, build logs and kernels: SPIR-V -> PoCL program, handed to PoCL as SPIR-V where its device reads it
   (clCreateProgramWithIL), else as LLVM bitcode made by llvm-spirv -r. */
#include "entrypoints.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_LLVM_SPIRV "llvm-spirv-15"
#define POCL_SPIR_OPTIONS "-x spir -spir-std=1.2"

static uint64_t next_module_id = 1;

typedef struct {
    char *data;
    size_t len;
} strbuf;

static void sb_add(strbuf *b, const char *s, size_t n)
{
    char *grown = realloc(b->data, b->len + n + 1);
    if (grown == NULL)
        return;
    memcpy(grown + b->len, s, n);
    b->len += n;
    grown[b->len] = '\0';
    b->data = grown;
}

static void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static int write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t n = fwrite(data, 1, size, f);
    return fclose(f) == 0 && n == size ? 0 : -1;
}

static int read_file(const char *path, unsigned char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    strbuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_add(&b, chunk, n);
    fclose(f);
    if (b.data == NULL && (b.data = calloc(1, 1)) == NULL)
        return -1;
    *data = (unsigned char *)b.data;
    *size = b.len;
    return 0;
}

/* Runs `<llvm-spirv> -r in.spv -o out.bc`; on failure appends the tool's output to the log. */
static ze_result_t spirv_to_bitcode(const void *spv, size_t size, unsigned char **bc, size_t *bclen, strbuf *log)
{
    const char *tool = getenv("XPU_SETUP_LLVM_SPIRV");
    if (tool == NULL || *tool == '\0')
        tool = DEFAULT_LLVM_SPIRV;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/xpu-setup-refdriver-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        sb_printf(log, "cannot create a temporary directory %s: %s\n", dir, strerror(errno));
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    char in[4200], out[4200], msgs[4200];
    snprintf(in, sizeof in, "%s/module.spv", dir);
    snprintf(out, sizeof out, "%s/module.bc", dir);
    snprintf(msgs, sizeof msgs, "%s/llvm-spirv.log", dir);
    ze_result_t r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    if (write_file(in, spv, size) != 0) {
        sb_printf(log, "cannot write %s: %s\n", in, strerror(errno));
        r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        goto cleanup;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, msgs, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {(char *)tool, "-r", in, "-o", out, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, tool, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        sb_printf(log, "cannot run %s: %s (install llvm-spirv-15 or point XPU_SETUP_LLVM_SPIRV at llvm-spirv)\n", tool,
                  strerror(rc));
        r = ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE;
        goto cleanup;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || read_file(out, bc, bclen) != 0) {
        if (WIFEXITED(status))
            sb_printf(log, "SPIR-V to LLVM bitcode translation failed: %s -r exited with status %d\n", tool, WEXITSTATUS(status));
        else
            sb_printf(log, "SPIR-V to LLVM bitcode translation failed: %s -r was killed by signal %d\n", tool, WTERMSIG(status));
        unsigned char *text = NULL;
        size_t tlen = 0;
        if (read_file(msgs, &text, &tlen) == 0 && tlen > 0) {
            /* A crashing translator appends a bug-report plea and a stack dump: the assertion before it is the message. */
            char *cut = strstr((char *)text, "PLEASE submit a bug report");
            sb_add(log, (char *)text, cut ? (size_t)(cut - (char *)text) : tlen);
        }
        free(text);
        goto cleanup;
    }
    r = ZE_RESULT_SUCCESS;
cleanup:
    unlink(in);
    unlink(out);
    unlink(msgs);
    rmdir(dir);
    return r;
}

/* Keeps the standard OpenCL options PoCL understands; Level Zero-only flags (-ze-*) have no meaning here. */
static void opencl_options(const char *flags, strbuf *opts)
{
    static const char *const keep[] = {"-cl-fast-relaxed-math", "-cl-mad-enable", "-cl-no-signed-zeros",
                                       "-cl-unsafe-math-optimizations", "-cl-finite-math-only", "-cl-denorms-are-zero",
                                       "-cl-opt-disable"};
    if (flags == NULL)
        return;
    const char *p = flags;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        size_t n = (size_t)(p - s);
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
            if (n == strlen(keep[i]) && strncmp(s, keep[i], n) == 0) {
                if (opts->len)
                    sb_add(opts, " ", 1);
                sb_add(opts, s, n);
            }
    }
}

static void hand_out_log(ze_module_build_log_handle_t *phBuildLog, strbuf *log)
{
    if (phBuildLog == NULL) {
        free(log->data);
        return;
    }
    rd_build_log *b = malloc(sizeof *b);
    if (b == NULL) {
        *phBuildLog = NULL;
        free(log->data);
        return;
    }
    b->tag = RD_TAG_BUILD_LOG;
    b->text = log->data ? log->data : strdup("");
    *phBuildLog = b;
}

/* This driver's native binary: what zeModuleGetNativeBinary hands out and ZE_MODULE_FORMAT_NATIVE takes back. It holds
   the SPIR-V (specialization constants written in; its kernel interfaces are read from it again), the LLVM bitcode
   llvm-spirv made of it (so loading skips the translation; none where the device reads SPIR-V itself) and the client's
   OpenCL build options, each after a fixed header. A device that reads SPIR-V builds from the SPIR-V whatever the
   binary holds; one that does not uses the bitcode, or translates the SPIR-V when there is none. */
#define RD_NATIVE_MAGIC "XPUREFNB"
typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t spirv_size;
    uint64_t bitcode_size;
    uint32_t options_size;
    uint32_t reserved;
} rd_native_header;

static unsigned char *pack_native(const void *spv, size_t spv_size, const unsigned char *bc, size_t bc_size, const char *opts,
                                  size_t *size)
{
    rd_native_header h = {RD_NATIVE_MAGIC, 1, (uint32_t)spv_size, bc_size, (uint32_t)strlen(opts), 0};
    *size = sizeof h + spv_size + bc_size + h.options_size;
    unsigned char *out = malloc(*size);
    if (out == NULL)
        return NULL;
    memcpy(out, &h, sizeof h);
    memcpy(out + sizeof h, spv, spv_size);
    if (bc_size)
        memcpy(out + sizeof h + spv_size, bc, bc_size);
    memcpy(out + sizeof h + spv_size + bc_size, opts, h.options_size);
    return out;
}

/* Finds the parts of a native binary; 0 when it is not one this driver made. */
static int unpack_native(const unsigned char *in, size_t size, const unsigned char **spv, size_t *spv_size,
                         const unsigned char **bc, size_t *bc_size, strbuf *opts)
{
    rd_native_header h;
    if (size < sizeof h)
        return 0;
    memcpy(&h, in, sizeof h);
    if (memcmp(h.magic, RD_NATIVE_MAGIC, sizeof h.magic) != 0 || h.version != 1 ||
        h.bitcode_size > size - sizeof h || (uint64_t)h.spirv_size + h.options_size > size - sizeof h - h.bitcode_size ||
        sizeof h + h.spirv_size + h.bitcode_size + h.options_size != size)
        return 0;
    *spv = in + sizeof h;
    *spv_size = h.spirv_size;
    *bc = *spv + h.spirv_size;
    *bc_size = (size_t)h.bitcode_size;
    sb_add(opts, (const char *)*bc + *bc_size, h.options_size);
    return 1;
}

/* The SPIR-V a module is built from: the input, or a copy with the client's specialization constants written in. */
static ze_result_t specialize(const ze_module_desc_t *desc, uint32_t **specialized, strbuf *log)
{
    const ze_module_constants_t *sc = desc->pConstants;
    if (sc == NULL || sc->numConstants == 0)
        return ZE_RESULT_SUCCESS;
    if (sc->pConstantIds == NULL || sc->pConstantValues == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < sc->numConstants; i++)
        if (sc->pConstantValues[i] == NULL)
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    char err[512];
    if (rd_spirv_specialize(desc->pInputModule, desc->inputSize, sc->numConstants, sc->pConstantIds, sc->pConstantValues,
                            specialized, err, sizeof err) != 0) {
        sb_printf(log, "%s\n", err);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    return ZE_RESULT_SUCCESS;
}

/* Builds the module on PoCL's device: its SPIR-V where the device reads SPIR-V (PoCL 7 rejects SPIR 1.2 bitcode), else
   the bitcode as SPIR 1.2 (PoCL 3.1 reads no SPIR-V); on failure the log says why. */
static cl_program build_program(const unsigned char *spv, size_t spv_size, const unsigned char *bc, size_t bclen,
                                const char *client_opts, strbuf *log)
{
    cl_int status = CL_SUCCESS, cerr;
    cl_program prog;
    strbuf opts = {0};
    if (rd.takes_spirv) {
        prog = clCreateProgramWithIL(rd.cl_ctx, spv, spv_size, &cerr);
        if (cerr != CL_SUCCESS) {
            sb_printf(log, "PoCL rejected the SPIR-V (clCreateProgramWithIL: %d)\n", cerr);
            return NULL;
        }
    } else {
        const unsigned char *bins[] = {bc};
        prog = clCreateProgramWithBinary(rd.cl_ctx, 1, &rd.cl_dev, &bclen, bins, &status, &cerr);
        if (cerr != CL_SUCCESS || status != CL_SUCCESS) {
            sb_printf(log, "PoCL rejected the translated bitcode (clCreateProgramWithBinary: %d, binary status %d)\n", cerr,
                      status);
            return NULL;
        }
        sb_printf(&opts, "%s ", POCL_SPIR_OPTIONS);
    }
    sb_add(&opts, client_opts, strlen(client_opts));
    cerr = clBuildProgram(prog, 1, &rd.cl_dev, opts.data, NULL, NULL);
    free(opts.data);
    size_t loglen = 0;
    clGetProgramBuildInfo(prog, rd.cl_dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &loglen);
    if (cerr != CL_SUCCESS)
        sb_printf(log, "PoCL build failed (clBuildProgram: %d)\n", cerr);
    if (loglen > 1) {
        char *cl_log = malloc(loglen);
        if (cl_log && clGetProgramBuildInfo(prog, rd.cl_dev, CL_PROGRAM_BUILD_LOG, loglen, cl_log, NULL) == CL_SUCCESS)
            sb_add(log, cl_log, strnlen(cl_log, loglen));
        free(cl_log);
    }
    if (cerr != CL_SUCCESS) {
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

ze_result_t rdModuleCreate(ze_context_handle_t ctx, ze_device_handle_t dev, const ze_module_desc_t *desc,
                           ze_module_handle_t *phModule, ze_module_build_log_handle_t *phBuildLog)
{
    if (phBuildLog)
        *phBuildLog = NULL;
    if (!rd_valid(ctx, RD_TAG_CONTEXT) || !rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phModule == NULL || desc->pInputModule == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->inputSize == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    *phModule = NULL;
    strbuf log = {0}, opts = {0};
    ze_result_t r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    unsigned char *bc = NULL, *native = NULL;
    size_t bclen = 0, native_size = 0;
    rd_spirv_info info = {0};
    cl_program prog = NULL;
    uint32_t *specialized = NULL, *lowered = NULL;
    const unsigned char *spv = desc->pInputModule, *packed_bc = NULL;
    size_t spv_size = desc->inputSize;
    char err[512];

    if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
        if (!unpack_native(desc->pInputModule, desc->inputSize, &spv, &spv_size, &packed_bc, &bclen, &opts)) {
            sb_printf(&log, "not a native binary of the CPU reference driver (zeModuleGetNativeBinary gives those)\n");
            r = ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
            goto out;
        }
    } else if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV) {
        sb_printf(&log, "only SPIR-V modules and this driver's own native binaries are supported\n");
        r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        goto out;
    }
    if (rd_spirv_parse(spv, spv_size, &info, err, sizeof err) != 0) {
        /* Checked before translating: llvm-spirv aborts with a stack dump on many malformed inputs. */
        sb_printf(&log, "%s\n", err);
        goto out;
    }
    if (desc->format != ZE_MODULE_FORMAT_NATIVE) {
        if ((r = specialize(desc, &specialized, &log)) != ZE_RESULT_SUCCESS)
            goto out;
        if (specialized)
            spv = (const unsigned char *)specialized;
        if (rd_spirv_lower_generic_atomics(spv, spv_size, &lowered, &spv_size, err, sizeof err) != 0) {
            sb_printf(&log, "%s\n", err);
            r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
        if (lowered)
            spv = (const unsigned char *)lowered;
        opencl_options(desc->pBuildFlags, &opts);
    }
    if (!rd.takes_spirv) {
        if (packed_bc != NULL && bclen > 0) {
            if ((bc = malloc(bclen)) == NULL) {
                r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
                goto out;
            }
            memcpy(bc, packed_bc, bclen);
        } else if ((r = spirv_to_bitcode(spv, spv_size, &bc, &bclen, &log)) != ZE_RESULT_SUCCESS) {
            goto out;
        }
    } else {
        bclen = 0;
    }
    r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    if ((prog = build_program(spv, spv_size, bc, bclen, opts.data ? opts.data : "", &log)) == NULL)
        goto out;
    native = pack_native(spv, spv_size, bc, bclen, opts.data ? opts.data : "", &native_size);
    rd_module *m = calloc(1, sizeof *m);
    if (m == NULL || native == NULL) {
        free(m);
        r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    m->tag = RD_TAG_MODULE;
    m->program = prog;
    m->info = info;
    m->native = native;
    m->native_size = native_size;
    m->id = __atomic_fetch_add(&next_module_id, 1, __ATOMIC_RELAXED);
    m->refs = 1;
    prog = NULL;
    native = NULL;
    memset(&info, 0, sizeof info);
    *phModule = m;
    r = ZE_RESULT_SUCCESS;
out:
    if (prog)
        clReleaseProgram(prog);
    rd_spirv_free(&info);
    free(specialized);
    free(lowered);
    free(bc);
    free(native);
    free(opts.data);
    hand_out_log(phBuildLog, &log);
    return r;
}

/* The binary is this driver's own format: only this driver (any build of this format version) loads it. */
ze_result_t rdModuleGetNativeBinary(ze_module_handle_t h, size_t *pSize, uint8_t *pModuleNativeBinary)
{
    if (!rd_valid(h, RD_TAG_MODULE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pSize == 0 || pModuleNativeBinary == NULL) {
        *pSize = h->native_size;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < h->native_size ? *pSize : h->native_size;
    memcpy(pModuleNativeBinary, h->native, n);
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

void rd_module_unref(rd_module *m)
{
    if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    clReleaseProgram(m->program);
    rd_spirv_free(&m->info);
    free(m->native);
    free(m);
}

/* A kernel still alive (its handle, or a recorded launch) keeps the module: the handle dies now, the object with its
   last kernel. */
ze_result_t rdModuleDestroy(ze_module_handle_t h)
{
    if (!rd_valid(h, RD_TAG_MODULE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    h->tag = RD_TAG_DEAD;
    rd_module_unref(h);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdModuleBuildLogDestroy(ze_module_build_log_handle_t h)
{
    if (!rd_valid(h, RD_TAG_BUILD_LOG))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    free(h->text);
    h->tag = RD_TAG_DEAD;
    free(h);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdModuleBuildLogGetString(ze_module_build_log_handle_t h, size_t *pSize, char *pBuildLog)
{
    if (!rd_valid(h, RD_TAG_BUILD_LOG))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t need = strlen(h->text) + 1;
    if (*pSize == 0 || pBuildLog == NULL) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < need ? *pSize : need;
    memcpy(pBuildLog, h->text, n - 1);
    pBuildLog[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdModuleGetKernelNames(ze_module_handle_t h, uint32_t *pCount, const char **pNames)
{
    if (!rd_valid(h, RD_TAG_MODULE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || pNames == NULL) {
        *pCount = h->info.nkernels;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *pCount < h->info.nkernels ? *pCount : h->info.nkernels;
    for (uint32_t i = 0; i < n; i++)
        pNames[i] = h->info.kernels[i].name;
    *pCount = n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdModuleGetProperties(ze_module_handle_t h, ze_module_properties_t *p)
{
    if (!rd_valid(h, RD_TAG_MODULE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0; /* modules never have unresolved imports: linking is not offered */
    return ZE_RESULT_SUCCESS;
}

/* ---- kernels ---- */

ze_result_t rdKernelCreate(ze_module_handle_t mod, const ze_kernel_desc_t *desc, ze_kernel_handle_t *ph)
{
    if (!rd_valid(mod, RD_TAG_MODULE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || desc->pKernelName == NULL || ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const rd_kernel_info *info = NULL;
    for (uint32_t i = 0; i < mod->info.nkernels; i++)
        if (strcmp(mod->info.kernels[i].name, desc->pKernelName) == 0)
            info = &mod->info.kernels[i];
    if (info == NULL)
        return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    cl_int err;
    cl_kernel cl = clCreateKernel(mod->program, info->name, &err);
    if (err != CL_SUCCESS)
        return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    rd_kernel *k = calloc(1, sizeof *k);
    rd_arg *args = calloc(info->nparams ? info->nparams : 1, sizeof *args);
    if (k == NULL || args == NULL) {
        free(k);
        free(args);
        clReleaseKernel(cl);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    k->tag = RD_TAG_KERNEL;
    k->refs = 1;
    k->module = mod;
    __atomic_add_fetch(&mod->refs, 1, __ATOMIC_RELAXED);
    k->info = info;
    k->cl = cl;
    k->args = args;
    for (uint32_t i = 0; i < info->nparams; i++)
        args[i].kind = info->params[i].kind;
    clGetKernelWorkGroupInfo(cl, rd.cl_dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof k->cl_max_group, &k->cl_max_group, NULL);
    clGetKernelWorkGroupInfo(cl, rd.cl_dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof k->preferred_multiple,
                             &k->preferred_multiple, NULL);
    clGetKernelWorkGroupInfo(cl, rd.cl_dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof k->local_mem, &k->local_mem, NULL);
    clGetKernelWorkGroupInfo(cl, rd.cl_dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof k->private_mem, &k->private_mem, NULL);
    if (k->cl_max_group == 0 || k->cl_max_group > rd.max_group_size)
        k->cl_max_group = rd.max_group_size;
    for (int d = 0; d < 3; d++)
        k->group[d] = info->reqd_group[0] ? info->reqd_group[d] : 1;
    *ph = k;
    return ZE_RESULT_SUCCESS;
}

void rd_kernel_unref(rd_kernel *k)
{
    if (__atomic_sub_fetch(&k->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    for (uint32_t i = 0; i < k->info->nparams; i++)
        free(k->args[i].bytes);
    free(k->args);
    clReleaseKernel(k->cl);
    rd_module *m = k->module;
    free(k);
    rd_module_unref(m);
}

/* A launch still queued keeps the kernel: the handle dies now, the object with its last recorded launch. */
ze_result_t rdKernelDestroy(ze_kernel_handle_t k)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    k->tag = RD_TAG_DEAD;
    rd_kernel_unref(k);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdKernelSetGroupSize(ze_kernel_handle_t k, uint32_t x, uint32_t y, uint32_t z)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    uint32_t g[3] = {x, y, z};
    uint64_t total = (uint64_t)x * y * z;
    if (total == 0 || total > k->cl_max_group)
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    for (int d = 0; d < 3; d++) {
        if (g[d] > rd.max_item_sizes[d])
            return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
        if (k->info->reqd_group[0] && g[d] != k->info->reqd_group[d])
            return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    }
    memcpy(k->group, g, sizeof g);
    return ZE_RESULT_SUCCESS;
}

static uint32_t largest_divisor_at_most(uint32_t n, uint64_t limit)
{
    for (uint64_t d = limit < n ? limit : n; d > 1; d--)
        if (n % d == 0)
            return (uint32_t)d;
    return 1;
}

ze_result_t rdKernelSuggestGroupSize(ze_kernel_handle_t k, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t *x, uint32_t *y,
                                     uint32_t *z)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (x == NULL || y == NULL || z == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (gx == 0 || gy == 0 || gz == 0)
        return ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
    if (k->info->reqd_group[0]) {
        *x = k->info->reqd_group[0];
        *y = k->info->reqd_group[1];
        *z = k->info->reqd_group[2];
        return ZE_RESULT_SUCCESS;
    }
    uint64_t budget = k->cl_max_group;
    uint64_t lim = budget < rd.max_item_sizes[0] ? budget : rd.max_item_sizes[0];
    *x = largest_divisor_at_most(gx, lim);
    budget /= *x;
    lim = budget < rd.max_item_sizes[1] ? budget : rd.max_item_sizes[1];
    *y = largest_divisor_at_most(gy, lim);
    budget /= *y;
    lim = budget < rd.max_item_sizes[2] ? budget : rd.max_item_sizes[2];
    *z = largest_divisor_at_most(gz, lim);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdKernelSetArgumentValue(ze_kernel_handle_t k, uint32_t index, size_t size, const void *value)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (index >= k->info->nparams)
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    const rd_param *p = &k->info->params[index];
    rd_arg *a = &k->args[index];
    switch (p->kind) {
    case RD_ARG_GLOBAL_PTR:
        if (size != sizeof(void *))
            return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        a->ptr = value ? *(void *const *)value : NULL;
        a->size = size;
        break;
    case RD_ARG_LOCAL_PTR:
        if (size == 0 || size > rd.local_mem)
            return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        a->size = size;
        break;
    case RD_ARG_VALUE: {
        if (value == NULL)
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
        if (size == 0 || (p->size != 0 && size != p->size))
            return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        unsigned char *copy = malloc(size);
        if (copy == NULL)
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        memcpy(copy, value, size);
        free(a->bytes);
        a->bytes = copy;
        a->size = size;
        break;
    }
    default:
        rd_log("kernel %s argument %u is an image, sampler or pipe: not supported by the CPU reference driver", k->info->name,
               index);
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    a->set = 1;
    return ZE_RESULT_SUCCESS;
}

/* All memory is host memory: indirect access needs no residency work, the flags are only kept to be read back. */
ze_result_t rdKernelSetIndirectAccess(ze_kernel_handle_t k, ze_kernel_indirect_access_flags_t flags)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    k->indirect = flags;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdKernelGetIndirectAccess(ze_kernel_handle_t k, ze_kernel_indirect_access_flags_t *flags)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *flags = k->indirect;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdKernelSetCacheConfig(ze_kernel_handle_t k, ze_cache_config_flags_t flags)
{
    (void)flags; /* a hint; PoCL has no configurable cache */
    return rd_valid(k, RD_TAG_KERNEL) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

ze_result_t rdKernelGetSourceAttributes(ze_kernel_handle_t k, uint32_t *pSize, char **pString)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    char attrs[128] = "";
    if (k->info->reqd_group[0])
        snprintf(attrs, sizeof attrs, "reqd_work_group_size(%u,%u,%u)", k->info->reqd_group[0], k->info->reqd_group[1],
                 k->info->reqd_group[2]);
    uint32_t need = (uint32_t)strlen(attrs) + 1;
    if (*pSize == 0 || pString == NULL || *pString == NULL) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *pSize < need ? *pSize : need;
    memcpy(*pString, attrs, n - 1);
    (*pString)[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdKernelGetProperties(ze_kernel_handle_t k, ze_kernel_properties_t *p)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->numKernelArgs = k->info->nparams;
    p->requiredGroupSizeX = k->info->reqd_group[0];
    p->requiredGroupSizeY = k->info->reqd_group[1];
    p->requiredGroupSizeZ = k->info->reqd_group[2];
    p->requiredNumSubGroups = 0;
    p->requiredSubgroupSize = k->info->reqd_sub_group;
    const rd_profile *pr = rd.profile;
    p->maxSubgroupSize = pr->sub_group_sizes[pr->num_sub_group_sizes - 1];
    p->maxNumSubgroups = (uint32_t)(k->cl_max_group / pr->sub_group_sizes[0]);
    p->localMemSize = (uint32_t)k->local_mem;
    p->privateMemSize = (uint32_t)k->private_mem;
    p->spillMemSize = 0;
    memset(&p->uuid, 0, sizeof p->uuid);
    memcpy(p->uuid.mid, &k->module->id, sizeof k->module->id);
    uint32_t idx = (uint32_t)(k->info - k->module->info.kernels);
    memcpy(p->uuid.kid, &k->module->id, sizeof k->module->id);
    memcpy(p->uuid.kid + 8, &idx, sizeof idx);
    for (ze_base_properties_t *ext = p->pNext; ext != NULL; ext = ext->pNext)
        if (ext->stype == ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES)
            ((ze_kernel_preferred_group_size_properties_t *)ext)->preferredMultiple = (uint32_t)k->preferred_multiple;
        else if (ext->stype == RD_STYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES)
            ((rd_kernel_max_group_size_ext_t *)ext)->maxGroupSize = (uint32_t)k->cl_max_group;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdKernelGetName(ze_kernel_handle_t k, size_t *pSize, char *pName)
{
    if (!rd_valid(k, RD_TAG_KERNEL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t need = strlen(k->info->name) + 1;
    if (*pSize == 0 || pName == NULL) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < need ? *pSize : need;
    memcpy(pName, k->info->name, n - 1);
    pName[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}
