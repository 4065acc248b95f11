/* Runtime addon: what Triton's host stub does (init, enumerate, read device properties), behind a small C ABI. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/ze_api.h>

#if defined(_WIN32)
#define XPU_EXPORT __declspec(dllexport)
#else
#define XPU_EXPORT __attribute__((visibility("default")))
#endif

/* ze_device_ip_version_ext_t arrived with headers 1.9; older headers (Debian 12's 1.8.12) lack it, so the addon
 * carries its own definition with the same layout and reports which one it was built with. */
#ifdef ZE_DEVICE_IP_VERSION_EXT_NAME
#define XPU_HEADERS_HAVE_IP_VERSION 1
typedef ze_device_ip_version_ext_t xpu_ip_version_ext_t;
#else
#define XPU_HEADERS_HAVE_IP_VERSION 0
#define ZE_DEVICE_IP_VERSION_EXT_NAME "ZE_extension_device_ip_version"
typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t ipVersion;
} xpu_ip_version_ext_t;
#endif
#define XPU_STYPE_IP_VERSION ((ze_structure_type_t)0x1000f)

/* ze_intel_gpu.h is C++ only (default member initialisers) and rarely installed: same layouts, defined here. */
typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t flags;
} xpu_intel_ext_flags_t;
#define XPU_STYPE_BLOCK_ARRAY ((ze_structure_type_t)0x00030007)
#define XPU_STYPE_MODULE_DP ((ze_structure_type_t)0x00030013)
#define XPU_EXT_BLOCK_ARRAY "ZE_intel_experimental_device_block_array_properties"
#define XPU_EXT_MODULE_DP "ZE_intel_experimental_device_module_dp_properties"
#define XPU_EXT_PCI "ZE_extension_pci_properties"

/* zelLoaderGetVersions lives in loader/ze_loader.h; declared here so the addon builds without that header. */
typedef struct {
    char component_name[64];
    ze_api_version_t spec_version;
    struct { int major, minor, patch; } component_lib_version;
} xpu_component_version_t;
ze_result_t ZE_APICALL zelLoaderGetVersions(size_t *num_elems, xpu_component_version_t *versions);

typedef struct {
    char *buf;
    size_t cap, len;
} out_t;

static void put(out_t *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf && o->len < o->cap ? o->buf + o->len : NULL, o->buf && o->len < o->cap ? o->cap - o->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0) o->len += (size_t)n;
}

static void put_str(out_t *o, const char *s, size_t max) {
    put(o, "\"");
    for (size_t i = 0; i < max && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') put(o, "\\%c", c);
        else if (c < 0x20) put(o, "\\u%04x", c);
        else put(o, "%c", c);
    }
    put(o, "\"");
}

static void put_hex(out_t *o, const uint8_t *b, size_t n) {
    put(o, "\"");
    for (size_t i = 0; i < n; i++) put(o, "%02x", b[i]);
    put(o, "\"");
}

static int has_ext(const ze_driver_extension_properties_t *ext, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strncmp(ext[i].name, name, ZE_MAX_EXTENSION_NAME) == 0) return 1;
    return 0;
}

