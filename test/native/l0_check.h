/* What the native Level Zero test programs share: a call that must succeed, a whole file read into memory, and the
   first device of the first driver with a context on it. */
#ifndef XPU_SETUP_TEST_L0_CHECK_H
#define XPU_SETUP_TEST_L0_CHECK_H

#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>

/* On failure prints error=<call> returned 0x<code> (the line tests look for) and exits 2. */
#define CHECK(call)                                                                        \
    do {                                                                                   \
        ze_result_t r_ = (call);                                                           \
        if (r_ != ZE_RESULT_SUCCESS) {                                                     \
            printf("error=%s returned 0x%x at line %d\n", #call, (unsigned)r_, __LINE__); \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        printf("error=cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        exit(2);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void open_first_device(ze_driver_handle_t *drv, ze_device_handle_t *dev, ze_context_handle_t *ctx)
{
    CHECK(zeInit(0));
    uint32_t n = 1;
    CHECK(zeDriverGet(&n, drv));
    n = 1;
    CHECK(zeDeviceGet(*drv, &n, dev));
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    CHECK(zeContextCreate(*drv, &cd, ctx));
}

#endif
