/* Host, device and shared allocations: all are PoCL fine-grained SVM, tracked so pointers can be classified and so a
   free waits for the commands still using the memory. */
#include "entrypoints.h"

#include <stdlib.h>
#include <string.h>

/* Intel's Level Zero conformance tests ask alignments up to 8 MiB of the GPU driver (zeMemAlloc*AlignmentTests). */
#define RD_MAX_ALIGNMENT 0x800000u

struct rd_alloc_rec {
    rd_alloc a;
    void *svm;     /* what clSVMAlloc returned: a.base itself, or below it for an over-aligned allocation */
    unsigned uses; /* queued or running commands that name this allocation */
};

static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t alloc_cv = PTHREAD_COND_INITIALIZER;
static rd_alloc_rec **allocs;
static size_t nallocs, capallocs;
static uint64_t next_id = 1;

static rd_alloc_rec *find_locked(const void *ptr)
{
    for (size_t i = 0; i < nallocs; i++) {
        const char *b = allocs[i]->a.base;
        if ((const char *)ptr >= b && (const char *)ptr < b + allocs[i]->a.size)
            return allocs[i];
    }
    return NULL;
}

int rd_alloc_lookup(const void *ptr, rd_alloc *out)
{
    pthread_mutex_lock(&alloc_lock);
    rd_alloc_rec *r = find_locked(ptr);
    if (r && out)
        *out = r->a;
    pthread_mutex_unlock(&alloc_lock);
    return r != NULL;
}

rd_alloc_rec *rd_alloc_hold(const void *ptr)
{
    pthread_mutex_lock(&alloc_lock);
    rd_alloc_rec *r = ptr ? find_locked(ptr) : NULL;
    if (r)
        r->uses++;
    pthread_mutex_unlock(&alloc_lock);
    return r;
}

void rd_alloc_release(rd_alloc_rec *r)
{
    pthread_mutex_lock(&alloc_lock);
    if (--r->uses == 0)
        pthread_cond_broadcast(&alloc_cv);
    pthread_mutex_unlock(&alloc_lock);
}

static ze_result_t alloc_common(ze_context_handle_t ctx, size_t size, size_t alignment, ze_memory_type_t type, void **pptr)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pptr = NULL;
    if (size == 0 || size > rd.max_alloc)
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if ((alignment & (alignment - 1)) || alignment > RD_MAX_ALIGNMENT)
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    /* PoCL aligns SVM to at most its base address alignment (128 bytes): a larger alignment is carved out of a
       larger allocation, and the table keeps both addresses. */
    size_t native = alignment <= rd.svm_alignment ? alignment : rd.svm_alignment;
    size_t pad = alignment > native ? alignment - native : 0;
    if (size > rd.max_alloc - pad)
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    void *svm = clSVMAlloc(rd.cl_ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size + pad, (cl_uint)native);
    if (svm == NULL)
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    uintptr_t base = (uintptr_t)svm;
    if (pad)
        base = (base + alignment - 1) & ~(uintptr_t)(alignment - 1);
    rd_alloc_rec *r = malloc(sizeof *r);
    pthread_mutex_lock(&alloc_lock);
    if (r != NULL && nallocs == capallocs) {
        size_t cap = capallocs ? capallocs * 2 : 64;
        rd_alloc_rec **grown = realloc(allocs, cap * sizeof *grown);
        if (grown == NULL) {
            free(r);
            r = NULL;
        } else {
            allocs = grown;
            capallocs = cap;
        }
    }
    if (r == NULL) {
        pthread_mutex_unlock(&alloc_lock);
        clSVMFree(rd.cl_ctx, svm);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *r = (rd_alloc_rec){{(void *)base, size, type, next_id++}, svm, 0};
    allocs[nallocs++] = r;
    pthread_mutex_unlock(&alloc_lock);
    *pptr = (void *)base;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdMemAllocShared(ze_context_handle_t ctx, const ze_device_mem_alloc_desc_t *ddesc, const ze_host_mem_alloc_desc_t *hdesc,
                             size_t size, size_t alignment, ze_device_handle_t dev, void **pptr)
{
    if (ddesc == NULL || hdesc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (dev != NULL && !rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return alloc_common(ctx, size, alignment, ZE_MEMORY_TYPE_SHARED, pptr);
}

ze_result_t rdMemAllocDevice(ze_context_handle_t ctx, const ze_device_mem_alloc_desc_t *ddesc, size_t size, size_t alignment,
                             ze_device_handle_t dev, void **pptr)
{
    if (ddesc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return alloc_common(ctx, size, alignment, ZE_MEMORY_TYPE_DEVICE, pptr);
}

ze_result_t rdMemAllocHost(ze_context_handle_t ctx, const ze_host_mem_alloc_desc_t *hdesc, size_t size, size_t alignment, void **pptr)
{
    if (hdesc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return alloc_common(ctx, size, alignment, ZE_MEMORY_TYPE_HOST, pptr);
}

/* Waits for every queued or running command that names the allocation, as Intel's driver does: the memory is never
   released under a command that will still touch it. */
ze_result_t rdMemFree(ze_context_handle_t ctx, void *ptr)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&alloc_lock);
    size_t i = 0;
    while (i < nallocs && allocs[i]->a.base != ptr)
        i++;
    if (i == nallocs) {
        pthread_mutex_unlock(&alloc_lock);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    rd_alloc_rec *r = allocs[i];
    allocs[i] = allocs[--nallocs];
    while (r->uses > 0)
        pthread_cond_wait(&alloc_cv, &alloc_lock);
    pthread_mutex_unlock(&alloc_lock);
    clSVMFree(rd.cl_ctx, r->svm);
    free(r);
    return ZE_RESULT_SUCCESS;
}

/* Both policies are met by waiting: a deferred free is allowed to complete before returning. */
ze_result_t rdMemFreeExt(ze_context_handle_t ctx, const ze_memory_free_ext_desc_t *desc, void *ptr)
{
    if (desc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->freePolicy > (ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE | ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return rdMemFree(ctx, ptr);
}

ze_result_t rdMemGetAllocProperties(ze_context_handle_t ctx, const void *ptr, ze_memory_allocation_properties_t *p,
                                    ze_device_handle_t *phDevice)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL || p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    rd_alloc a;
    if (!rd_alloc_lookup(ptr, &a)) {
        p->type = ZE_MEMORY_TYPE_UNKNOWN;
        p->id = 0;
        p->pageSize = 0;
        if (phDevice)
            *phDevice = NULL;
        return ZE_RESULT_SUCCESS;
    }
    p->type = a.type;
    p->id = a.id;
    p->pageSize = 4096;
    if (phDevice)
        *phDevice = a.type == ZE_MEMORY_TYPE_HOST ? NULL : &rd.device;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdMemGetAddressRange(ze_context_handle_t ctx, const void *ptr, void **pBase, size_t *pSize)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    rd_alloc a;
    if (!rd_alloc_lookup(ptr, &a))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (pBase)
        *pBase = a.base;
    if (pSize)
        *pSize = a.size;
    return ZE_RESULT_SUCCESS;
}
