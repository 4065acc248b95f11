// A PCI device's BARs from sysfs (`/sys/bus/pci/devices/<addr>/resource`: "start end flags" in hex, one line per
// resource, BAR0..5 first), and whether a discrete GPU's VRAM aperture (BAR2) shows Resizable BAR in effect.
import * as path from 'node:path';
import { SYSFS_ATTRIBUTE } from '../base/safe-read.js';
import type { Deps } from '../base/deps.js';
import type { DetectOptions } from './types.js';

export interface PciResource {
  start: bigint;
  end: bigint;
  flags: bigint;
}

/** Pure: the resource file's lines; an unused resource is all zeros. */
export function parseResources(text: string): PciResource[] {
  return text
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length === 3 && f.every((x) => /^0x[0-9a-f]+$/i.test(x)))
    .map(([s, e, fl]) => ({ start: BigInt(s!), end: BigInt(e!), flags: BigInt(fl!) }));
}

export function resourceSize(r: PciResource | undefined): bigint {
  return r && (r.end > r.start || r.start !== 0n) ? r.end - r.start + 1n : 0n;
}

/** Intel discrete GPUs map their VRAM through BAR2 (LMEMBAR); without Resizable BAR it stays at 256 MiB. */
export const VRAM_BAR = 2;
/** Below this the aperture cannot be a resized one: 256 MiB is the legacy size, and every resized one is >= 1 GiB. */
export const SMALL_BAR_LIMIT = 1n << 30n;

export type BarVerdict = { kind: 'resized'; bytes: bigint } | { kind: 'small'; bytes: bigint } | { kind: 'unknown'; why: string };

/** Pure: whether the VRAM aperture is a resized one. */
export function vramBarVerdict(resources: PciResource[]): BarVerdict {
  const bar = resources[VRAM_BAR];
  const bytes = resourceSize(bar);
  if (!bar || bytes === 0n) return { kind: 'unknown', why: `BAR${VRAM_BAR} is not assigned` };
  return bytes >= SMALL_BAR_LIMIT ? { kind: 'resized', bytes } : { kind: 'small', bytes };
}

export function formatBytes(n: bigint): string {
  const units: [bigint, string][] = [[1n << 30n, 'GiB'], [1n << 20n, 'MiB'], [1n << 10n, 'KiB']];
  for (const [u, name] of units) if (n >= u && n % u === 0n) return `${n / u} ${name}`;
  return `${n} bytes`;
}

export async function readResources(deps: Deps, address: string, opts: DetectOptions = {}): Promise<PciResource[] | undefined> {
  const text = await deps.readFile(path.join(opts.root ?? '/', 'sys/bus/pci/devices', address, 'resource'), SYSFS_ATTRIBUTE);
  return text === undefined ? undefined : parseResources(text);
}
