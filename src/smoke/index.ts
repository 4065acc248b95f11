// The kernel smoke test: run vector_add.spv through Level Zero, check every value, and time each phase.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { isXpuError, XpuError } from '../base/errors.js';
import type { Reporter } from '../base/reporter.js';
import { nativeDir } from '../package-dir.js';
import { Arena, koffi } from '../bindings/ffi.js';
import { LAYOUT, STYPE, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, zeResultName } from '../bindings/ze-abi.js';
import { deviceIpVersion, driverHandles, listDevices, noDriverError, prefixLoader, zeApiFor, type ZeApi, type ZeDeviceEntry } from '../bindings/ze.js';
import { explainNoDriver } from '../machine/ze-drivers.js';
import { EnvVars } from '../base/env-names.js';
import { applyDeviceSelector, pickDevice } from '../bindings/select.js';
import { driversChosenIn } from '../roles/index.js';

export const SMOKE_KERNEL = 'vector_add';
/** Test-only: run another SPIR-V with the same kernel contract (e.g. the wrong-result fixture). */
export const SMOKE_SPV_ENV = EnvVars.XPU_SETUP_SMOKE_SPV;

export interface SmokeResult {
  ok: true;
  device: string;
  /** The device's id ("driver.device") and flat index, as probe lists them. */
  deviceId: string;
  deviceIndex: number;
  deviceType: string;
  /** The device's IP version when its driver reports one: what ocloc compiles for by default. */
  ipVersion: number | null;
  kernel: string;
  spv: string;
  submission: 'immediate command list' | 'command queue + list';
  elements: number;
  checked: number;
  timings: { initMs: number; moduleBuildMs: number; firstLaunchMs: number; steadyMedianMs: number; steadyRuns: number };
}

export interface SmokeOptions {
  deps: Deps;
  reporter: Reporter;
  elements?: number;
  runs?: number;
  /** Run through this loader instead of the prefix's (`--system`). */
  loaderPath?: string;
  /** `--device`: a report id ("0.1") or a flat index; otherwise the first device the selectors leave. */
  device?: string;
}

const TIMEOUT_NS = 60_000_000_000n;

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? 0 : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface VectorAddCheck {
  /** How many elements the loop compared: the whole output, or the check itself is wrong. */
  checked: number;
  wrong: number;
  first?: { index: number; got: number; expected: number };
}

/** Compares every element of c with a + b (in float32): pure, so the checker is tested without a device. */
export function checkVectorAdd(a: Float32Array, b: Float32Array, c: Float32Array): VectorAddCheck {
  let first: VectorAddCheck['first'];
  let wrong = 0;
  let checked = 0;
  for (let i = 0; i < c.length; i++) {
    const expected = Math.fround(a[i]! + b[i]!);
    checked++;
    // Object.is: a NaN written by a broken kernel is never "equal", and -0 vs 0 cannot come from this sum.
    if (!Object.is(c[i], expected)) {
      wrong++;
      first ??= { index: i, got: c[i]!, expected };
    }
  }
  return { checked, wrong, first };
}

function buildLog(api: ZeApi, a: Arena, log: bigint): string {
  if (!log) return '';
  const size = a.alloc(8);
  if (api.raw('zeModuleBuildLogGetString', log, size.ptr, null) !== 0 || size.u64(0) === 0) return '';
  const text = a.alloc(size.u64(0) + 1);
  api.raw('zeModuleBuildLogGetString', log, size.ptr, text.ptr);
  return text.str(0, size.u64(0)).trim();
}

/** The SPIR-V the smoke test runs (and ocloc compiles). */
export function smokeSpvPath(env: Record<string, string | undefined>): string {
  return env[SMOKE_SPV_ENV] || path.join(nativeDir(), 'kernels', 'vector_add.spv');
}

/** What every step of one smoke run shares: the loader, the arena its structs live in, and what to release at the end. */
interface Session {
  api: ZeApi;
  a: Arena;
  /** Run in reverse order when the run ends, however it ends. */
  cleanup: (() => void)[];
}

