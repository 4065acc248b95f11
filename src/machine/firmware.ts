// GuC/HuC/GSC firmware the kernel driver loads for each GPU family (data/gpu-firmware.csv), and which of it is on disk.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Deps } from '../base/deps.js';
import { packagePath } from '../package-dir.js';
import { parseCsv } from './csv.js';
import type { DetectOptions } from './types.js';

export interface FirmwareRow {
  family: string;
  /** Kernel platform macros the row is for (prefix match), or undefined for the whole family. */
  platforms?: string[];
  kernelDriver: 'i915' | 'xe';
  kind: string;
  /** Path under /lib/firmware. */
  file: string;
  /** Without it the driver runs no compute engine (GuC submission); the rest serves media or authentication. */
  neededForCompute: boolean;
  source: string;
}

export function parseFirmware(text: string): FirmwareRow[] {
  return parseCsv(text, 'gpu-firmware.csv').map((r) => ({
    family: r.family!,
    ...(r.platforms && r.platforms !== '*' ? { platforms: r.platforms.split(/\s+/) } : {}),
    kernelDriver: r.kernel_driver === 'xe' ? 'xe' : 'i915',
    kind: r.kind!,
    file: r.file!,
    neededForCompute: r.needed_for_compute === 'yes',
    source: r.source!,
  }));
}

export const FIRMWARE_URL = pathToFileURL(packagePath('data', 'gpu-firmware.csv'));
let cached: FirmwareRow[] | undefined;

export function gpuFirmware(): FirmwareRow[] {
  cached ??= parseFirmware(readFileSync(FIRMWARE_URL, 'utf8'));
  return cached;
}

/** Pure: the rows for one GPU under one kernel driver. */
export function firmwareFor(rows: FirmwareRow[], gpu: { family?: string; platform?: string }, driver: string): FirmwareRow[] {
  return rows.filter((r) => r.family === gpu.family && r.kernelDriver === driver && (!r.platforms || r.platforms.some((p) => (gpu.platform ?? '').startsWith(p))));
}

// The kernel's firmware loader also takes the file compressed when it was built to (Fedora ships .xz, Arch .zst).
const SUFFIXES = ['', '.zst', '.xz'];

/** Which of `rows`' files are under <root>/lib/firmware (or /usr/lib/firmware), each as the path found. */
export async function presentFirmware(deps: Deps, rows: FirmwareRow[], opts: DetectOptions = {}): Promise<Map<string, string>> {
  const root = opts.root ?? '/';
  const found = new Map<string, string>();
  for (const r of rows) {
    if (found.has(r.file)) continue;
    search: for (const dir of ['lib/firmware', 'usr/lib/firmware']) {
      for (const s of SUFFIXES) {
        const p = path.join(root, dir, r.file + s);
        if (await deps.exists(p)) {
          found.set(r.file, p);
          break search;
        }
      }
    }
  }
  return found;
}
