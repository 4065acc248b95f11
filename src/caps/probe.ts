// The probe stage: a thin I/O shell (loader via koffi, optional addon, OpenCL ICD, UR) around the pure report model.
import * as path from 'node:path';
import { nodeLayout, prefixLibrary } from '../host/index.js';
import * as fs from 'node:fs/promises';
import type { Deps } from '../deps.js';
import { XpuError } from '../errors.js';
import { readReceipt } from '../install/receipt.js';
import { probeViaAddon } from '../runtime/addon.js';
import { scanOpenCl } from '../runtime/opencl.js';
import type { RawZeProbe } from '../runtime/types.js';
import { probeUr } from '../runtime/ur.js';
import { system32Dir } from '../detect/windows.js';
import { windowsLoaderFacts } from '../runtime/win-loader.js';
import { noDriverError, probeZe, zeLoaderPath } from '../runtime/ze.js';
import { buildReport, type ProbeReport } from './model.js';

export interface ProbeOptions {
  deps: Deps;
  /** A built addon to ask as well; its answers must agree with koffi's. */
  addonPath?: string;
}

export function urLoaderPath(prefix: string, platform: NodeJS.Platform): string {
  return prefixLibrary(platform, prefix, nodeLayout(platform).urLoaderRuntime);
}

/** Differences between two raw probes of the same loader (koffi and addon), as readable lines; empty when they agree. */
export function probeDifferences(a: RawZeProbe, b: RawZeProbe): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, at: string) => {
    if (out.length > 20) return;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) out.push(`${at}: ${x.length} vs ${y.length} entries`);
      for (let i = 0; i < Math.min(x.length, y.length); i++) walk(x[i], y[i], `${at}[${i}]`);
    } else if (x && y && typeof x === 'object' && typeof y === 'object') {
      for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${at}.${k}`);
    } else if (x !== y) out.push(`${at}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
  };
  walk(a.init, b.init, 'init');
  walk(a.drivers, b.drivers, 'drivers');
  return out;
}

export async function probeStack(prefix: string, opts: ProbeOptions): Promise<ProbeReport> {
  const { deps } = opts;
  let loader = zeLoaderPath(prefix, deps.platform);
  // An SDK install on Windows has headers and ze_loader.lib only; the driver's System32 copy is the loader then.
  const driverLoader = deps.platform === 'win32' ? path.win32.join(system32Dir(deps.env), 'ze_loader.dll') : undefined;
  if (driverLoader && !(await deps.exists(loader)) && (await deps.exists(driverLoader))) loader = driverLoader;
  if (!(await deps.exists(loader))) {
    throw new XpuError('NOT_FOUND', `no Level Zero loader in the prefix: ${loader} does not exist`, {
      hints: [`run \`xpu-setup --prefix ${prefix}\` to install it`],
    });
  }
  const ze = probeZe(loader);
  const notes: string[] = [];
  if (opts.addonPath) {
    const viaAddon = probeViaAddon(opts.addonPath, loader);
    const diff = probeDifferences(ze, viaAddon);
    if (diff.length) notes.push(`the runtime addon and koffi disagree: ${diff.join('; ')}`);
    notes.push(...viaAddon.notes.filter((n) => !ze.notes.includes(n)));
  }
  const anyDevice = ze.drivers.some((d) => d.devices.length > 0);
  const opencl = anyDevice ? scanOpenCl(deps.platform) : undefined;
  if (opencl?.error) notes.push(`OpenCL: ${opencl.error}`);
  const urPath = urLoaderPath(prefix, deps.platform);
  let ur;
  if (await deps.exists(urPath)) {
    try {
      ur = probeUr(urPath);
    } catch (e) {
      notes.push(`UR: ${(e as Error).message}`);
    }
  }
  const receipt = await readReceipt(prefix).catch(() => undefined);
  const installed = receipt?.components.find((c) => /level.?zero|ze.?loader/i.test(c.name));
  const report = buildReport({
    ze,
    opencl: opencl?.devices,
    ur,
    loaderFile: await fs.realpath(loader).catch(() => undefined),
    installedVersion: installed ? `${installed.name} ${installed.version}` : undefined,
  });
  report.notes.push(...notes);
  if (deps.platform === 'win32') report.loader.windows = await windowsLoaderFacts(loader, deps);
  return report;
}

/** Raises NO_DEVICE with the reason when the report has nothing to run on. */
export function requireDevices(report: ProbeReport, deps: Pick<Deps, 'env' | 'platform'>): void {
  if (report.zeInit !== 0) {
    const e = noDriverError(report.loader.path, report.zeInit, deps.env, deps.platform);
    e.hints.push(...(report.loader.windows?.notes ?? []));
    throw e;
  }
  if (report.devices.length === 0) {
    throw new XpuError('NO_DEVICE', `Level Zero found ${report.drivers.length} driver(s) but no devices`, {
      hints: ['check ZE_AFFINITY_MASK and ONEAPI_DEVICE_SELECTOR', 'on Linux, check access to /dev/dri/renderD* (the `render` group)'],
    });
  }
}
