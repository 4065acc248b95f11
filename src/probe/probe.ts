// The probe stage: a thin I/O shell (loader via koffi, optional addon, OpenCL ICD, UR) around the pure report model.
import { nodeLayout, prefixLibrary } from '../platform/index.js';
import * as fs from 'node:fs/promises';
import type { Deps } from '../base/deps.js';
import { EnvVars } from '../base/env-names.js';
import { XpuError } from '../base/errors.js';
import type { Receipt } from '../records/receipt.js';
import { probeViaAddon } from '../bindings/addon.js';
import { scanOpenCl } from '../bindings/opencl.js';
import type { RawZeProbe } from '../bindings/types.js';
import { hasLevelZeroAdapter, probeUr } from '../bindings/ur.js';
import { noDriverError, prefixLoader, probeZe } from '../bindings/ze.js';
import { readLdconfig } from '../machine/ldconfig.js';
import { explainNoDriver } from '../machine/ze-drivers.js';
import { unmetDllImports, unmetLibraryNeeds } from '../machine/library-needs.js';
import { resolveLibrary } from '../machine/loaders.js';
import { windowsLoaderFacts } from '../bindings/win-loader.js';
import { buildReport, type ProbeReport } from '../caps/model.js';
import { applyDeviceSelector } from '../bindings/select.js';
import { driversChosenIn } from '../roles/index.js';

export interface ProbeOptions {
  deps: Deps;
  /** A built addon to ask as well; its answers must agree with koffi's. */
  addonPath?: string;
  /** The prefix's receipt as the run read it: which Level Zero package it installed. */
  receipt?: Pick<Receipt, 'components'>;
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
  // Only the koffi probe asks for the driver's version string (an extension function) and the cache size, so neither is compared.
  const comparable = (p: RawZeProbe) =>
    p.drivers.map(({ driverVersionString: _s, devices, ...rest }) => ({ ...rest, devices: devices.map(({ cacheBytes: _c, ...d }) => d) }));
  walk(comparable(a), comparable(b), 'drivers');
  return out;
}

export async function probeStack(prefix: string, opts: ProbeOptions): Promise<ProbeReport> {
  const { deps } = opts;
  const layout = nodeLayout(deps.platform);
  const loader = await prefixLoader(prefix, deps);
  const installed = opts.receipt?.components.find((c) => /level.?zero|ze.?loader/i.test(c.name));
  const report = await probeLoader(loader, {
    ...opts,
    urPath: urLoaderPath(prefix, deps.platform),
    installedVersion: installed ? `${installed.name} ${installed.version}` : undefined,
  });
  report.origin = { kind: 'prefix', prefix };
  if (layout.driverLoaderInSystem32) report.loader.windows = await windowsLoaderFacts(loader, deps);
  return report;
}

export interface SystemLoader {
  zeLoader?: string;
  urLoader?: string;
  /** How the Level Zero loader was found (LD_LIBRARY_PATH, ld.so.cache, default dirs, System32, PATH, ONEAPI_ROOT). */
  via?: string;
  tried: string[];
}

/**
 * The loader a program on this system gets without any prefix, as the dynamic linker would choose it (so a oneAPI
 * environment's LD_LIBRARY_PATH wins), then a oneAPI install under ONEAPI_ROOT.
 */
export async function findSystemLoader(deps: Deps): Promise<SystemLoader> {
  const layout = nodeLayout(deps.platform);
  const ld = layout.ldconfig ? await readLdconfig(deps) : { found: [], tried: [] };
  const ze = await resolveLibrary(deps, layout.zeLoaderRuntime, { ldcache: ld.found });
  const ur = await resolveLibrary(deps, layout.urLoaderRuntime, { ldcache: ld.found });
  const out: SystemLoader = { tried: [...ld.tried, ...ze.tried] };
  const oneapiRoot = deps.env[EnvVars.ONEAPI_ROOT];
  if (ze.chosen) {
    out.zeLoader = ze.chosen.path;
    out.via = ze.chosen.via;
  } else if (oneapiRoot) {
    const root = oneapiRoot;
    for (const dir of layout.oneapiLibDirs) {
      const p = layout.path.join(root, dir, layout.zeLoaderRuntime);
      const there = await deps.exists(p);
      out.tried.push(`${p} (ONEAPI_ROOT): ${there ? 'found' : 'not there'}`);
      if (there) {
        out.zeLoader = p;
        out.via = 'ONEAPI_ROOT';
        break;
      }
    }
  }
  if (ur.chosen) out.urLoader = ur.chosen.path;
  return out;
}

