/* The Level Zero entry points this driver implements, declared from the loader's own function-pointer types. */
#ifndef XPU_SETUP_REFDRIVER_ENTRYPOINTS_H
#define XPU_SETUP_REFDRIVER_ENTRYPOINTS_H

#include "refdriver.h"

/* Per table: X(table, slot, first API minor version (1.x) that has the slot). Slots newer than the headers the driver
   is built against do not exist in their tables, so each group of them is compiled only with headers that have it
   (headers before 1.10 define no ZE_API_VERSION_CURRENT_M: they count as the 1.4 of Debian's 1.8.12). */
#ifdef ZE_API_VERSION_CURRENT_M
#define RD_HEADERS_HAVE(minor) (ZE_API_VERSION_CURRENT_M >= ZE_MAKE_VERSION(1, minor))
#else
#define RD_HEADERS_HAVE(minor) ((minor) <= 4)
#endif
#define RD_NONE(X)

#if RD_HEADERS_HAVE(10)
typedef ze_pfnInitDrivers_t ze_pfnGlobalInitDrivers_t;
#define RD_GLOBAL_ENTRYPOINTS(X) X(Global, Init, 0) X(Global, InitDrivers, 10)
#else
#define RD_GLOBAL_ENTRYPOINTS(X) X(Global, Init, 0)
#endif

#if RD_HEADERS_HAVE(6)
#define RD_DRIVER_1_6(X) X(Driver, GetLastErrorDescription, 6)
#define RD_COMMANDLIST_1_6(X) X(CommandList, HostSynchronize, 6)
#else
#define RD_DRIVER_1_6 RD_NONE
#define RD_COMMANDLIST_1_6 RD_NONE
#endif
#if RD_HEADERS_HAVE(7)
#define RD_DEVICE_1_7(X) X(Device, GetRootDevice, 7)
#else
#define RD_DEVICE_1_7 RD_NONE
#endif
#if RD_HEADERS_HAVE(9)
#define RD_COMMANDQUEUE_1_9(X) X(CommandQueue, GetOrdinal, 9) X(CommandQueue, GetIndex, 9)
#define RD_COMMANDLIST_1_9(X)              \
    X(CommandList, GetDeviceHandle, 9)     \
    X(CommandList, GetContextHandle, 9)    \
    X(CommandList, GetOrdinal, 9)          \
    X(CommandList, ImmediateGetIndex, 9)   \
    X(CommandList, IsImmediate, 9)
#define RD_EVENTPOOL_1_9(X) X(EventPool, GetContextHandle, 9) X(EventPool, GetFlags, 9)
#define RD_EVENT_1_9(X) X(Event, GetEventPool, 9) X(Event, GetSignalScope, 9) X(Event, GetWaitScope, 9)
/* The CommandListExp table itself first came with 1.9: its getter exists only with these headers. */
#define RD_COMMANDLISTEXP_ENTRYPOINTS(X) X(CommandList, ImmediateAppendCommandListsExp, 9)
#else
#define RD_COMMANDQUEUE_1_9 RD_NONE
#define RD_COMMANDLIST_1_9 RD_NONE
#define RD_EVENTPOOL_1_9 RD_NONE
#define RD_EVENT_1_9 RD_NONE
#define RD_COMMANDLISTEXP_ENTRYPOINTS RD_NONE
#endif

#define RD_DRIVER_ENTRYPOINTS(X)               \
    X(Driver, Get, 0)                          \
    X(Driver, GetApiVersion, 0)                \
    X(Driver, GetProperties, 0)                \
    X(Driver, GetIpcProperties, 0)             \
    X(Driver, GetExtensionProperties, 0)       \
    X(Driver, GetExtensionFunctionAddress, 1)  \
    RD_DRIVER_1_6(X)

#define RD_DEVICE_ENTRYPOINTS(X)                  \
    X(Device, Get, 0)                             \
    X(Device, GetSubDevices, 0)                   \
    X(Device, GetProperties, 0)                   \
    X(Device, GetComputeProperties, 0)            \
    X(Device, GetModuleProperties, 0)             \
    X(Device, GetCommandQueueGroupProperties, 0)  \
    X(Device, GetMemoryProperties, 0)             \
    X(Device, GetMemoryAccessProperties, 0)       \
    X(Device, GetCacheProperties, 0)              \
    X(Device, GetImageProperties, 0)              \
    X(Device, GetExternalMemoryProperties, 0)     \
    X(Device, GetP2PProperties, 0)                \
    X(Device, CanAccessPeer, 0)                   \
    X(Device, GetStatus, 0)                       \
    X(Device, GetGlobalTimestamps, 1)             \
    RD_DEVICE_1_7(X)

#define RD_CONTEXT_ENTRYPOINTS(X)      \
    X(Context, Create, 0)              \
    X(Context, CreateEx, 1)            \
    X(Context, Destroy, 0)             \
    X(Context, GetStatus, 0)           \
    X(Context, SystemBarrier, 0)       \
    X(Context, MakeMemoryResident, 0)

#define RD_COMMANDQUEUE_ENTRYPOINTS(X)       \
    X(CommandQueue, Create, 0)               \
    X(CommandQueue, Destroy, 0)              \
    X(CommandQueue, ExecuteCommandLists, 0)  \
    X(CommandQueue, Synchronize, 0)          \
    RD_COMMANDQUEUE_1_9(X)

