/* Lists Level Zero devices through whatever ze_loader.dll the Windows DLL search finds (linked with ze_loader.lib):
 * prints zeInit's result, then one line per device. Used by the Wine suite to prove env.bat's PATH works. */
#include <stdio.h>
#include <level_zero/ze_api.h>

int main(void) {
  ze_result_t r = zeInit(0);
  printf("zeInit 0x%x\n", (unsigned)r);
  if (r != ZE_RESULT_SUCCESS) return 0;
  uint32_t nd = 0;
  zeDriverGet(&nd, NULL);
  ze_driver_handle_t drivers[8];
  if (nd > 8) nd = 8;
  zeDriverGet(&nd, drivers);
  for (uint32_t i = 0; i < nd; i++) {
    uint32_t n = 0;
    zeDeviceGet(drivers[i], &n, NULL);
    ze_device_handle_t devs[16];
    if (n > 16) n = 16;
    zeDeviceGet(drivers[i], &n, devs);
    for (uint32_t j = 0; j < n; j++) {
      ze_device_properties_t p = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
      zeDeviceGetProperties(devs[j], &p);
      printf("device %s\n", p.name);
    }
  }
  return 0;
}