/** `probe --system`: the devices of the system's own Level Zero install, like `sycl-ls` or `clinfo -l`. */
export async function probeSystem(opts: ProbeOptions): Promise<ProbeReport> {
  const found = await findSystemLoader(opts.deps);
  if (!found.zeLoader) {
    throw new XpuError('NOT_FOUND', `no Level Zero loader on this system (${nodeLayout(opts.deps.platform).zeLoaderRuntime})`, {
      details: { tried: found.tried },
      hints: ['install the GPU driver\'s Level Zero loader (Debian/Ubuntu: libze1), or run `xpu-setup` to install one into a prefix'],
    });
  }
  const report = await probeLoader(found.zeLoader, { ...opts, urPath: found.urLoader });
  report.origin = { kind: 'system', via: found.via ?? 'search path' };
  return report;
}

/**
 * The UR loader drops an adapter that fails to load without a word, so a walk without a Level Zero adapter says why
 * here: each Level Zero adapter next to the loader and the libraries it needs that the library path does not meet.
 */
async function whyNoLevelZeroAdapter(deps: Deps, urPath: string): Promise<string> {
  const layout = nodeLayout(deps.platform);
  const dir = layout.path.dirname(urPath);
  const head = `UR: no Level Zero adapter loaded, so SYCL and PyTorch XPU see no Intel GPU through ${urPath}`;
  const adapters = layout.urAdapters.filter((a) => a.includes('level_zero'));
  const present: string[] = [];
  for (const a of adapters) if (await deps.exists(layout.path.join(dir, a))) present.push(a);
  if (!present.length) return `${head}: no ${adapters.join(' or ')} next to it; install the Unified Runtime adapters (intel-cmplr-lib-ur)`;
  let unmet;
  let where: string;
  if (layout.binaryFormat === 'elf') {
    const searched = (deps.env[layout.libraryPathVar] ?? '').split(layout.pathSep).filter(Boolean);
    if (!searched.some((d) => layout.path.resolve(d) === layout.path.resolve(dir))) {
      return `${head}: the loader looks for ${present.join(' and ')} on the library path, and ${dir} is not on ${layout.libraryPathVar}; load the prefix's env file`;
    }
    unmet = await unmetLibraryNeeds(deps, dir, ['.'], (await readLdconfig(deps)).found, present);
    where = 'the library path does not provide';
  } else {
    // The Windows loader loads its adapters from its own directory, and their imports are looked for there first.
    unmet = (await unmetDllImports(deps, dir, ['.'], present)).unmet;
    where = 'neither its directory nor the system has';
  }
  const reasons = present.map((a) => {
    const needs = unmet.filter((u) => u.file === a);
    if (!needs.length) return `${a} did not load`;
    const what = needs.map((u) => `${u.version ? `${u.version} of ` : ''}${u.library}${u.providedBy ? ` (it comes with ${u.providedBy})` : ''}`);
    return `${a} did not load: it needs ${what.join(', ')}, which ${where}`;
  });
  return `${head}: ${reasons.join('; ')}`;
}