/** The device a context, module and queue are made on. */
interface OnDevice extends Session {
  driver: bigint;
  device: bigint;
  ctx: bigint;
}

async function readSpv(deps: Deps): Promise<{ spvPath: string; spvText: Buffer }> {
  const spvPath = smokeSpvPath(deps.env);
  const spvText = await fs.readFile(spvPath).catch(() => undefined);
  if (!spvText) throw new XpuError('SMOKE', `the smoke kernel ${spvPath} is missing`, { hints: ['reinstall xpu-setup; native/kernels/vector_add.spv ships with it'] });
  return { spvPath, spvText };
}

/**
 * Initialises the loader and picks the device through the probe's enumeration (bindings/ze.ts: every driver and its
 * devices in the loader's order), so `--device` and ONEAPI_DEVICE_SELECTOR mean the same devices as in the probe.
 */
async function chooseDevice(s: Session, loader: string, opts: SmokeOptions): Promise<{ chosen: ZeDeviceEntry; initMs: number }> {
  const { deps } = opts;
  const t0 = process.hrtime.bigint();
  const init = s.api.init();
  const initMs = ms(t0);
  if (init !== 0) {
    const chosen = driversChosenIn(deps.env);
    throw noDriverError(loader, init, chosen, deps.platform, await explainNoDriver(deps, chosen.entries));
  }
  const drivers = driverHandles(s.api, s.a);
  const all = listDevices(s.api, s.a, drivers);
  const visible = applyDeviceSelector(all, deps.env[EnvVars.ONEAPI_DEVICE_SELECTOR]);
  const chosen = opts.device !== undefined ? pickDevice(visible, opts.device) : visible[0];
  if (!chosen?.handle) {
    const hidden = all.length - visible.length;
    throw new XpuError('NO_DEVICE', `Level Zero found ${drivers.length} driver(s) but no devices to run the kernel on${hidden ? ` (ONEAPI_DEVICE_SELECTOR hides ${hidden})` : ''}`, {
      hints: ['check ZE_AFFINITY_MASK and ONEAPI_DEVICE_SELECTOR'],
    });
  }
  return { chosen, initMs };
}

function createContext(s: Session, chosen: ZeDeviceEntry): OnDevice {
  const { api, a } = s;
  const ctxOut = a.alloc(8);
  api.call('zeContextCreate', chosen.driver, a.alloc(24).setU32(0, STYPE.CONTEXT_DESC).ptr, ctxOut.ptr);
  const ctx = ctxOut.ptrAt(0);
  s.cleanup.push(() => api.raw('zeContextDestroy', ctx));
  return { ...s, driver: chosen.driver, device: chosen.handle, ctx };
}

/** Builds the module and its kernel; the build log is the evidence when the driver rejects the SPIR-V. */
function buildKernel(d: OnDevice, spvPath: string, spvText: Buffer): { kernel: bigint; moduleBuildMs: number } {
  const { api, a } = d;
  const spv = a.from(spvText);
  const M = LAYOUT.moduleDesc;
  const md = a.alloc(M.size).setU32(0, STYPE.MODULE_DESC).setU32(M.format, 0).setU64(M.inputSize, spvText.length).setU64(M.pInputModule, spv.ptr);
  const modOut = a.alloc(8);
  const logOut = a.alloc(8);
  const t0 = process.hrtime.bigint();
  const mr = api.raw('zeModuleCreate', d.ctx, d.device, md.ptr, modOut.ptr, logOut.ptr);
  const moduleBuildMs = ms(t0);
  const log = buildLog(api, a, logOut.ptrAt(0));
  if (logOut.ptrAt(0)) api.raw('zeModuleBuildLogDestroy', logOut.ptrAt(0));
  if (mr !== 0) {
    throw new XpuError('SMOKE', [`the driver could not build ${path.basename(spvPath)}: zeModuleCreate returned ${zeResultName(mr)}`, 'build log:', ...(log || '(empty)').split('\n').map((l) => `  ${l}`)].join('\n'), {
      details: { result: mr, buildLog: log, spv: spvPath },
      hints: mr === ZE_RESULT_ERROR_MODULE_BUILD_FAILURE ? ['the driver\'s SPIR-V compiler rejected the module; update the GPU driver'] : [],
    });
  }
  const mod = modOut.ptrAt(0);
  d.cleanup.push(() => api.raw('zeModuleDestroy', mod));
  const kname = a.from(Buffer.from(SMOKE_KERNEL), true);
  const kd = a.alloc(LAYOUT.kernelDesc.size).setU32(0, STYPE.KERNEL_DESC).setU64(LAYOUT.kernelDesc.pKernelName, kname.ptr);
  const kOut = a.alloc(8);
  api.call('zeKernelCreate', mod, kd.ptr, kOut.ptr);
  const kernel = kOut.ptrAt(0);
  d.cleanup.push(() => api.raw('zeKernelDestroy', kernel));
  return { kernel, moduleBuildMs };
}

