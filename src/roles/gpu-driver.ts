// The gpu-driver role: Intel's Level Zero GPU driver (compute-runtime's libze_intel_gpu.so.1 and what it loads: IGC,
// gmmlib). The loader finds it by its file name on the library path the env files set, so it adds nothing there; a
// ZE_ENABLE_ALT_DRIVERS list (the reference driver's) replaces that search, which is why the choice names it too.
import type { Role } from './role.js';

/** The file name the loader looks for; the prefix's library directory holds it when this role is installed. */
export const GPU_DRIVER_LIBRARY = 'libze_intel_gpu.so.1';

export const gpuDriver: Role = {
  name: 'gpu-driver',
  title: 'the Intel GPU Level Zero driver',
  single: true,
  drivesHostGpu: true,
};