static void put_device(out_t *o, ze_device_handle_t dev, const ze_driver_extension_properties_t *ext, uint32_t next) {
    int ask_ip = has_ext(ext, next, ZE_DEVICE_IP_VERSION_EXT_NAME);
    int ask_block = has_ext(ext, next, XPU_EXT_BLOCK_ARRAY);
    int ask_dp = has_ext(ext, next, XPU_EXT_MODULE_DP);
    int ask_pci = has_ext(ext, next, XPU_EXT_PCI);

    xpu_ip_version_ext_t ip;
    memset(&ip, 0, sizeof ip);
    ip.stype = XPU_STYPE_IP_VERSION;
    xpu_intel_ext_flags_t block = {XPU_STYPE_BLOCK_ARRAY, NULL, 0};
    xpu_intel_ext_flags_t dp = {XPU_STYPE_MODULE_DP, NULL, 0};

    ze_device_properties_t p;
    memset(&p, 0, sizeof p);
    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    void **tail = &p.pNext;
    if (ask_ip) { *tail = &ip; tail = (void **)&ip.pNext; }
    if (ask_block) { *tail = &block; tail = &block.pNext; }
    zeDeviceGetProperties(dev, &p);

    ze_device_compute_properties_t c;
    memset(&c, 0, sizeof c);
    c.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
    zeDeviceGetComputeProperties(dev, &c);

    ze_device_module_properties_t m;
    memset(&m, 0, sizeof m);
    m.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
    if (ask_dp) m.pNext = &dp;
    zeDeviceGetModuleProperties(dev, &m);

    uint32_t nmem = 0;
    zeDeviceGetMemoryProperties(dev, &nmem, NULL);
    if (nmem > 16) nmem = 16;
    ze_device_memory_properties_t mem[16];
    memset(mem, 0, sizeof mem);
    for (uint32_t i = 0; i < nmem; i++) mem[i].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
    if (nmem) zeDeviceGetMemoryProperties(dev, &nmem, mem);

    uint32_t nsub = 0;
    if (zeDeviceGetSubDevices(dev, &nsub, NULL) != ZE_RESULT_SUCCESS) nsub = 0;

    put(o, "{\"name\":");
    put_str(o, p.name, ZE_MAX_DEVICE_NAME);
    put(o, ",\"type\":%u,\"vendorId\":%u,\"deviceId\":%u,\"flags\":%u,\"subdeviceId\":%u,\"coreClockRate\":%u",
        (unsigned)p.type, p.vendorId, p.deviceId, (unsigned)p.flags, p.subdeviceId, p.coreClockRate);
    put(o, ",\"maxMemAllocSize\":%llu,\"numThreadsPerEU\":%u,\"physicalEUSimdWidth\":%u,\"numEUsPerSubslice\":%u",
        (unsigned long long)p.maxMemAllocSize, p.numThreadsPerEU, p.physicalEUSimdWidth, p.numEUsPerSubslice);
    put(o, ",\"numSubslicesPerSlice\":%u,\"numSlices\":%u,\"uuid\":", p.numSubslicesPerSlice, p.numSlices);
    put_hex(o, p.uuid.id, ZE_MAX_DEVICE_UUID_SIZE);
    put(o, ",\"maxTotalGroupSize\":%u,\"maxGroupSize\":[%u,%u,%u],\"maxSharedLocalMemory\":%u,\"subGroupSizes\":[",
        c.maxTotalGroupSize, c.maxGroupSizeX, c.maxGroupSizeY, c.maxGroupSizeZ, c.maxSharedLocalMemory);
    uint32_t nsg = c.numSubGroupSizes > ZE_SUBGROUPSIZE_COUNT ? ZE_SUBGROUPSIZE_COUNT : c.numSubGroupSizes;
    for (uint32_t i = 0; i < nsg; i++) put(o, "%s%u", i ? "," : "", c.subGroupSizes[i]);
    put(o, "],\"spirvVersion\":\"%u.%u\",\"moduleFlags\":%u,\"fp16flags\":%u,\"fp64flags\":%u",
        (unsigned)(m.spirvVersionSupported >> 16), (unsigned)(m.spirvVersionSupported & 0xffff), (unsigned)m.flags,
        (unsigned)m.fp16flags, (unsigned)m.fp64flags);
    if (ask_dp) put(o, ",\"dpFlags\":%u", dp.flags); else put(o, ",\"dpFlags\":null");
    if (ask_block) put(o, ",\"blockArrayFlags\":%u", block.flags); else put(o, ",\"blockArrayFlags\":null");
    if (ask_ip) put(o, ",\"ipVersion\":%u", ip.ipVersion); else put(o, ",\"ipVersion\":null");
    put(o, ",\"memories\":[");
    for (uint32_t i = 0; i < nmem; i++) {
        put(o, "%s{\"name\":", i ? "," : "");
        put_str(o, mem[i].name, ZE_MAX_DEVICE_NAME);
        put(o, ",\"totalSize\":%llu,\"maxClockRate\":%u,\"maxBusWidth\":%u}", (unsigned long long)mem[i].totalSize,
            mem[i].maxClockRate, mem[i].maxBusWidth);
    }
    put(o, "],\"pci\":");
    ze_pci_ext_properties_t pci;
    memset(&pci, 0, sizeof pci);
    pci.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES;
    if (ask_pci && zeDevicePciGetPropertiesExt(dev, &pci) == ZE_RESULT_SUCCESS)
        put(o, "{\"domain\":%u,\"bus\":%u,\"device\":%u,\"function\":%u}", pci.address.domain, pci.address.bus,
            pci.address.device, pci.address.function);
    else
        put(o, "null");
    put(o, ",\"subDevices\":%u}", nsub);
}