/** The three device buffers and their host twins (a and b filled, c set to -1), each of n float32 values. */
interface Buffers {
  bytes: number;
  dev: [bigint, bigint, bigint];
  host: [bigint, bigint, bigint];
  views: [Float32Array, Float32Array, Float32Array];
}

function allocBuffers(d: OnDevice, n: number): Buffers {
  const { api, a, ctx } = d;
  const bytes = n * 4;
  const devMem = (): bigint => {
    const desc = a.alloc(LAYOUT.memAllocDesc.size).setU32(0, STYPE.DEVICE_MEM_ALLOC_DESC);
    const out = a.alloc(8);
    api.call('zeMemAllocDevice', ctx, desc.ptr, bytes, 64, d.device, out.ptr);
    const p = out.ptrAt(0);
    d.cleanup.push(() => api.raw('zeMemFree', ctx, p));
    return p;
  };
  // Host staging memory from the driver; plain process memory when the driver has no host allocations.
  const hostMem = (): bigint => {
    const desc = a.alloc(24).setU32(0, STYPE.HOST_MEM_ALLOC_DESC);
    const out = a.alloc(8);
    if (api.raw('zeMemAllocHost', ctx, desc.ptr, bytes, 64, out.ptr) !== 0) return a.alloc(bytes).ptr;
    const p = out.ptrAt(0);
    d.cleanup.push(() => api.raw('zeMemFree', ctx, p));
    return p;
  };
  const dev: Buffers['dev'] = [devMem(), devMem(), devMem()];
  const host: Buffers['host'] = [hostMem(), hostMem(), hostMem()];
  const views = host.map((p) => new Float32Array(koffi().view(p, bytes))) as Buffers['views'];
  const [va, vb, vc] = views;
  for (let i = 0; i < n; i++) {
    va[i] = i * 0.5;
    vb[i] = 1000 - i;
    vc[i] = -1;
  }
  return { bytes, dev, host, views };
}

/** Records commands into a list, submits it and waits for the device. */
type Submit = (record: (list: bigint) => void) => void;

