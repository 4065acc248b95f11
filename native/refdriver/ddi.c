/* The table getters the Level Zero loader looks up with dlsym: every zeGet*, zetGet* and zesGet*ProcAddrTable. */
#include "entrypoints.h"
#include "slots.h"

#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

/* Every slot without an implementation answers this, rather than a null entry the loader would report differently. */
static ze_result_t ZE_APICALL rd_unsupported(void)
{
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

/*
 * Tables only grow at their end (slots.h has the version of each slot), so a loader at this header's version or newer
 * has room for the whole struct compiled here, and an older one for the slots its version has: those get the
 * unsupported stub, and then the implemented ones of them their implementation. Slots the loader's version lacks are
 * left alone, and so are the slots of headers newer than slots.h unless the loader is as new.
 */
static int begin_table(ze_api_version_t version, void *table, size_t size, const unsigned char *minors, size_t known)
{
    if (ZE_MAJOR_VERSION(version) != ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT))
        return 0;
    ze_result_t(ZE_APICALL * *slots)(void) = table;
    for (size_t i = 0; i < size / sizeof *slots; i++)
        if (version >= ZE_API_VERSION_CURRENT || (i < known && minors[i] <= ZE_MINOR_VERSION(version)))
            slots[i] = rd_unsupported;
    return 1;
}

#define RD_SET(table, slot, minor)                                 \
    if ((int)ZE_MINOR_VERSION(version) >= (minor))                 \
        t->pfn##slot = RD_FN(table, slot);