static void put_driver(out_t *o, ze_driver_handle_t drv) {
    ze_api_version_t api = 0;
    zeDriverGetApiVersion(drv, &api);
    ze_driver_properties_t dp;
    memset(&dp, 0, sizeof dp);
    dp.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
    zeDriverGetProperties(drv, &dp);

    uint32_t next = 0;
    ze_driver_extension_properties_t *ext = NULL;
    if (zeDriverGetExtensionProperties(drv, &next, NULL) == ZE_RESULT_SUCCESS && next) {
        ext = calloc(next, sizeof *ext);
        if (!ext || zeDriverGetExtensionProperties(drv, &next, ext) != ZE_RESULT_SUCCESS) next = 0;
    } else {
        next = 0;
    }

    put(o, "{\"apiVersion\":\"%u.%u\",\"driverVersion\":%u,\"uuid\":", (unsigned)(api >> 16), (unsigned)(api & 0xffff),
        dp.driverVersion);
    put_hex(o, dp.uuid.id, ZE_MAX_DRIVER_UUID_SIZE);
    put(o, ",\"extensions\":[");
    for (uint32_t i = 0; i < next; i++) {
        put(o, "%s{\"name\":", i ? "," : "");
        put_str(o, ext[i].name, ZE_MAX_EXTENSION_NAME);
        put(o, ",\"version\":%u}", ext[i].version);
    }
    put(o, "],\"devices\":[");
    uint32_t ndev = 0;
    zeDeviceGet(drv, &ndev, NULL);
    ze_device_handle_t *devs = ndev ? calloc(ndev, sizeof *devs) : NULL;
    if (devs && zeDeviceGet(drv, &ndev, devs) == ZE_RESULT_SUCCESS)
        for (uint32_t i = 0; i < ndev; i++) {
            if (i) put(o, ",");
            put_device(o, devs[i], ext, next);
        }
    put(o, "]}");
    free(devs);
    free(ext);
}

/** ABI revision of this library; bumped when an exported signature or the JSON shape changes. */
XPU_EXPORT int xpu_addon_abi(void) { return 1; }

/** 1 when the headers it was compiled against define ze_device_ip_version_ext_t. */
XPU_EXPORT int xpu_addon_headers_have_ip_version(void) { return XPU_HEADERS_HAVE_IP_VERSION; }

/** ZE_API_VERSION_CURRENT of the headers it was compiled against. */
XPU_EXPORT unsigned xpu_addon_headers_api_version(void) { return (unsigned)ZE_API_VERSION_CURRENT; }

/**
 * Initialises Level Zero and writes the probe as JSON into buf (NUL-terminated when it fits).
 * Returns the length the JSON needs, without the NUL; call again with a larger buffer when it is >= cap.
 */
XPU_EXPORT size_t xpu_probe_json(char *buf, size_t cap) {
    out_t o = {buf, cap, 0};
    ze_result_t init = zeInit(0);
    put(&o, "{\"via\":\"addon\",\"init\":%u,\"drivers\":[", (unsigned)init);
    if (init == ZE_RESULT_SUCCESS) {
        uint32_t n = 0;
        zeDriverGet(&n, NULL);
        ze_driver_handle_t *d = n ? calloc(n, sizeof *d) : NULL;
        if (d && zeDriverGet(&n, d) == ZE_RESULT_SUCCESS)
            for (uint32_t i = 0; i < n; i++) {
                if (i) put(&o, ",");
                put_driver(&o, d[i]);
            }
        free(d);
    }
    put(&o, "],\"components\":[");
    size_t nc = 0;
    if (zelLoaderGetVersions(&nc, NULL) == ZE_RESULT_SUCCESS && nc > 0 && nc <= 64) {
        xpu_component_version_t *v = calloc(nc, sizeof *v);
        if (v && zelLoaderGetVersions(&nc, v) == ZE_RESULT_SUCCESS)
            for (size_t i = 0; i < nc; i++) {
                put(&o, "%s{\"name\":", i ? "," : "");
                put_str(&o, v[i].component_name, sizeof v[i].component_name);
                put(&o, ",\"spec\":\"%u.%u\",\"version\":\"%d.%d.%d\"}", (unsigned)(v[i].spec_version >> 16),
                    (unsigned)(v[i].spec_version & 0xffff), v[i].component_lib_version.major,
                    v[i].component_lib_version.minor, v[i].component_lib_version.patch);
            }
        free(v);
    }
    put(&o, "]}");
    if (buf && cap) buf[o.len < cap ? o.len : cap - 1] = '\0';
    return o.len;
}
