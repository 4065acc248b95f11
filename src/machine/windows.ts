// Windows GPU facts: Win32_VideoController and PnP device JSON from PowerShell, parsed by pure functions.
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import type { Finding } from '../base/finding.js';

export interface WinVideoController {
  name: string;
  pnpDeviceId?: string;
  vendorId?: number;
  deviceId?: number;
  driverVersion?: string;
  /** The driver's folder under System32\DriverStore\FileRepository, where ze_intel_gpu64.dll lives. */
  driverStoreDir?: string;
  /** Win32 ConfigManagerErrorCode: 0 works, 28 no driver, 43 stopped after reporting problems, ... */
  errorCode?: number;
  status?: string;
}

export interface WinPnpDevice {
  name: string;
  instanceId: string;
  vendorId?: number;
  deviceId?: number;
  status?: string;
  problem?: number;
  present?: boolean;
}

/** VEN_/DEV_ from a PnP id such as PCI\VEN_8086&DEV_56A0&SUBSYS_10208086&REV_08\6&... */
export function parsePnpId(id: string | undefined): { vendorId: number; deviceId: number } | undefined {
  const m = id ? /VEN_([0-9A-F]{4})&DEV_([0-9A-F]{4})/i.exec(id) : null;
  return m ? { vendorId: parseInt(m[1]!, 16), deviceId: parseInt(m[2]!, 16) } : undefined;
}

/** ConvertTo-Json prints one object without brackets and several as an array; empty output means none. */
function jsonRecords(text: string): Record<string, unknown>[] {
  const t = text.replace(/^\uFEFF/, '').trim();
  if (!t) return [];
  const v = JSON.parse(t) as unknown;
  const arr = Array.isArray(v) ? v : [v];
  return arr.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null);
}

const s = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const n = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

export function driverStoreDirOf(installedDisplayDrivers: string | undefined): string | undefined {
  for (const f of (installedDisplayDrivers ?? '').split(',')) {
    if (/\\DriverStore\\/i.test(f)) return path.win32.dirname(f.trim());
  }
  return undefined;
}

export function parseVideoControllers(text: string): WinVideoController[] {
  return jsonRecords(text).map((r) => {
    const c: WinVideoController = { name: s(r.Name) ?? s(r.Caption) ?? 'unnamed display adapter' };
    const pnp = s(r.PNPDeviceID);
    if (pnp) c.pnpDeviceId = pnp;
    const ids = parsePnpId(pnp);
    if (ids) Object.assign(c, ids);
    const ver = s(r.DriverVersion);
    if (ver) c.driverVersion = ver;
    const store = driverStoreDirOf(s(r.InstalledDisplayDrivers));
    if (store) c.driverStoreDir = store;
    const err = n(r.ConfigManagerErrorCode);
    if (err !== undefined) c.errorCode = err;
    const st = s(r.Status);
    if (st) c.status = st;
    return c;
  });
}

export function parsePnpDisplayDevices(text: string): WinPnpDevice[] {
  return jsonRecords(text).map((r) => {
    const instanceId = s(r.InstanceId) ?? s(r.DeviceID) ?? '';
    const d: WinPnpDevice = { name: s(r.FriendlyName) ?? s(r.Name) ?? instanceId, instanceId };
    const ids = parsePnpId(instanceId);
    if (ids) Object.assign(d, ids);
    const st = s(r.Status);
    if (st) d.status = st;
    const p = n(r.Problem) ?? n(r.ConfigManagerErrorCode);
    if (p !== undefined) d.problem = p;
    if (typeof r.Present === 'boolean') d.present = r.Present;
    return d;
  });
}

/** Meanings of the ConfigManagerErrorCode / CM_PROB values a GPU commonly shows. */
export function describeCmProblem(code: number): string {
  const known: Record<number, string> = {
    0: 'working properly',
    1: 'not configured correctly',
    10: 'cannot start (code 10)',
    18: 'drivers need reinstalling (code 18)',
    22: 'disabled (code 22)',
    28: 'no driver installed (code 28)',
    31: 'driver could not be loaded (code 31)',
    43: 'stopped after reporting problems (code 43)',
    52: 'driver signature could not be verified (code 52)',
  };
  return known[code] ?? `problem code ${code}`;
}

const CIM_SCRIPT =
  'Get-CimInstance Win32_VideoController | Select-Object Name,PNPDeviceID,DriverVersion,InstalledDisplayDrivers,ConfigManagerErrorCode,Status | ConvertTo-Json';
const PNP_SCRIPT =
  'Get-PnpDevice -Class Display | Select-Object FriendlyName,InstanceId,Status,Problem,Present | ConvertTo-Json';

async function powershell(deps: Deps, script: string): Promise<{ text?: string; error?: string }> {
  const r = await deps.exec('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', script], { timeoutMs: 20_000 });
  if (r.failedToStart) return { error: `powershell.exe could not start: ${r.failedToStart}` };
  if (r.exitCode !== 0) return { error: `powershell.exe exited ${r.exitCode}: ${r.stderr.trim().split('\n')[0] ?? ''}` };
  return { text: r.stdout };
}

export async function queryVideoControllers(deps: Deps): Promise<Finding<WinVideoController[]>> {
  const r = await powershell(deps, CIM_SCRIPT);
  if (r.text === undefined) return { found: [], tried: [`Get-CimInstance Win32_VideoController: ${r.error}`] };
  try {
    const found = parseVideoControllers(r.text);
    return { found, tried: [`Get-CimInstance Win32_VideoController: ${found.length} adapters`] };
  } catch (e) {
    return { found: [], tried: [`Get-CimInstance Win32_VideoController: unreadable JSON (${(e as Error).message})`] };
  }
}

export async function queryPnpDisplayDevices(deps: Deps): Promise<Finding<WinPnpDevice[]>> {
  const r = await powershell(deps, PNP_SCRIPT);
  if (r.text === undefined) return { found: [], tried: [`Get-PnpDevice -Class Display: ${r.error}`] };
  try {
    const found = parsePnpDisplayDevices(r.text);
    return { found, tried: [`Get-PnpDevice -Class Display: ${found.length} devices`] };
  } catch (e) {
    return { found: [], tried: [`Get-PnpDevice -Class Display: unreadable JSON (${(e as Error).message})`] };
  }
}