#define RD_GETTER(getter, type, list)                                                \
    RD_EXPORT ze_result_t ZE_APICALL getter(ze_api_version_t version, type *t)      \
    {                                                                                \
        if (t == NULL)                                                               \
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;                             \
        static const unsigned char minors[] = {RD_SLOTS_##type};                    \
        if (!begin_table(version, t, sizeof *t, minors, sizeof minors))              \
            return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;                              \
        list(RD_SET)                                                                 \
        return ZE_RESULT_SUCCESS;                                                    \
    }

RD_GETTER(zeGetGlobalProcAddrTable, ze_global_dditable_t, RD_GLOBAL_ENTRYPOINTS)
RD_GETTER(zeGetDriverProcAddrTable, ze_driver_dditable_t, RD_DRIVER_ENTRYPOINTS)
RD_GETTER(zeGetDeviceProcAddrTable, ze_device_dditable_t, RD_DEVICE_ENTRYPOINTS)
RD_GETTER(zeGetCommandQueueProcAddrTable, ze_command_queue_dditable_t, RD_COMMANDQUEUE_ENTRYPOINTS)
RD_GETTER(zeGetCommandListProcAddrTable, ze_command_list_dditable_t, RD_COMMANDLIST_ENTRYPOINTS)
RD_GETTER(zeGetFenceProcAddrTable, ze_fence_dditable_t, RD_FENCE_ENTRYPOINTS)
RD_GETTER(zeGetEventPoolProcAddrTable, ze_event_pool_dditable_t, RD_EVENTPOOL_ENTRYPOINTS)
RD_GETTER(zeGetEventProcAddrTable, ze_event_dditable_t, RD_EVENT_ENTRYPOINTS)
RD_GETTER(zeGetModuleProcAddrTable, ze_module_dditable_t, RD_MODULE_ENTRYPOINTS)
RD_GETTER(zeGetModuleBuildLogProcAddrTable, ze_module_build_log_dditable_t, RD_MODULEBUILDLOG_ENTRYPOINTS)
RD_GETTER(zeGetKernelProcAddrTable, ze_kernel_dditable_t, RD_KERNEL_ENTRYPOINTS)
RD_GETTER(zeGetMemProcAddrTable, ze_mem_dditable_t, RD_MEM_ENTRYPOINTS)

/* Residency is a no-op on host memory: eviction shares the implementation. */
RD_EXPORT ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t version, ze_context_dditable_t *t)
{
    if (t == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    static const unsigned char minors[] = {RD_SLOTS_ze_context_dditable_t};
    if (!begin_table(version, t, sizeof *t, minors, sizeof minors))
        return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    RD_CONTEXT_ENTRYPOINTS(RD_SET)
    t->pfnEvictMemory = rdContextMakeMemoryResident;
    return ZE_RESULT_SUCCESS;
}

RD_GETTER(zeGetImageProcAddrTable, ze_image_dditable_t, RD_NONE)
RD_GETTER(zeGetSamplerProcAddrTable, ze_sampler_dditable_t, RD_NONE)
RD_GETTER(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t, RD_NONE)
RD_GETTER(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t, RD_NONE)
RD_GETTER(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t, RD_NONE)
RD_GETTER(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t, RD_NONE)
RD_GETTER(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t, RD_NONE)
RD_GETTER(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t, RD_NONE)
RD_GETTER(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t, RD_NONE)
RD_GETTER(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t, RD_NONE)
/* Tables newer than API 1.4, each compiled with headers that have it. */
#if RD_HEADERS_HAVE(9)
RD_GETTER(zeGetCommandListExpProcAddrTable, ze_command_list_exp_dditable_t, RD_COMMANDLISTEXP_ENTRYPOINTS)
#endif
#if RD_HEADERS_HAVE(10)
RD_GETTER(zeGetDriverExpProcAddrTable, ze_driver_exp_dditable_t, RD_NONE)
RD_GETTER(zeGetMemExpProcAddrTable, ze_mem_exp_dditable_t, RD_NONE)
RD_GETTER(zeGetRTASBuilderExpProcAddrTable, ze_rtas_builder_exp_dditable_t, RD_NONE)
RD_GETTER(zeGetRTASParallelOperationExpProcAddrTable, ze_rtas_parallel_operation_exp_dditable_t, RD_NONE)
#endif
#if RD_HEADERS_HAVE(13)
RD_GETTER(zeGetRTASBuilderProcAddrTable, ze_rtas_builder_dditable_t, RD_NONE)
RD_GETTER(zeGetRTASParallelOperationProcAddrTable, ze_rtas_parallel_operation_dditable_t, RD_NONE)
#endif
#if RD_HEADERS_HAVE(17)
RD_GETTER(zeGetExecutableGraphProcAddrTable, ze_executable_graph_dditable_t, RD_NONE)
RD_GETTER(zeGetGraphProcAddrTable, ze_graph_dditable_t, RD_NONE)
#endif

/* Tools (zet) and sysman (zes): nothing implemented, but old loaders refuse a driver without these getters. */
RD_GETTER(zetGetDeviceProcAddrTable, zet_device_dditable_t, RD_NONE)
RD_GETTER(zetGetContextProcAddrTable, zet_context_dditable_t, RD_NONE)
RD_GETTER(zetGetCommandListProcAddrTable, zet_command_list_dditable_t, RD_NONE)
RD_GETTER(zetGetModuleProcAddrTable, zet_module_dditable_t, RD_NONE)
RD_GETTER(zetGetKernelProcAddrTable, zet_kernel_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricProcAddrTable, zet_metric_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t, RD_NONE)
RD_GETTER(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t, RD_NONE)
RD_GETTER(zetGetDebugProcAddrTable, zet_debug_dditable_t, RD_NONE)
#if RD_HEADERS_HAVE(10)
RD_GETTER(zetGetDeviceExpProcAddrTable, zet_device_exp_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricDecoderExpProcAddrTable, zet_metric_decoder_exp_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricExpProcAddrTable, zet_metric_exp_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricProgrammableExpProcAddrTable, zet_metric_programmable_exp_dditable_t, RD_NONE)
RD_GETTER(zetGetMetricTracerExpProcAddrTable, zet_metric_tracer_exp_dditable_t, RD_NONE)
#endif
#if RD_HEADERS_HAVE(13)
RD_GETTER(zetGetCommandListExpProcAddrTable, zet_command_list_exp_dditable_t, RD_NONE)
#endif

RD_GETTER(zesGetDriverProcAddrTable, zes_driver_dditable_t, RD_NONE)
RD_GETTER(zesGetDeviceProcAddrTable, zes_device_dditable_t, RD_NONE)
RD_GETTER(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t, RD_NONE)
RD_GETTER(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t, RD_NONE)
RD_GETTER(zesGetPowerProcAddrTable, zes_power_dditable_t, RD_NONE)
RD_GETTER(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t, RD_NONE)
RD_GETTER(zesGetEngineProcAddrTable, zes_engine_dditable_t, RD_NONE)
RD_GETTER(zesGetStandbyProcAddrTable, zes_standby_dditable_t, RD_NONE)
RD_GETTER(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t, RD_NONE)
RD_GETTER(zesGetMemoryProcAddrTable, zes_memory_dditable_t, RD_NONE)
RD_GETTER(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t, RD_NONE)
RD_GETTER(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t, RD_NONE)
RD_GETTER(zesGetPsuProcAddrTable, zes_psu_dditable_t, RD_NONE)
RD_GETTER(zesGetFanProcAddrTable, zes_fan_dditable_t, RD_NONE)
RD_GETTER(zesGetLedProcAddrTable, zes_led_dditable_t, RD_NONE)
RD_GETTER(zesGetRasProcAddrTable, zes_ras_dditable_t, RD_NONE)
RD_GETTER(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t, RD_NONE)
#if RD_HEADERS_HAVE(10)
RD_GETTER(zesGetGlobalProcAddrTable, zes_global_dditable_t, RD_NONE)
RD_GETTER(zesGetDeviceExpProcAddrTable, zes_device_exp_dditable_t, RD_NONE)
RD_GETTER(zesGetDriverExpProcAddrTable, zes_driver_exp_dditable_t, RD_NONE)
RD_GETTER(zesGetFirmwareExpProcAddrTable, zes_firmware_exp_dditable_t, RD_NONE)
RD_GETTER(zesGetOverclockProcAddrTable, zes_overclock_dditable_t, RD_NONE)
RD_GETTER(zesGetRasExpProcAddrTable, zes_ras_exp_dditable_t, RD_NONE)
RD_GETTER(zesGetVFManagementExpProcAddrTable, zes_vf_management_exp_dditable_t, RD_NONE)
#endif
