// Finds GPUs (Intel and others) on Linux (sysfs) and Windows (CIM, then PnP) and names Intel ones from their PCI id.
import type { Deps } from '../base/deps.js';
import { osLayout } from '../platform/index.js';
import { describeIntelGpu, gpuIds, hex4, type GpuIdRow, type KernelDriverName } from './gpu-ids.js';
import { INTEL_VENDOR, isDisplayClass, readPciDisplayControllers, vendorName, type PciDevice } from './pci.js';
import type { DetectOptions, Finding } from './types.js';
import { queryPnpDisplayDevices, queryVideoControllers, type WinPnpDevice, type WinVideoController } from './windows.js';

export interface IntelGpu {
  /** "8086:56a0" */
  pciId: string;
  deviceId: number;
  name: string;
  /** False when the id is not in the table (newer than this tool, or not a GPU we know). */
  known: boolean;
  family?: string;
  platform?: string;
  /** Kernel driver that binds this id by default on Linux. */
  expectedDriver?: KernelDriverName;
  /** Linux: PCI address and the driver bound now. */
  address?: string;
  driver?: string;
  /** Windows: what the display driver reports. */
  windows?: { adapterName: string; driverVersion?: string; driverStoreDir?: string; problem?: number; status?: string };
}

export interface OtherGpu {
  vendor: string;
  pciId: string;
  name?: string;
  address?: string;
  driver?: string;
}

export interface GpuScan {
  intel: IntelGpu[];
  others: OtherGpu[];
}

function intelFromId(deviceId: number, ids: Map<number, GpuIdRow>): IntelGpu {
  const row = ids.get(deviceId);
  const g: IntelGpu = { pciId: `8086:${hex4(deviceId)}`, deviceId, name: describeIntelGpu(deviceId, ids), known: !!row };
  if (row) {
    g.family = row.family;
    g.platform = row.platform;
    g.expectedDriver = row.kernelDriver;
  }
  return g;
}

/** Pure: splits sysfs PCI devices into Intel GPUs and other display controllers. */
export function classifyPci(devices: PciDevice[], ids: Map<number, GpuIdRow> = gpuIds()): GpuScan {
  const scan: GpuScan = { intel: [], others: [] };
  for (const d of devices) {
    if (!isDisplayClass(d.classCode)) continue;
    if (d.vendorId === INTEL_VENDOR) {
      const g = intelFromId(d.deviceId, ids);
      g.address = d.address;
      if (d.driver) g.driver = d.driver;
      scan.intel.push(g);
    } else {
      const o: OtherGpu = { vendor: vendorName(d.vendorId), pciId: `${hex4(d.vendorId)}:${hex4(d.deviceId)}`, address: d.address };
      if (d.driver) o.driver = d.driver;
      scan.others.push(o);
    }
  }
  return scan;
}

/** Pure: the same split for Windows adapters (CIM) or PnP display devices. */
export function classifyWindows(adapters: (WinVideoController | WinPnpDevice)[], ids: Map<number, GpuIdRow> = gpuIds()): GpuScan {
  const scan: GpuScan = { intel: [], others: [] };
  for (const a of adapters) {
    if (a.vendorId === INTEL_VENDOR && a.deviceId !== undefined) {
      const g = intelFromId(a.deviceId, ids);
      const w: NonNullable<IntelGpu['windows']> = { adapterName: a.name };
      if ('driverVersion' in a && a.driverVersion) w.driverVersion = a.driverVersion;
      if ('driverStoreDir' in a && a.driverStoreDir) w.driverStoreDir = a.driverStoreDir;
      const problem = 'errorCode' in a ? a.errorCode : 'problem' in a ? a.problem : undefined;
      if (problem !== undefined) w.problem = problem;
      if (a.status) w.status = a.status;
      g.windows = w;
      scan.intel.push(g);
    } else if (a.vendorId !== undefined && a.deviceId !== undefined) {
      scan.others.push({ vendor: vendorName(a.vendorId), pciId: `${hex4(a.vendorId)}:${hex4(a.deviceId)}`, name: a.name });
    } else {
      // Remote-desktop and basic display adapters have no PCI id.
      scan.others.push({ vendor: 'software', pciId: '-', name: a.name });
    }
  }
  return scan;
}

export async function detectGpus(deps: Deps, opts: DetectOptions = {}): Promise<Finding<GpuScan>> {
  const layout = osLayout(deps.platform);
  if (!layout) return { found: { intel: [], others: [] }, tried: [`${deps.platform}: no GPU detection`] };
  if (layout.gpuDriver === 'display-driver') {
    const cim = await queryVideoControllers(deps);
    if (cim.found.length > 0) return { found: classifyWindows(cim.found), tried: cim.tried };
    const pnp = await queryPnpDisplayDevices(deps);
    return { found: classifyWindows(pnp.found), tried: [...cim.tried, ...pnp.tried] };
  }
  const pci = await readPciDisplayControllers(deps, opts);
  return { found: classifyPci(pci.found), tried: pci.tried };
}