/** An immediate command list with an event, or a queue + list when the driver has no immediate lists. */
function submitter(d: OnDevice): { submit: Submit; submission: SmokeResult['submission'] } {
  const { api, a, ctx, device } = d;
  const qd = a.alloc(LAYOUT.commandQueueDesc.size).setU32(0, STYPE.COMMAND_QUEUE_DESC).setU32(LAYOUT.commandQueueDesc.mode, 2);
  const listOut = a.alloc(8);
  if (api.raw('zeCommandListCreateImmediate', ctx, device, qd.ptr, listOut.ptr) === 0) {
    const list = listOut.ptrAt(0);
    d.cleanup.push(() => api.raw('zeCommandListDestroy', list));
    const pd = a.alloc(LAYOUT.eventPoolDesc.size).setU32(0, STYPE.EVENT_POOL_DESC).setU32(LAYOUT.eventPoolDesc.flags, 1).setU32(LAYOUT.eventPoolDesc.count, 1);
    const poolOut = a.alloc(8);
    api.call('zeEventPoolCreate', ctx, pd.ptr, 1, a.alloc(8).setU64(0, device).ptr, poolOut.ptr);
    const pool = poolOut.ptrAt(0);
    d.cleanup.push(() => api.raw('zeEventPoolDestroy', pool));
    const ed = a.alloc(LAYOUT.eventDesc.size).setU32(0, STYPE.EVENT_DESC).setU32(LAYOUT.eventDesc.signal, 4).setU32(LAYOUT.eventDesc.wait, 4);
    const evOut = a.alloc(8);
    api.call('zeEventCreate', pool, ed.ptr, evOut.ptr);
    const ev = evOut.ptrAt(0);
    d.cleanup.push(() => api.raw('zeEventDestroy', ev));
    const submit: Submit = (record) => {
      record(list);
      api.call('zeCommandListAppendBarrier', list, ev, 0, null);
      const r = api.raw('zeEventHostSynchronize', ev, TIMEOUT_NS);
      if (r !== 0) throw new XpuError('SMOKE', `waiting for the device failed: zeEventHostSynchronize returned ${zeResultName(r)}`);
      api.call('zeEventHostReset', ev);
    };
    return { submit, submission: 'immediate command list' };
  }
  const qOut = a.alloc(8);
  api.call('zeCommandQueueCreate', ctx, device, qd.ptr, qOut.ptr);
  const queue = qOut.ptrAt(0);
  d.cleanup.push(() => api.raw('zeCommandQueueDestroy', queue));
  api.call('zeCommandListCreate', ctx, device, a.alloc(LAYOUT.commandListDesc.size).setU32(0, STYPE.COMMAND_LIST_DESC).ptr, listOut.ptr);
  const list = listOut.ptrAt(0);
  d.cleanup.push(() => api.raw('zeCommandListDestroy', list));
  const lists = a.alloc(8).setU64(0, list);
  const submit: Submit = (record) => {
    api.call('zeCommandListReset', list);
    record(list);
    api.call('zeCommandListClose', list);
    api.call('zeCommandQueueExecuteCommandLists', queue, 1, lists.ptr, null);
    const r = api.raw('zeCommandQueueSynchronize', queue, TIMEOUT_NS);
    if (r !== 0) throw new XpuError('SMOKE', `waiting for the device failed: zeCommandQueueSynchronize returned ${zeResultName(r)}`);
  };
  return { submit, submission: 'command queue + list' };
}

/** Copies the inputs in, launches the kernel once and `runs` times more (each timed), and copies the output back. */
function launchTimed(d: OnDevice, kernel: bigint, n: number, runs: number, buf: Buffers, submit: Submit): { firstLaunchMs: number; steady: number[] } {
  const { api, a } = d;
  const gx = a.alloc(4), gy = a.alloc(4), gz = a.alloc(4);
  let group = 64;
  if (api.raw('zeKernelSuggestGroupSize', kernel, n, 1, 1, gx.ptr, gy.ptr, gz.ptr) === 0 && gx.u32(0) > 0 && n % gx.u32(0) === 0) group = gx.u32(0);
  api.call('zeKernelSetGroupSize', kernel, group, 1, 1);
  buf.dev.forEach((p, i) => api.call('zeKernelSetArgumentValue', kernel, i, 8, a.alloc(8).setU64(0, p).ptr));
  const groups = a.alloc(LAYOUT.groupCount.size).setU32(0, n / group).setU32(4, 1).setU32(8, 1);
  const launch = (list: bigint) => api.call('zeCommandListAppendLaunchKernel', list, kernel, groups.ptr, null, 0, null);
  // The output starts as -1 too, so an element the kernel never writes cannot pass by holding an old result.
  submit((list) => buf.dev.forEach((p, i) => api.call('zeCommandListAppendMemoryCopy', list, p, buf.host[i], buf.bytes, null, 0, null)));
  let t0 = process.hrtime.bigint();
  submit(launch);
  const firstLaunchMs = ms(t0);
  const steady: number[] = [];
  for (let i = 0; i < runs; i++) {
    t0 = process.hrtime.bigint();
    submit(launch);
    steady.push(ms(t0));
  }
  submit((list) => api.call('zeCommandListAppendMemoryCopy', list, buf.host[2], buf.dev[2], buf.bytes, null, 0, null));
  return { firstLaunchMs, steady };
}

