/* Command queues, command lists (regular and immediate), events, fences and the worker threads that run them. */
#include "entrypoints.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One lock and condition for all events and fences: waits are rare and short, simplicity wins. */
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sync_cv = PTHREAD_COND_INITIALIZER;

static void deadline_after(struct timespec *ts, uint64_t ns)
{
    clock_gettime(CLOCK_REALTIME, ts);
    uint64_t total = (uint64_t)ts->tv_nsec + ns % 1000000000ull;
    ts->tv_sec += (time_t)(ns / 1000000000ull + total / 1000000000ull);
    ts->tv_nsec = (long)(total % 1000000000ull);
}

static int is_set(const void *flag)
{
    return *(const int *)flag != 0;
}

static int is_zero(const void *count)
{
    return *(const unsigned *)count == 0;
}

/* Waits under sync_lock until done(word); timeout follows L0: 0 = poll, UINT64_MAX = forever. */
static ze_result_t wait_until(int (*done)(const void *), const void *word, uint64_t timeout)
{
    struct timespec dl;
    if (timeout != UINT64_MAX)
        deadline_after(&dl, timeout);
    pthread_mutex_lock(&sync_lock);
    int rc = 0;
    while (!done(word) && rc != ETIMEDOUT && timeout != 0)
        rc = timeout == UINT64_MAX ? pthread_cond_wait(&sync_cv, &sync_lock) : pthread_cond_timedwait(&sync_cv, &sync_lock, &dl);
    int ok = done(word);
    pthread_mutex_unlock(&sync_lock);
    return ok ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static void set_flag(int *flag, int value)
{
    pthread_mutex_lock(&sync_lock);
    *flag = value;
    pthread_cond_broadcast(&sync_cv);
    pthread_mutex_unlock(&sync_lock);
}

/* ---- events ---- */

ze_result_t rdEventPoolCreate(ze_context_handle_t ctx, const ze_event_pool_desc_t *desc, uint32_t ndev, ze_device_handle_t *devs,
                              ze_event_pool_handle_t *ph)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || ph == NULL || (ndev > 0 && devs == NULL))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->count == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    for (uint32_t i = 0; i < ndev; i++)
        if (!rd_valid(devs[i], RD_TAG_DEVICE))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc->flags & ZE_EVENT_POOL_FLAG_IPC)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    rd_event_pool *p = calloc(1, sizeof *p);
    if (p == NULL || (p->slots = calloc(desc->count, sizeof *p->slots)) == NULL) {
        free(p);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    p->tag = RD_TAG_EVENT_POOL;
    p->ctx = ctx;
    p->flags = desc->flags;
    p->count = desc->count;
    *ph = p;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventPoolDestroy(ze_event_pool_handle_t p)
{
    if (!rd_valid(p, RD_TAG_EVENT_POOL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    p->tag = RD_TAG_DEAD;
    /* Events outliving their pool (the spec asks for the reverse order) must not reach back into it. */
    pthread_mutex_lock(&sync_lock);
    for (uint32_t i = 0; i < p->count; i++)
        if (p->slots[i])
            p->slots[i]->pool = NULL;
    pthread_mutex_unlock(&sync_lock);
    free(p->slots);
    free(p);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventCreate(ze_event_pool_handle_t p, const ze_event_desc_t *desc, ze_event_handle_t *ph)
{
    if (!rd_valid(p, RD_TAG_EVENT_POOL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->index >= p->count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&sync_lock);
    int taken = p->slots[desc->index] != NULL;
    pthread_mutex_unlock(&sync_lock);
    if (taken)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    rd_event *e = calloc(1, sizeof *e);
    if (e == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    e->tag = RD_TAG_EVENT;
    e->pool = p;
    e->timestamps = (p->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP) != 0;
    e->index = desc->index;
    e->signal_scope = desc->signal;
    e->wait_scope = desc->wait;
    pthread_mutex_lock(&sync_lock);
    p->slots[desc->index] = e;
    pthread_mutex_unlock(&sync_lock);
    *ph = e;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventDestroy(ze_event_handle_t e)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sync_lock);
    if (e->pool)
        e->pool->slots[e->index] = NULL;
    e->tag = RD_TAG_DEAD;
    pthread_mutex_unlock(&sync_lock);
    free(e);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventHostSignal(ze_event_handle_t e)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    set_flag(&e->signaled, 1);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventHostSynchronize(ze_event_handle_t e, uint64_t timeout)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return wait_until(is_set, &e->signaled, timeout);
}

ze_result_t rdEventQueryStatus(ze_event_handle_t e)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return wait_until(is_set, &e->signaled, 0);
}

ze_result_t rdEventHostReset(ze_event_handle_t e)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    set_flag(&e->signaled, 0);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventQueryKernelTimestamp(ze_event_handle_t e, ze_kernel_timestamp_result_t *r)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (r == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!e->timestamps)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (wait_until(is_set, &e->signaled, 0) != ZE_RESULT_SUCCESS)
        return ZE_RESULT_NOT_READY;
    r->global.kernelStart = r->context.kernelStart = e->ts_start;
    r->global.kernelEnd = r->context.kernelEnd = e->ts_end;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventPoolGetContextHandle(ze_event_pool_handle_t p, ze_context_handle_t *ph)
{
    if (!rd_valid(p, RD_TAG_EVENT_POOL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *ph = p->ctx;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventPoolGetFlags(ze_event_pool_handle_t p, ze_event_pool_flags_t *flags)
{
    if (!rd_valid(p, RD_TAG_EVENT_POOL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *flags = p->flags;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventGetEventPool(ze_event_handle_t e, ze_event_pool_handle_t *ph)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *ph = e->pool;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventGetSignalScope(ze_event_handle_t e, ze_event_scope_flags_t *scope)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (scope == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *scope = e->signal_scope;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdEventGetWaitScope(ze_event_handle_t e, ze_event_scope_flags_t *scope)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (scope == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *scope = e->wait_scope;
    return ZE_RESULT_SUCCESS;
}

/* ---- executing commands ---- */

static void wait_events(const rd_cmd *c)
{
    for (uint32_t i = 0; i < c->nwait; i++)
        wait_until(is_set, &c->wait[i]->signaled, UINT64_MAX);
}

static ze_result_t run_launch(const rd_cmd *c)
{
    rd_kernel *k = c->u.launch.kernel;
    uint32_t count[3];
    memcpy(count, c->u.launch.indirect ? (const uint32_t *)c->u.launch.indirect : c->u.launch.count, sizeof count);
    size_t global[3], local[3];
    for (int d = 0; d < 3; d++) {
        if (count[d] == 0)
            return ZE_RESULT_SUCCESS; /* nothing to run */
        local[d] = c->u.launch.group[d];
        global[d] = (size_t)count[d] * local[d];
    }
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&rd.exec_lock);
    for (uint32_t i = 0; i < k->info->nparams && err == CL_SUCCESS; i++) {
        const rd_arg *a = &c->u.launch.args[i];
        if (a->kind == RD_ARG_GLOBAL_PTR)
            err = clSetKernelArgSVMPointer(k->cl, i, a->ptr);
        else if (a->kind == RD_ARG_LOCAL_PTR)
            err = clSetKernelArg(k->cl, i, a->size, NULL);
        else
            err = clSetKernelArg(k->cl, i, a->size, a->bytes);
    }
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(rd.cl_queue, k->cl, 3, NULL, global, local, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(rd.cl_queue);
    pthread_mutex_unlock(&rd.exec_lock);
    if (err != CL_SUCCESS) {
        rd_log("kernel %s failed to run on PoCL (OpenCL error %d)", k->info->name, err);
        return ZE_RESULT_ERROR_DEVICE_LOST;
    }
    return ZE_RESULT_SUCCESS;
}

/* Depth 0 is a 2D copy (the spec: the slice pitches are then ignored, and so is originZ); a pitch of 0 means rows
   (or slices) packed end to end. */
static void run_region(const rd_cmd *c)
{
    const ze_copy_region_t *d = &c->u.region.dreg, *s = &c->u.region.sreg;
    int planar = d->depth == 0;
    uint32_t depth = planar ? 1 : d->depth;
    size_t dpitch = c->u.region.dpitch ? c->u.region.dpitch : d->width;
    size_t spitch = c->u.region.spitch ? c->u.region.spitch : s->width;
    size_t dslice = planar ? 0 : c->u.region.dslice ? c->u.region.dslice : dpitch * d->height;
    size_t sslice = planar ? 0 : c->u.region.sslice ? c->u.region.sslice : spitch * s->height;
    for (uint32_t z = 0; z < depth; z++)
        for (uint32_t y = 0; y < d->height; y++) {
            char *dst = (char *)c->u.region.dst + (size_t)(d->originZ + z) * dslice + (size_t)(d->originY + y) * dpitch +
                        d->originX;
            const char *src = (const char *)c->u.region.src + (size_t)(s->originZ + z) * sslice +
                              (size_t)(s->originY + y) * spitch + s->originX;
            memmove(dst, src, d->width);
        }
}

/* Runs c's work once its waits are met; *start is when the work began. Signalling its event is left to
   signal_done, which comes after the command has let go of what it holds. */
static ze_result_t exec_cmd(const rd_cmd *c, uint64_t *start)
{
    ze_result_t r = ZE_RESULT_SUCCESS;
    wait_events(c);
    *start = rd_now_ns();
    switch (c->kind) {
    case RD_CMD_LAUNCH:
        r = run_launch(c);
        break;
    case RD_CMD_COPY:
        memmove(c->u.copy.dst, c->u.copy.src, c->u.copy.size);
        break;
    case RD_CMD_COPY_REGION:
        run_region(c);
        break;
    case RD_CMD_FILL:
        for (size_t off = 0; off < c->u.fill.size; off += c->u.fill.pattern_size) {
            size_t n = c->u.fill.size - off < c->u.fill.pattern_size ? c->u.fill.size - off : c->u.fill.pattern_size;
            memcpy((char *)c->u.fill.dst + off, c->u.fill.pattern, n);
        }
        break;
    case RD_CMD_TIMESTAMP:
        *c->u.timestamp.dst = rd_now_ns();
        break;
    case RD_CMD_RESET:
        set_flag(&c->signal->signaled, 0);
        break;
    case RD_CMD_BARRIER:
    case RD_CMD_SIGNAL:
    case RD_CMD_WAIT:
        break;
    }
    return r;
}

/* The last thing a command does: once its event is set the client may destroy anything the command named. */
static void signal_done(rd_event *signal, enum rd_cmd_kind kind, uint64_t start)
{
    if (signal == NULL || kind == RD_CMD_RESET)
        return;
    signal->ts_start = start;
    signal->ts_end = rd_now_ns();
    /* Commands run in order and each finishes before the next starts, so signalling now is exact. */
    set_flag(&signal->signaled, 1);
}

struct rd_job {
    rd_job *next;
    rd_cmdlist **lists;
    uint32_t nlists;
    rd_cmd *single; /* immediate lists: one owned command */
    rd_fence *fence;
    rd_alloc_rec **holds; /* allocations the commands name, each released when its command is done */
    size_t nholds, capholds, released;
    size_t *hold_ends; /* regular lists: per command, in order, the end of its holds in `holds` */
};

static void free_cmd(rd_cmd *c)
{
    free(c->wait);
    if (c->kind == RD_CMD_LAUNCH && c->u.launch.kernel) {
        if (c->u.launch.args)
            for (uint32_t i = 0; i < c->u.launch.kernel->info->nparams; i++)
                free(c->u.launch.args[i].bytes);
        free(c->u.launch.args);
        rd_kernel_unref(c->u.launch.kernel);
    }
}

static int hold(rd_job *j, const void *ptr)
{
    rd_alloc_rec *r = rd_alloc_hold(ptr);
    if (r == NULL)
        return 1; /* not this driver's memory (host stack, malloc): nothing to keep */
    if (j->nholds == j->capholds) {
        size_t cap = j->capholds ? j->capholds * 2 : 8;
        rd_alloc_rec **grown = realloc(j->holds, cap * sizeof *grown);
        if (grown == NULL) {
            rd_alloc_release(r);
            return 0;
        }
        j->holds = grown;
        j->capholds = cap;
    }
    j->holds[j->nholds++] = r;
    return 1;
}

/* Holds every allocation a command names directly (pointer arguments, copy and fill ends), so zeMemFree waits for it.
   Memory a kernel reaches only through pointers stored in other memory is not seen. */
static int hold_cmd(rd_job *j, const rd_cmd *c)
{
    int ok = 1;
    switch (c->kind) {
    case RD_CMD_LAUNCH:
        for (uint32_t i = 0; i < c->u.launch.kernel->info->nparams; i++)
            if (c->u.launch.args[i].kind == RD_ARG_GLOBAL_PTR)
                ok &= hold(j, c->u.launch.args[i].ptr);
        ok &= hold(j, c->u.launch.indirect);
        break;
    case RD_CMD_COPY:
        ok = hold(j, c->u.copy.dst) & hold(j, c->u.copy.src);
        break;
    case RD_CMD_COPY_REGION:
        ok = hold(j, c->u.region.dst) & hold(j, c->u.region.src);
        break;
    case RD_CMD_FILL:
        ok = hold(j, c->u.fill.dst);
        break;
    case RD_CMD_TIMESTAMP:
        ok = hold(j, c->u.timestamp.dst);
        break;
    default:
        break;
    }
    return ok;
}

/* Releases the holds up to `end` (the ones of the commands done so far). */
static void release_holds_to(rd_job *j, size_t end)
{
    for (; j->released < end; j->released++)
        rd_alloc_release(j->holds[j->released]);
}

static void release_holds(rd_job *j)
{
    release_holds_to(j, j->nholds);
    free(j->holds);
    free(j->hold_ends);
}

/* An immediate list's one command: it lets go of its memory and its kernel before its event says it is done. */
static ze_result_t run_single(rd_job *j)
{
    rd_cmd *c = j->single;
    rd_event *signal = c->signal;
    enum rd_cmd_kind kind = c->kind;
    uint64_t start;
    ze_result_t r = exec_cmd(c, &start);
    release_holds_to(j, j->nholds);
    free_cmd(c);
    free(c);
    signal_done(signal, kind, start);
    return r;
}

/* Regular lists: the commands stay the list's (so do their kernels); each lets go of its memory before its event. */
static ze_result_t run_lists(rd_job *j)
{
    ze_result_t r = ZE_RESULT_SUCCESS, rr;
    size_t n = 0;
    for (uint32_t l = 0; l < j->nlists; l++)
        for (size_t i = 0; i < j->lists[l]->ncmds; i++, n++) {
            const rd_cmd *c = &j->lists[l]->cmds[i];
            uint64_t start;
            if ((rr = exec_cmd(c, &start)) != ZE_RESULT_SUCCESS && r == ZE_RESULT_SUCCESS)
                r = rr;
            release_holds_to(j, j->hold_ends[n]);
            signal_done(c->signal, c->kind, start);
        }
    return r;
}

static void *engine_main(void *arg)
{
    rd_engine *e = arg;
    pthread_mutex_lock(&e->m);
    for (;;) {
        while (e->head == NULL && !e->stop)
            pthread_cond_wait(&e->cv, &e->m);
        if (e->head == NULL)
            break;
        rd_job *j = e->head;
        e->head = j->next;
        if (e->head == NULL)
            e->tail = NULL;
        pthread_mutex_unlock(&e->m);

        ze_result_t r = j->single ? run_single(j) : run_lists(j);
        release_holds(j);
        if (j->nlists) {
            pthread_mutex_lock(&sync_lock);
            for (uint32_t l = 0; l < j->nlists; l++)
                j->lists[l]->inflight--;
            pthread_cond_broadcast(&sync_cv);
            pthread_mutex_unlock(&sync_lock);
        }
        if (j->fence) {
            pthread_mutex_lock(&sync_lock);
            j->fence->signaled = 1;
            int last = --j->fence->refs == 0;
            pthread_cond_broadcast(&sync_cv);
            pthread_mutex_unlock(&sync_lock);
            if (last)
                free(j->fence);
        }
        free(j->lists);
        free(j);

        pthread_mutex_lock(&e->m);
        if (r != ZE_RESULT_SUCCESS && e->error == ZE_RESULT_SUCCESS)
            e->error = r;
        e->completed++;
        pthread_cond_broadcast(&e->cv);
    }
    pthread_mutex_unlock(&e->m);
    return NULL;
}

static ze_result_t engine_start(rd_engine *e)
{
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->m, NULL);
    pthread_cond_init(&e->cv, NULL);
    if (pthread_create(&e->thread, NULL, engine_main, e) != 0)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    e->started = 1;
    return ZE_RESULT_SUCCESS;
}

static uint64_t engine_submit(rd_engine *e, rd_job *j)
{
    pthread_mutex_lock(&e->m);
    j->next = NULL;
    if (e->tail)
        e->tail->next = j;
    else
        e->head = j;
    e->tail = j;
    uint64_t ticket = ++e->submitted;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->m);
    return ticket;
}

/* Waits until job number `ticket` (0: everything submitted so far) is done; returns and clears any execution error. */
static ze_result_t engine_wait(rd_engine *e, uint64_t ticket, uint64_t timeout)
{
    struct timespec dl;
    if (timeout != UINT64_MAX)
        deadline_after(&dl, timeout);
    pthread_mutex_lock(&e->m);
    if (ticket == 0)
        ticket = e->submitted;
    int rc = 0;
    while (e->completed < ticket && rc != ETIMEDOUT && timeout != 0)
        rc = timeout == UINT64_MAX ? pthread_cond_wait(&e->cv, &e->m) : pthread_cond_timedwait(&e->cv, &e->m, &dl);
    ze_result_t r = e->completed >= ticket ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
    if (r == ZE_RESULT_SUCCESS && e->error != ZE_RESULT_SUCCESS) {
        r = e->error;
        e->error = ZE_RESULT_SUCCESS;
    }
    pthread_mutex_unlock(&e->m);
    return r;
}

static void engine_stop(rd_engine *e)
{
    if (!e->started)
        return;
    pthread_mutex_lock(&e->m);
    e->stop = 1;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->m);
    pthread_join(e->thread, NULL);
    pthread_mutex_destroy(&e->m);
    pthread_cond_destroy(&e->cv);
    e->started = 0;
}

/* What a queue or an immediate list may run: one or more closed regular lists. */
static ze_result_t check_closed_lists(uint32_t n, ze_command_list_handle_t *lists)
{
    if (n == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    for (uint32_t i = 0; i < n; i++) {
        if (!rd_valid(lists[i], RD_TAG_CMDLIST))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (lists[i]->immediate || !lists[i]->closed)
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    return ZE_RESULT_SUCCESS;
}

/* A job running closed regular lists in order: holds what their commands name, and counts each list in flight. */
static rd_job *list_job(ze_command_list_handle_t *lists, uint32_t n)
{
    size_t ncmds = 0;
    for (uint32_t l = 0; l < n; l++)
        ncmds += lists[l]->ncmds;
    rd_job *j = calloc(1, sizeof *j);
    if (j == NULL || (j->lists = malloc(n * sizeof *j->lists)) == NULL ||
        (j->hold_ends = malloc((ncmds ? ncmds : 1) * sizeof *j->hold_ends)) == NULL) {
        if (j)
            free(j->lists);
        free(j);
        return NULL;
    }
    memcpy(j->lists, lists, n * sizeof *lists);
    j->nlists = n;
    int held = 1;
    size_t c = 0;
    for (uint32_t l = 0; l < n; l++)
        for (size_t i = 0; i < lists[l]->ncmds; i++) {
            held &= hold_cmd(j, &lists[l]->cmds[i]);
            j->hold_ends[c++] = j->nholds;
        }
    if (!held) {
        release_holds(j);
        free(j->lists);
        free(j);
        return NULL;
    }
    pthread_mutex_lock(&sync_lock);
    for (uint32_t l = 0; l < n; l++)
        lists[l]->inflight++;
    pthread_mutex_unlock(&sync_lock);
    return j;
}

/* ---- queues and fences ---- */

static ze_result_t check_queue_desc(const ze_command_queue_desc_t *desc)
{
    if (desc->ordinal != 0 || desc->index != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if ((uint32_t)desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandQueueCreate(ze_context_handle_t ctx, ze_device_handle_t dev, const ze_command_queue_desc_t *desc,
                                 ze_command_queue_handle_t *ph)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT) || !rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = check_queue_desc(desc);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    rd_queue *q = calloc(1, sizeof *q);
    if (q == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if ((r = engine_start(&q->engine)) != ZE_RESULT_SUCCESS) {
        free(q);
        return r;
    }
    q->tag = RD_TAG_QUEUE;
    q->mode = desc->mode;
    *ph = q;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandQueueDestroy(ze_command_queue_handle_t q)
{
    if (!rd_valid(q, RD_TAG_QUEUE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    engine_wait(&q->engine, 0, UINT64_MAX);
    engine_stop(&q->engine);
    q->tag = RD_TAG_DEAD;
    free(q);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandQueueExecuteCommandLists(ze_command_queue_handle_t q, uint32_t n, ze_command_list_handle_t *lists,
                                              ze_fence_handle_t fence)
{
    if (!rd_valid(q, RD_TAG_QUEUE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (lists == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (fence != NULL && (!rd_valid(fence, RD_TAG_FENCE) || fence->queue != q))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    ze_result_t r = check_closed_lists(n, lists);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    rd_job *j = list_job(lists, n);
    if (j == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (fence != NULL) {
        j->fence = fence;
        pthread_mutex_lock(&sync_lock);
        fence->refs++;
        pthread_mutex_unlock(&sync_lock);
    }
    uint64_t ticket = engine_submit(&q->engine, j);
    if (q->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS)
        return engine_wait(&q->engine, ticket, UINT64_MAX);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandQueueSynchronize(ze_command_queue_handle_t q, uint64_t timeout)
{
    if (!rd_valid(q, RD_TAG_QUEUE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return engine_wait(&q->engine, 0, timeout);
}

/* This device has one queue group with one queue. */
ze_result_t rdCommandQueueGetOrdinal(ze_command_queue_handle_t q, uint32_t *ordinal)
{
    if (!rd_valid(q, RD_TAG_QUEUE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ordinal == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *ordinal = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandQueueGetIndex(ze_command_queue_handle_t q, uint32_t *index)
{
    return rdCommandQueueGetOrdinal(q, index);
}

ze_result_t rdFenceCreate(ze_command_queue_handle_t q, const ze_fence_desc_t *desc, ze_fence_handle_t *ph)
{
    if (!rd_valid(q, RD_TAG_QUEUE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    rd_fence *f = calloc(1, sizeof *f);
    if (f == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    f->tag = RD_TAG_FENCE;
    f->refs = 1;
    f->queue = q;
    f->signaled = (desc->flags & ZE_FENCE_FLAG_SIGNALED) != 0;
    *ph = f;
    return ZE_RESULT_SUCCESS;
}

/* A client that waited on an event of the last command may destroy the fence before the queue has set it: the
   handle dies now, the object when no queued execution will set it any more (no wait that might never end). */
ze_result_t rdFenceDestroy(ze_fence_handle_t f)
{
    if (!rd_valid(f, RD_TAG_FENCE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sync_lock);
    f->tag = RD_TAG_DEAD;
    int last = --f->refs == 0;
    pthread_mutex_unlock(&sync_lock);
    if (last)
        free(f);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdFenceHostSynchronize(ze_fence_handle_t f, uint64_t timeout)
{
    if (!rd_valid(f, RD_TAG_FENCE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return wait_until(is_set, &f->signaled, timeout);
}

ze_result_t rdFenceQueryStatus(ze_fence_handle_t f)
{
    if (!rd_valid(f, RD_TAG_FENCE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return wait_until(is_set, &f->signaled, 0);
}

ze_result_t rdFenceReset(ze_fence_handle_t f)
{
    if (!rd_valid(f, RD_TAG_FENCE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    set_flag(&f->signaled, 0);
    return ZE_RESULT_SUCCESS;
}

/* ---- command lists ---- */

ze_result_t rdCommandListCreate(ze_context_handle_t ctx, ze_device_handle_t dev, const ze_command_list_desc_t *desc,
                                ze_command_list_handle_t *ph)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT) || !rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->commandQueueGroupOrdinal != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    rd_cmdlist *l = calloc(1, sizeof *l);
    if (l == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    l->tag = RD_TAG_CMDLIST;
    l->ctx = ctx;
    *ph = l;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandListCreateImmediate(ze_context_handle_t ctx, ze_device_handle_t dev, const ze_command_queue_desc_t *desc,
                                         ze_command_list_handle_t *ph)
{
    if (!rd_valid(ctx, RD_TAG_CONTEXT) || !rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = check_queue_desc(desc);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    rd_cmdlist *l = calloc(1, sizeof *l);
    if (l == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if ((r = engine_start(&l->engine)) != ZE_RESULT_SUCCESS) {
        free(l);
        return r;
    }
    l->tag = RD_TAG_CMDLIST;
    l->ctx = ctx;
    l->immediate = 1;
    l->mode = desc->mode;
    *ph = l;
    return ZE_RESULT_SUCCESS;
}

static void clear_cmds(rd_cmdlist *l)
{
    for (size_t i = 0; i < l->ncmds; i++)
        free_cmd(&l->cmds[i]);
    l->ncmds = 0;
}

ze_result_t rdCommandListDestroy(ze_command_list_handle_t l)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->immediate) {
        engine_wait(&l->engine, 0, UINT64_MAX);
        engine_stop(&l->engine);
    } else {
        wait_until(is_zero, &l->inflight, UINT64_MAX); /* a queue may still be running it */
    }
    clear_cmds(l);
    free(l->cmds);
    l->tag = RD_TAG_DEAD;
    free(l);
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandListClose(ze_command_list_handle_t l)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!l->immediate)
        l->closed = 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandListReset(ze_command_list_handle_t l)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->immediate)
        return engine_wait(&l->engine, 0, UINT64_MAX);
    wait_until(is_zero, &l->inflight, UINT64_MAX);
    clear_cmds(l);
    l->closed = 0;
    return ZE_RESULT_SUCCESS;
}

/* An immediate list: everything appended so far. A regular list: every execution of it still queued or running. */
ze_result_t rdCommandListHostSynchronize(ze_command_list_handle_t l, uint64_t timeout)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->immediate)
        return engine_wait(&l->engine, 0, timeout);
    return wait_until(is_zero, &l->inflight, timeout);
}

ze_result_t rdCommandListGetDeviceHandle(ze_command_list_handle_t l, ze_device_handle_t *ph)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *ph = &rd.device;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandListGetContextHandle(ze_command_list_handle_t l, ze_context_handle_t *ph)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *ph = l->ctx;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandListGetOrdinal(ze_command_list_handle_t l, uint32_t *ordinal)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ordinal == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *ordinal = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandListImmediateGetIndex(ze_command_list_handle_t l, uint32_t *index)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (index == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!l->immediate)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    *index = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t rdCommandListIsImmediate(ze_command_list_handle_t l, ze_bool_t *immediate)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (immediate == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *immediate = l->immediate != 0;
    return ZE_RESULT_SUCCESS;
}

/* The event arguments every append takes: an optional event to signal and the events to wait for. */
static ze_result_t check_events(ze_event_handle_t signal, uint32_t nwait, ze_event_handle_t *waits)
{
    if (signal != NULL && !rd_valid(signal, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (nwait > 0 && waits == NULL)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    for (uint32_t i = 0; i < nwait; i++)
        if (!rd_valid(waits[i], RD_TAG_EVENT))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_SUCCESS;
}

/* Validates the event arguments every append takes and fills them into c. */
static ze_result_t prepare(rd_cmdlist *l, rd_cmd *c, enum rd_cmd_kind kind, ze_event_handle_t signal, uint32_t nwait,
                           ze_event_handle_t *waits)
{
    memset(c, 0, sizeof *c);
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->closed)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    ze_result_t r = check_events(signal, nwait, waits);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    c->kind = kind;
    c->signal = signal;
    if (nwait) {
        c->wait = malloc(nwait * sizeof *c->wait);
        if (c->wait == NULL)
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        memcpy(c->wait, waits, nwait * sizeof *waits);
        c->nwait = nwait;
    }
    return ZE_RESULT_SUCCESS;
}

/* Records c in a regular list, or runs it on an immediate list's engine (waiting when the list is synchronous). */
static ze_result_t commit(rd_cmdlist *l, rd_cmd *c)
{
    if (l->immediate) {
        rd_job *j = calloc(1, sizeof *j);
        rd_cmd *owned = malloc(sizeof *owned);
        if (j == NULL || owned == NULL) {
            free(j);
            free(owned);
            free_cmd(c);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        *owned = *c;
        j->single = owned;
        if (!hold_cmd(j, owned)) {
            release_holds(j);
            free_cmd(owned);
            free(owned);
            free(j);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        uint64_t ticket = engine_submit(&l->engine, j);
        if (l->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS)
            return engine_wait(&l->engine, ticket, UINT64_MAX);
        return ZE_RESULT_SUCCESS;
    }
    if (l->ncmds == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        rd_cmd *grown = realloc(l->cmds, cap * sizeof *grown);
        if (grown == NULL) {
            free_cmd(c);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        l->cmds = grown;
        l->cap = cap;
    }
    l->cmds[l->ncmds++] = *c;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t append_launch(ze_command_list_handle_t l, ze_kernel_handle_t k, const ze_group_count_t *count, int indirect,
                                 ze_event_handle_t signal, uint32_t nwait, ze_event_handle_t *waits)
{
    rd_cmd c;
    ze_result_t r = prepare(l, &c, RD_CMD_LAUNCH, signal, nwait, waits);
    if (r == ZE_RESULT_SUCCESS && !rd_valid(k, RD_TAG_KERNEL))
        r = ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (r == ZE_RESULT_SUCCESS && count == NULL)
        r = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; r == ZE_RESULT_SUCCESS && i < k->info->nparams; i++) {
        if (k->info->params[i].kind == RD_ARG_UNSUPPORTED)
            r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        else if (!k->args[i].set)
            r = ZE_RESULT_ERROR_INVALID_ARGUMENT; /* launching with an argument never set */
    }
    if (r != ZE_RESULT_SUCCESS) {
        free_cmd(&c);
        return r;
    }
    c.u.launch.kernel = k;
    __atomic_add_fetch(&k->refs, 1, __ATOMIC_RELAXED);
    if (indirect)
        c.u.launch.indirect = count;
    else
        memcpy(c.u.launch.count, count, sizeof c.u.launch.count);
    memcpy(c.u.launch.group, k->group, sizeof k->group);
    /* Arguments are captured now: later zeKernelSetArgumentValue calls must not change this launch. */
    uint32_t n = k->info->nparams;
    c.u.launch.args = calloc(n ? n : 1, sizeof *c.u.launch.args);
    if (c.u.launch.args == NULL) {
        free_cmd(&c);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < n; i++) {
        c.u.launch.args[i] = k->args[i];
        if (k->args[i].bytes) {
            c.u.launch.args[i].bytes = malloc(k->args[i].size);
            if (c.u.launch.args[i].bytes == NULL) {
                free_cmd(&c);
                return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            }
            memcpy(c.u.launch.args[i].bytes, k->args[i].bytes, k->args[i].size);
        }
    }
    return commit(l, &c);
}

ze_result_t rdCommandListAppendLaunchKernel(ze_command_list_handle_t l, ze_kernel_handle_t k, const ze_group_count_t *count,
                                            ze_event_handle_t signal, uint32_t nwait, ze_event_handle_t *waits)
{
    return append_launch(l, k, count, 0, signal, nwait, waits);
}

ze_result_t rdCommandListAppendLaunchKernelIndirect(ze_command_list_handle_t l, ze_kernel_handle_t k,
                                                    const ze_group_count_t *count, ze_event_handle_t signal, uint32_t nwait,
                                                    ze_event_handle_t *waits)
{
    return append_launch(l, k, count, 1, signal, nwait, waits);
}

ze_result_t rdCommandListAppendMemoryCopy(ze_command_list_handle_t l, void *dst, const void *src, size_t size,
                                          ze_event_handle_t signal, uint32_t nwait, ze_event_handle_t *waits)
{
    rd_cmd c;
    ze_result_t r = prepare(l, &c, RD_CMD_COPY, signal, nwait, waits);
    if (r == ZE_RESULT_SUCCESS && (dst == NULL || src == NULL))
        r = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (r != ZE_RESULT_SUCCESS) {
        free_cmd(&c);
        return r;
    }
    c.u.copy.dst = dst;
    c.u.copy.src = src;
    c.u.copy.size = size;
    return commit(l, &c);
}

/* Every context's memory is the one PoCL SVM space of this process, so a copy from another context's memory is a copy. */
ze_result_t rdCommandListAppendMemoryCopyFromContext(ze_command_list_handle_t l, void *dst, ze_context_handle_t src_ctx,
                                                     const void *src, size_t size, ze_event_handle_t signal, uint32_t nwait,
                                                     ze_event_handle_t *waits)
{
    if (!rd_valid(src_ctx, RD_TAG_CONTEXT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return rdCommandListAppendMemoryCopy(l, dst, src, size, signal, nwait, waits);
}

ze_result_t rdCommandListAppendMemoryCopyRegion(ze_command_list_handle_t l, void *dst, const ze_copy_region_t *dreg,
                                                uint32_t dpitch, uint32_t dslice, const void *src, const ze_copy_region_t *sreg,
                                                uint32_t spitch, uint32_t sslice, ze_event_handle_t signal, uint32_t nwait,
                                                ze_event_handle_t *waits)
{
    rd_cmd c;
    ze_result_t r = prepare(l, &c, RD_CMD_COPY_REGION, signal, nwait, waits);
    if (r == ZE_RESULT_SUCCESS && (dst == NULL || src == NULL || dreg == NULL || sreg == NULL))
        r = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (r == ZE_RESULT_SUCCESS &&
        (dreg->width != sreg->width || dreg->height != sreg->height || dreg->depth != sreg->depth))
        r = ZE_RESULT_ERROR_INVALID_SIZE;
    if (r != ZE_RESULT_SUCCESS) {
        free_cmd(&c);
        return r;
    }
    c.u.region.dst = dst;
    c.u.region.src = src;
    c.u.region.dreg = *dreg;
    c.u.region.sreg = *sreg;
    c.u.region.dpitch = dpitch;
    c.u.region.dslice = dslice;
    c.u.region.spitch = spitch;
    c.u.region.sslice = sslice;
    return commit(l, &c);
}

ze_result_t rdCommandListAppendMemoryFill(ze_command_list_handle_t l, void *dst, const void *pattern, size_t psize, size_t size,
                                          ze_event_handle_t signal, uint32_t nwait, ze_event_handle_t *waits)
{
    rd_cmd c;
    ze_result_t r = prepare(l, &c, RD_CMD_FILL, signal, nwait, waits);
    if (r == ZE_RESULT_SUCCESS && (dst == NULL || pattern == NULL))
        r = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (r == ZE_RESULT_SUCCESS && (psize == 0 || psize > sizeof c.u.fill.pattern || (psize & (psize - 1))))
        r = ZE_RESULT_ERROR_INVALID_SIZE;
    if (r != ZE_RESULT_SUCCESS) {
        free_cmd(&c);
        return r;
    }
    c.u.fill.dst = dst;
    memcpy(c.u.fill.pattern, pattern, psize);
    c.u.fill.pattern_size = psize;
    c.u.fill.size = size;
    return commit(l, &c);
}

static ze_result_t append_simple(ze_command_list_handle_t l, enum rd_cmd_kind kind, ze_event_handle_t signal, uint32_t nwait,
                                 ze_event_handle_t *waits)
{
    rd_cmd c;
    ze_result_t r = prepare(l, &c, kind, signal, nwait, waits);
    if (r != ZE_RESULT_SUCCESS) {
        free_cmd(&c);
        return r;
    }
    return commit(l, &c);
}

#if RD_HEADERS_HAVE(9)
/* ZE_experimental_immediate_command_list_append: the lists run on the immediate list's own engine, in order with what
   was appended before, after the waits and before the signal (three jobs: the engine runs jobs in order). */
ze_result_t rdCommandListImmediateAppendCommandListsExp(ze_command_list_handle_t l, uint32_t n, ze_command_list_handle_t *lists,
                                                         ze_event_handle_t signal, uint32_t nwait, ze_event_handle_t *waits)
{
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!l->immediate)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (lists == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = check_closed_lists(n, lists);
    if (r == ZE_RESULT_SUCCESS)
        r = check_events(signal, nwait, waits);
    if (r == ZE_RESULT_SUCCESS && nwait)
        r = append_simple(l, RD_CMD_WAIT, NULL, nwait, waits);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    rd_job *j = list_job(lists, n);
    if (j == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    uint64_t ticket = engine_submit(&l->engine, j);
    if (signal != NULL)
        return append_simple(l, RD_CMD_SIGNAL, signal, 0, NULL);
    if (l->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS)
        return engine_wait(&l->engine, ticket, UINT64_MAX);
    return ZE_RESULT_SUCCESS;
}
#endif

ze_result_t rdCommandListAppendBarrier(ze_command_list_handle_t l, ze_event_handle_t signal, uint32_t nwait,
                                       ze_event_handle_t *waits)
{
    return append_simple(l, RD_CMD_BARRIER, signal, nwait, waits);
}

ze_result_t rdCommandListAppendMemoryRangesBarrier(ze_command_list_handle_t l, uint32_t nranges, const size_t *sizes,
                                                   const void **ranges, ze_event_handle_t signal, uint32_t nwait,
                                                   ze_event_handle_t *waits)
{
    if (nranges > 0 && (sizes == NULL || ranges == NULL))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return append_simple(l, RD_CMD_BARRIER, signal, nwait, waits);
}

ze_result_t rdCommandListAppendSignalEvent(ze_command_list_handle_t l, ze_event_handle_t e)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return append_simple(l, RD_CMD_SIGNAL, e, 0, NULL);
}

ze_result_t rdCommandListAppendWaitOnEvents(ze_command_list_handle_t l, uint32_t n, ze_event_handle_t *events)
{
    if (n == 0 || events == NULL)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    return append_simple(l, RD_CMD_WAIT, NULL, n, events);
}

ze_result_t rdCommandListAppendEventReset(ze_command_list_handle_t l, ze_event_handle_t e)
{
    if (!rd_valid(e, RD_TAG_EVENT))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return append_simple(l, RD_CMD_RESET, e, 0, NULL);
}

ze_result_t rdCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t l, uint64_t *dst, ze_event_handle_t signal,
                                                    uint32_t nwait, ze_event_handle_t *waits)
{
    rd_cmd c;
    ze_result_t r = prepare(l, &c, RD_CMD_TIMESTAMP, signal, nwait, waits);
    if (r == ZE_RESULT_SUCCESS && dst == NULL)
        r = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (r != ZE_RESULT_SUCCESS) {
        free_cmd(&c);
        return r;
    }
    c.u.timestamp.dst = dst;
    return commit(l, &c);
}

ze_result_t rdCommandListAppendMemoryPrefetch(ze_command_list_handle_t l, const void *ptr, size_t size)
{
    (void)size;
    if (!rd_valid(l, RD_TAG_CMDLIST))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ptr == NULL ? ZE_RESULT_ERROR_INVALID_NULL_POINTER : ZE_RESULT_SUCCESS; /* memory is already host memory */
}

ze_result_t rdCommandListAppendMemAdvise(ze_command_list_handle_t l, ze_device_handle_t dev, const void *ptr, size_t size,
                                         ze_memory_advice_t advice)
{
    (void)size;
    (void)advice;
    if (!rd_valid(l, RD_TAG_CMDLIST) || !rd_valid(dev, RD_TAG_DEVICE))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ptr == NULL ? ZE_RESULT_ERROR_INVALID_NULL_POINTER : ZE_RESULT_SUCCESS; /* advice is a hint */
}