#define RD_COMMANDLIST_ENTRYPOINTS(X)              \
    X(CommandList, Create, 0)                      \
    X(CommandList, CreateImmediate, 0)             \
    X(CommandList, Destroy, 0)                     \
    X(CommandList, Close, 0)                       \
    X(CommandList, Reset, 0)                       \
    X(CommandList, AppendWriteGlobalTimestamp, 0)  \
    X(CommandList, AppendBarrier, 0)               \
    X(CommandList, AppendMemoryRangesBarrier, 0)   \
    X(CommandList, AppendMemoryCopy, 0)            \
    X(CommandList, AppendMemoryCopyFromContext, 0) \
    X(CommandList, AppendMemoryFill, 0)            \
    X(CommandList, AppendMemoryCopyRegion, 0)      \
    X(CommandList, AppendMemoryPrefetch, 0)        \
    X(CommandList, AppendMemAdvise, 0)             \
    X(CommandList, AppendSignalEvent, 0)           \
    X(CommandList, AppendWaitOnEvents, 0)          \
    X(CommandList, AppendEventReset, 0)            \
    X(CommandList, AppendLaunchKernel, 0)          \
    X(CommandList, AppendLaunchKernelIndirect, 0)  \
    RD_COMMANDLIST_1_6(X)                          \
    RD_COMMANDLIST_1_9(X)

#define RD_FENCE_ENTRYPOINTS(X)   \
    X(Fence, Create, 0)           \
    X(Fence, Destroy, 0)          \
    X(Fence, HostSynchronize, 0)  \
    X(Fence, QueryStatus, 0)      \
    X(Fence, Reset, 0)

#define RD_EVENTPOOL_ENTRYPOINTS(X)  \
    X(EventPool, Create, 0)          \
    X(EventPool, Destroy, 0)         \
    RD_EVENTPOOL_1_9(X)

#define RD_EVENT_ENTRYPOINTS(X)        \
    X(Event, Create, 0)                \
    X(Event, Destroy, 0)               \
    X(Event, HostSignal, 0)            \
    X(Event, HostSynchronize, 0)       \
    X(Event, QueryStatus, 0)           \
    X(Event, HostReset, 0)             \
    X(Event, QueryKernelTimestamp, 0)  \
    RD_EVENT_1_9(X)

#define RD_MODULE_ENTRYPOINTS(X)  \
    X(Module, Create, 0)          \
    X(Module, Destroy, 0)         \
    X(Module, GetNativeBinary, 0) \
    X(Module, GetKernelNames, 0)  \
    X(Module, GetProperties, 0)

#define RD_MODULEBUILDLOG_ENTRYPOINTS(X)  \
    X(ModuleBuildLog, Destroy, 0)         \
    X(ModuleBuildLog, GetString, 0)

#define RD_KERNEL_ENTRYPOINTS(X)       \
    X(Kernel, Create, 0)               \
    X(Kernel, Destroy, 0)              \
    X(Kernel, SetCacheConfig, 0)       \
    X(Kernel, SetGroupSize, 0)         \
    X(Kernel, SuggestGroupSize, 0)     \
    X(Kernel, SetArgumentValue, 0)     \
    X(Kernel, SetIndirectAccess, 0)    \
    X(Kernel, GetIndirectAccess, 0)    \
    X(Kernel, GetSourceAttributes, 0)  \
    X(Kernel, GetProperties, 0)        \
    X(Kernel, GetName, 0)

#define RD_MEM_ENTRYPOINTS(X)      \
    X(Mem, AllocShared, 0)         \
    X(Mem, AllocDevice, 0)         \
    X(Mem, AllocHost, 0)           \
    X(Mem, Free, 0)                \
    X(Mem, GetAllocProperties, 0)  \
    X(Mem, GetAddressRange, 0)     \
    X(Mem, FreeExt, 3)

#define RD_ENTRYPOINTS(X)             \
    RD_GLOBAL_ENTRYPOINTS(X)          \
    RD_DRIVER_ENTRYPOINTS(X)          \
    RD_DEVICE_ENTRYPOINTS(X)          \
    RD_CONTEXT_ENTRYPOINTS(X)         \
    RD_COMMANDQUEUE_ENTRYPOINTS(X)    \
    RD_COMMANDLIST_ENTRYPOINTS(X)     \
    RD_FENCE_ENTRYPOINTS(X)           \
    RD_EVENTPOOL_ENTRYPOINTS(X)       \
    RD_EVENT_ENTRYPOINTS(X)           \
    RD_MODULE_ENTRYPOINTS(X)          \
    RD_MODULEBUILDLOG_ENTRYPOINTS(X)  \
    RD_KERNEL_ENTRYPOINTS(X)          \
    RD_MEM_ENTRYPOINTS(X)             \
    RD_COMMANDLISTEXP_ENTRYPOINTS(X)

/* Function names are rd<Table><Slot>; the global table's type lacks the table name, so alias it. */
typedef ze_pfnInit_t ze_pfnGlobalInit_t;
#define RD_FN(table, slot) rd##table##slot
#define RD_DECLARE(table, slot, minor) extern __typeof__(*(ze_pfn##table##slot##_t)0) RD_FN(table, slot);
RD_ENTRYPOINTS(RD_DECLARE)
#undef RD_DECLARE

#endif