/** Every output value checked against a + b; a mismatch is the error that names the first one. */
function requireCorrect(buf: Buffers, n: number, name: string, spvPath: string): VectorAddCheck {
  const check = checkVectorAdd(...buf.views);
  if (check.checked !== n) {
    throw new XpuError('SMOKE', `the smoke checker compared ${check.checked} of ${n} values`, { details: { ...check, elements: n } });
  }
  const bad = check.first;
  if (bad && /^null device$/i.test(name.trim())) {
    // The loader's upstream null driver (ZE_ENABLE_NULL_DRIVER) answers every call with success and runs nothing.
    throw new XpuError('SMOKE', `${SMOKE_KERNEL} could not compute on ${name}: the Level Zero null driver accepts every call but runs no kernel`, {
      details: { ...bad, wrong: check.wrong, checked: check.checked, elements: n, spv: spvPath, nullDriver: true },
      hints: [`unset ${EnvVars.ZE_ENABLE_NULL_DRIVER} to test a real driver`],
    });
  }
  if (bad) {
    throw new XpuError('SMOKE', `${SMOKE_KERNEL} computed wrong results on ${name}: first mismatch at index ${bad.index}: got ${bad.got}, expected ${bad.expected} (${check.wrong} of ${n} wrong)`, {
      details: { ...bad, wrong: check.wrong, checked: check.checked, elements: n, spv: spvPath },
      hints: ['the driver ran the kernel but produced wrong values: report it to the driver vendor with this output'],
    });
  }
  return check;
}

export async function runSmoke(prefix: string, opts: SmokeOptions): Promise<SmokeResult> {
  const { deps } = opts;
  const n = opts.elements ?? 1024;
  const runs = opts.runs ?? 20;
  const { spvPath, spvText } = await readSpv(deps);
  const loader = opts.loaderPath ?? (await prefixLoader(prefix, deps));

  const task = opts.reporter.task('kernel smoke test');
  const s: Session = { api: zeApiFor(loader, deps.env), a: new Arena(), cleanup: [] };
  try {
    const { chosen, initMs } = await chooseDevice(s, loader, opts);
    const d = createContext(s, chosen);
    const { kernel, moduleBuildMs } = buildKernel(d, spvPath, spvText);
    const buf = allocBuffers(d, n);
    const { submit, submission } = submitter(d);
    const { firstLaunchMs, steady } = launchTimed(d, kernel, n, runs, buf, submit);
    const check = requireCorrect(buf, n, chosen.name, spvPath);
    const result: SmokeResult = {
      ok: true,
      device: chosen.name,
      deviceId: chosen.id,
      deviceIndex: chosen.index,
      deviceType: chosen.type,
      ipVersion: deviceIpVersion(s.api, s.a, d.driver, d.device) ?? null,
      kernel: SMOKE_KERNEL,
      spv: spvPath,
      submission,
      elements: n,
      checked: check.checked,
      timings: { initMs, moduleBuildMs, firstLaunchMs, steadyMedianMs: median(steady), steadyRuns: runs },
    };
    task.succeed(`kernel smoke test passed on ${chosen.name} (${check.checked} values checked)`);
    return result;
  } catch (e) {
    // No device is not a wrong answer: with --ocloc-device the compile alone is then the test, and says so.
    task.fail(isXpuError(e, 'NO_DEVICE') ? 'kernel smoke test: no device to run it on' : 'kernel smoke test failed');
    throw e;
  } finally {
    while (s.cleanup.length) s.cleanup.pop()!();
    s.a.free();
  }
}