/** Probes one loader by path: L0 (koffi, and the addon when given), the OpenCL twin, UR; then the env's device filters. */
export async function probeLoader(loader: string, opts: ProbeOptions & { urPath?: string; installedVersion?: string }): Promise<ProbeReport> {
  const { deps } = opts;
  const ze = probeZe(loader, deps.env);
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
  let ur;
  if (opts.urPath && (await deps.exists(opts.urPath))) {
    try {
      ur = probeUr(opts.urPath);
      if (ur.init === 0 && !hasLevelZeroAdapter(ur)) notes.push(await whyNoLevelZeroAdapter(deps, opts.urPath));
    } catch (e) {
      notes.push(`UR: ${(e as Error).message}`);
    }
  }
  // A failed zeInit says nothing about why; the loader has closed the driver again, so load it apart to tell
  // "no driver" from "a driver and no device".
  const noDriver = ze.init !== 0 ? await explainNoDriver(deps, driversChosenIn(deps.env).entries) : undefined;
  const report = buildReport({
    ze,
    opencl: opencl?.devices,
    ur,
    loaderFile: await fs.realpath(loader).catch(() => undefined),
    installedVersion: opts.installedVersion,
  });
  report.notes.push(...notes);
  if (noDriver) {
    report.noDriver = noDriver;
    const loaded = noDriver.drivers.filter((d) => d.loaded).map((d) => d.path ?? d.name);
    report.notes.push(loaded.length ? `zeInit failed although ${loaded.join(', ')} loaded: the driver found no device` : 'zeInit failed: no Level Zero driver library loaded');
  }
  applySelection(report, deps.env);
  return report;
}

/**
 * ZE_AFFINITY_MASK is applied by the driver itself (compute-runtime, the reference driver), so it is only recorded;
 * ONEAPI_DEVICE_SELECTOR is SYCL's, applied here to the Level Zero devices as a SYCL program would see them.
 */
export function applySelection(report: ProbeReport, env: Record<string, string | undefined>): void {
  const affinityMask = env[EnvVars.ZE_AFFINITY_MASK] || undefined;
  const deviceSelector = env[EnvVars.ONEAPI_DEVICE_SELECTOR] || undefined;
  if (!affinityMask && !deviceSelector) return;
  const kept = applyDeviceSelector(report.devices, deviceSelector);
  const hiddenBySelector = report.devices.filter((d) => !kept.includes(d)).map((d) => d.id);
  report.devices = kept;
  report.selection = { affinityMask, deviceSelector, hiddenBySelector };
  if (affinityMask) report.notes.push(`ZE_AFFINITY_MASK=${affinityMask}: the driver lists only the devices it names`);
  if (deviceSelector) report.notes.push(`ONEAPI_DEVICE_SELECTOR=${deviceSelector}: ${hiddenBySelector.length ? `hides ${hiddenBySelector.join(', ')}` : 'hides nothing'}`);
}

/** Raises NO_DEVICE with the reason when the report has nothing to run on. */
export function requireDevices(report: ProbeReport, deps: Pick<Deps, 'env' | 'platform'>): void {
  if (report.zeInit !== 0) {
    const e = noDriverError(report.loader.path, report.zeInit, driversChosenIn(deps.env), deps.platform, report.noDriver);
    e.hints.push(...(report.loader.windows?.notes ?? []));
    throw e;
  }
  if (report.devices.length === 0) {
    const filters = [
      deps.env[EnvVars.ZE_AFFINITY_MASK] ? `ZE_AFFINITY_MASK=${deps.env[EnvVars.ZE_AFFINITY_MASK]}` : '',
      deps.env[EnvVars.ONEAPI_DEVICE_SELECTOR] ? `ONEAPI_DEVICE_SELECTOR=${deps.env[EnvVars.ONEAPI_DEVICE_SELECTOR]}` : '',
    ].filter(Boolean);
    throw new XpuError('NO_DEVICE', `Level Zero found ${report.drivers.length} driver(s) but no devices${filters.length ? ` (with ${filters.join(' and ')})` : ''}`, {
      hints: ['check ZE_AFFINITY_MASK and ONEAPI_DEVICE_SELECTOR', 'on Linux, check access to /dev/dri/renderD* (the `render` group)'],
    });
  }
}
