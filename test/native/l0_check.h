/* What the native Level Zero test programs share: a call that must succeed, and a whole file read into memory. */
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

#endif
