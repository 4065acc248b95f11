/* Device profiles: which GPU the reference driver impersonates (sources for every value: README.md). */
#include "refdriver.h"

#include <string.h>

#define VENDOR_INTEL 0x8086u
#define VENDOR_POCL 0x10006u /* Khronos-registered vendor id of PoCL (VK_VENDOR_ID_POCL) */
#define DP_XMX (RD_DP_FLAG_DP4A | RD_DP_FLAG_DPAS)
#define BLOCK_2D (RD_BLOCK_FLAG_LOAD | RD_BLOCK_FLAG_STORE)
/* compute-runtime's L0 device.cpp always reports FP16 and INT64_ATOMICS, and FP64 where the product's hw_info sets
   ftrSupportsFP64 (PVC, MTL, ARL, BMG, LNL, PTL, NVL; not DG2, which only emulates it when asked). */
#define FP_ALL (ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64 | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS)
#define FP_NO64 (ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS)

static const rd_profile profiles[] = {
    {"default", "xpu-setup CPU reference device (PoCL)", ZE_DEVICE_TYPE_CPU, VENDOR_POCL, 0, 0, 1, {1}, 0, 0, 0, 1, RD_MODULE_FROM_OPENCL},
    {"pvc", "Intel(R) Data Center GPU Max 1550", ZE_DEVICE_TYPE_GPU, VENDOR_INTEL, 0x0bd5, 0x030f0007, 2, {16, 32}, DP_XMX, BLOCK_2D, 1024, 0, FP_ALL},
    {"bmg", "Intel(R) Arc(TM) B580 Graphics", ZE_DEVICE_TYPE_GPU, VENDOR_INTEL, 0xe20b, 0x05004004, 2, {16, 32}, DP_XMX, BLOCK_2D, 1024, 0, FP_ALL},
    {"dg2", "Intel(R) Arc(TM) A770 Graphics", ZE_DEVICE_TYPE_GPU, VENDOR_INTEL, 0x56a0, 0x030dc008, 3, {8, 16, 32}, DP_XMX, 0, 1024, 0, FP_NO64},
    {"lnl", "Intel(R) Arc(TM) Graphics", ZE_DEVICE_TYPE_GPU, VENDOR_INTEL, 0x64a0, 0x05010004, 2, {16, 32}, DP_XMX, BLOCK_2D, 1024, 1, FP_ALL},
    {"mtl", "Intel(R) Arc(TM) Graphics", ZE_DEVICE_TYPE_GPU, VENDOR_INTEL, 0x7d55, 0x0311c004, 3, {8, 16, 32}, RD_DP_FLAG_DP4A, 0, 1024, 1, FP_ALL},
    {"arl_h", "Intel(R) Arc(TM) Graphics", ZE_DEVICE_TYPE_GPU, VENDOR_INTEL, 0x7d51, 0x03128004, 3, {8, 16, 32}, DP_XMX, 0, 1024, 1, FP_ALL},
    {"ptl_h", "Intel(R) Arc(TM) B390 GPU", ZE_DEVICE_TYPE_GPU, VENDOR_INTEL, 0xb080, 0x07800004, 2, {16, 32}, DP_XMX, BLOCK_2D, 1024, 1, FP_ALL},
};

const rd_profile *rd_profile_find(const char *key)
{
    if (key == NULL || *key == '\0')
        key = "default";
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (strcmp(profiles[i].key, key) == 0)
            return &profiles[i];
    return NULL;
}
