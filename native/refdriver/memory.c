/* Host, device and shared allocations: all are PoCL fine-grained SVM, tracked so pointers can be classified. */
#include "entrypoints.h"

#include <stdlib.h>
#include <string.h>

static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static rd_alloc *allocs;
static size_t nallocs, capallocs;
static uint64_t next_id = 1;

int rd_alloc_lookup(const void *ptr, rd_alloc *out)
{
    int found = 0;
    pthread_mutex_lock(&alloc_lock);
    for (size_t i = 0; i < nallocs; i++) {
        const char *b = allocs[i].base;
        if ((const char *)ptr >= b && (const char *)ptr < b + allocs[i].size) {
            if (out)
                *out = allocs[i];
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&alloc_lock);
    return found;
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
    if (alignment & (alignment - 1))
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    if (alignment > 0x10000)
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    void *p = clSVMAlloc(rd.cl_ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size, (cl_uint)alignment);
    if (p == NULL)
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    pthread_mutex_lock(&alloc_lock);
    if (nallocs == capallocs) {
        size_t cap = capallocs ? capallocs * 2 : 64;
        rd_alloc *grown = realloc(allocs, cap * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&alloc_lock);
            clSVMFree(rd.cl_ctx, p);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        allocs = grown;
        capallocs = cap;
    }
    allocs[nallocs++] = (rd_alloc){p, size, type, next_id++};
    pthread_mutex_unlock(&alloc_lock);
    *pptr = p;
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

ze_result_t rdMemFree(ze_context_handle_t ctx, void *ptr)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&alloc_lock);
    size_t i = 0;
    while (i < nallocs && allocs[i].base != ptr)
        i++;
    if (i == nallocs) {
        pthread_mutex_unlock(&alloc_lock);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    allocs[i] = allocs[--nallocs];
    pthread_mutex_unlock(&alloc_lock);
    clSVMFree(rd.cl_ctx, ptr);
    return ZE_RESULT_SUCCESS;
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
