// PCI devices from Linux sysfs (/sys/bus/pci/devices/*): pure parsing of the attribute files, thin reads through Deps.
import * as path from 'node:path';
import { SYSFS_ATTRIBUTE } from '../base/safe-read.js';
import type { Deps } from '../base/deps.js';
import type { DetectOptions, Finding } from './types.js';

export const INTEL_VENDOR = 0x8086;

export interface PciDevice {
  /** Domain:bus:device.function, e.g. 0000:03:00.0. */
  address: string;
  vendorId: number;
  deviceId: number;
  /** 24-bit class code, e.g. 0x030000 (VGA). */
  classCode: number;
  subsystemVendorId?: number;
  subsystemDeviceId?: number;
  /** Kernel driver bound to the device (basename of the driver link), if any. */
  driver?: string;
}

/** Parses a sysfs hex attribute ("0x8086\n"). */
export function parseSysfsHex(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^\s*0x([0-9a-f]+)\s*$/i.exec(text);
  return m ? parseInt(m[1]!, 16) : undefined;
}

/** Class 0x03xxxx: VGA (0x0300), 3D (0x0302) and "other display" (0x0380, e.g. data-center GPUs). */
export function isDisplayClass(classCode: number): boolean {
  return classCode >> 16 === 0x03;
}

const VENDOR_NAMES: Record<number, string> = {
  0x8086: 'Intel',
  0x10de: 'NVIDIA',
  0x1002: 'AMD',
  0x1af4: 'virtio',
  0x1234: 'QEMU',
  0x15ad: 'VMware',
  0x1414: 'Microsoft (Hyper-V)',
  0x1a03: 'ASPEED',
  0x102b: 'Matrox',
};

export function vendorName(id: number): string {
  return VENDOR_NAMES[id] ?? `vendor 0x${id.toString(16).padStart(4, '0')}`;
}

/**
 * The display controllers on the PCI bus (class 0x03), each with its ids and bound driver. Every device costs one read
 * (its class); only a display controller's other attributes are read: a server's bus has hundreds of functions, a
 * handful of them GPUs.
 */
export async function readPciDisplayControllers(deps: Deps, opts: DetectOptions = {}): Promise<Finding<PciDevice[]>> {
  const dir = path.join(opts.root ?? '/', 'sys/bus/pci/devices');
  const names = await deps.readDir(dir);
  if (!names) return { found: [], tried: [`${dir}: not readable (no sysfs?)`] };
  const found: PciDevice[] = [];
  let devices = 0;
  await Promise.all(
    names.map(async (address) => {
      const d = path.join(dir, address);
      const classCode = parseSysfsHex(await deps.readFile(path.join(d, 'class'), SYSFS_ATTRIBUTE));
      if (classCode === undefined) return;
      devices++;
      if (!isDisplayClass(classCode)) return;
      const [vendor, device, sv, sd, driverLink] = await Promise.all([
        deps.readFile(path.join(d, 'vendor'), SYSFS_ATTRIBUTE),
        deps.readFile(path.join(d, 'device'), SYSFS_ATTRIBUTE),
        deps.readFile(path.join(d, 'subsystem_vendor'), SYSFS_ATTRIBUTE),
        deps.readFile(path.join(d, 'subsystem_device'), SYSFS_ATTRIBUTE),
        deps.readLink(path.join(d, 'driver')),
      ]);
      const vendorId = parseSysfsHex(vendor);
      const deviceId = parseSysfsHex(device);
      if (vendorId === undefined || deviceId === undefined) return;
      const dev: PciDevice = { address, vendorId, deviceId, classCode };
      const svId = parseSysfsHex(sv);
      const sdId = parseSysfsHex(sd);
      if (svId !== undefined) dev.subsystemVendorId = svId;
      if (sdId !== undefined) dev.subsystemDeviceId = sdId;
      if (driverLink) dev.driver = path.basename(driverLink);
      found.push(dev);
    }),
  );
  found.sort((a, b) => a.address.localeCompare(b.address));
  return { found, tried: [`${dir}: ${devices} devices, ${found.length} display controllers`] };
}

/** Kernel modules currently loaded among i915 and xe (/sys/module/<name> exists while loaded or built in). */
export async function loadedGpuModules(deps: Deps, opts: DetectOptions = {}): Promise<string[]> {
  const root = opts.root ?? '/';
  const out: string[] = [];
  for (const m of ['i915', 'xe']) if (await deps.exists(path.join(root, 'sys/module', m))) out.push(m);
  return out;
}
