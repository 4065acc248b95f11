// Intel GPU PCI ids as data: data/intel-gpu-ids.csv (shipped with the package) parsed by a pure function.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { packagePath } from '../package-dir.js';

export type KernelDriverName = 'i915' | 'xe' | 'unknown';

export interface GpuIdRow {
  deviceId: number;
  /** Kernel platform macro, e.g. DG2_G10. */
  platform: string;
  /** Short family name, e.g. dg2, bmg. */
  family: string;
  /** The kernel driver that binds this id by default; "unknown" when only force_probe or an out-of-tree driver does. */
  kernelDriver: KernelDriverName;
  /** Marketing name when Mesa or compute-runtime knows one. */
  name?: string;
  /** SYCL architecture name (compute-runtime's id lists), when the id alone decides it. */
  arch?: string;
}

/** Parses the CSV (header: device_id,platform_macro,family,kernel_driver_default,name,source). */
export function parseGpuIds(text: string): Map<number, GpuIdRow> {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = (lines.shift() ?? '').split(',');
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`intel-gpu-ids.csv: missing column "${name}"`);
    return i;
  };
  const [cId, cPlat, cFam, cDrv, cName] = ['device_id', 'platform_macro', 'family', 'kernel_driver_default', 'name'].map(col) as [number, number, number, number, number];
  const out = new Map<number, GpuIdRow>();
  for (const line of lines) {
    // The file has no quoted fields; a comma never appears inside a value.
    const f = line.split(',');
    const deviceId = parseInt(f[cId] ?? '', 16);
    if (Number.isNaN(deviceId)) continue;
    const drv = f[cDrv];
    const row: GpuIdRow = {
      deviceId,
      platform: f[cPlat] ?? '',
      family: f[cFam] ?? '',
      kernelDriver: drv === 'i915' || drv === 'xe' ? drv : 'unknown',
    };
    if (f[cName]) row.name = f[cName];
    // Optional column: older copies of the table have no `arch`.
    const cArch = header.indexOf('arch');
    if (cArch >= 0 && f[cArch]) row.arch = f[cArch];
    out.set(deviceId, row);
  }
  return out;
}

/** The CSV's location in the package. */
export const GPU_IDS_URL = pathToFileURL(packagePath('data', 'intel-gpu-ids.csv'));

let cached: Map<number, GpuIdRow> | undefined;

export function gpuIds(): Map<number, GpuIdRow> {
  cached ??= parseGpuIds(readFileSync(GPU_IDS_URL, 'utf8'));
  return cached;
}

export function hex4(n: number): string {
  return n.toString(16).padStart(4, '0');
}

/** A name a person recognises: the marketing name, else the family and platform, else the bare id. */
export function describeIntelGpu(deviceId: number, ids: Map<number, GpuIdRow> = gpuIds()): string {
  const row = ids.get(deviceId);
  if (!row) return `unknown Intel GPU (8086:${hex4(deviceId)})`;
  if (row.name && row.name !== 'Intel(R) Graphics') return `${row.name} (${row.family}, 8086:${hex4(deviceId)})`;
  return `Intel ${row.family.toUpperCase()} GPU ${row.platform} (8086:${hex4(deviceId)})`;
}
