// What a real client (SYCL over Unified Runtime, PyTorch, Intel's conformance tests) asks of the CPU reference driver,
// through the real loader Debian 12 has (1.8.12), built against its headers and against Debian trixie's 1.20.6, whose
// newer entry points (zeCommandListHostSynchronize) the client then takes from the driver's own table, as that loader
// neither exports nor routes them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverBuildArgs, driverEnv, KERNELS_DIR, runKeyValues } from '../support/refdriver.js';
import { ensureDebs } from '../support/debs.js';
import { refDriverIncludeDir } from '../../src/build/refdriver.js';

const clientSource = path.join(import.meta.dirname, '..', 'native', 'refdriver_client.c');
const suppressions = path.join(import.meta.dirname, '..', 'native', 'valgrind.supp');
const vectorAdd = path.join(KERNELS_DIR, 'vector_add.spv');
const structArg = path.join(KERNELS_DIR, 'struct_arg.spv');
const specConst = path.join(KERNELS_DIR, 'spec_const.spv');
const atomics20 = path.join(KERNELS_DIR, 'atomics20.spv');
const MODULE_BUILD_FAILURE = '0x70000004';
const UNSUPPORTED_FEATURE = '0x78000003';
const UNSUPPORTED_ALIGNMENT = '0x7800000a';
const INVALID_ARGUMENT = '0x78000004';
const INVALID_NATIVE_BINARY = '0x7800000f';
const INVALID_GROUP_SIZE_DIMENSION = '0x78000013';
const VALGRIND_ERROR = 99;
const haveValgrind = fs.existsSync('/usr/bin/valgrind');

let dir = '';
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Stack {
  driver: string;
  client: string;
  libDir?: string;
}

async function buildStack(name: string, includeDir: string, libDir?: string): Promise<Stack> {
  const driver = path.join(dir, name, 'libze_xpu_setup_refdriver.so');
  const client = path.join(dir, name, 'refdriver_client');
  fs.mkdirSync(path.dirname(driver), { recursive: true });
  await execa('cc', driverBuildArgs(includeDir, driver));
  const link = libDir ? [`-L${libDir}`] : [];
  await execa('cc', ['-O2', `-I${includeDir}`, clientSource, '-o', client, ...link, '-lze_loader', '-lOpenCL', '-lpthread']);
  return { driver, client, libDir };
}

const stackEnv = (s: Stack) => driverEnv(dir, { ZE_ENABLE_ALT_DRIVERS: s.driver, ...(s.libDir ? { LD_LIBRARY_PATH: s.libDir } : {}) });
const run = (s: Stack, args: string[]) => runKeyValues(s.client, args, stackEnv(s));

/** The same run under valgrind's memcheck: its exit code says whether any invalid read, write or free happened. */
const underValgrind = (s: Stack, args: string[]) =>
  runKeyValues('valgrind', ['-q', `--error-exitcode=${VALGRIND_ERROR}`, `--suppressions=${suppressions}`, s.client, ...args],
    stackEnv(s), 600_000);

describe.skipIf(process.platform !== 'linux')('a client through Debian\'s loader 1.8.12', () => {
  let s: Stack;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-refdriver-client-'));
    s = await buildStack('debian', '/usr/include');
  });

  it('allocates host, device and shared memory at every alignment up to 8 MiB, and a kernel runs on 64 KiB-aligned buffers', async () => {
    const r = await run(s, ['align', vectorAdd]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    for (const kind of ['host', 'device', 'shared']) {
      for (const a of [0, 1, 16, 64, 128, 256, 512, 4096, 65536, 8388608]) expect(r.values.get(`align.${kind}.${a}`), `${kind} ${a}`).toBe('ok (0x0)');
    }
    expect(r.values.get('align.kernel')).toBe('ok');
  });

  it('refuses an alignment that is not a power of two or is above 8 MiB with UNSUPPORTED_ALIGNMENT, leaving the pointer null', async () => {
    const r = await run(s, ['align', vectorAdd]);
    expect(r.values.get('align.host.3')).toBe(UNSUPPORTED_ALIGNMENT);
    expect(r.values.get('align.device.384')).toBe(UNSUPPORTED_ALIGNMENT);
    expect(r.values.get('align.shared.16777216')).toBe(UNSUPPORTED_ALIGNMENT);
    expect(r.values.get('align.nullAfterRefusal')).toBe('1');
  });

  it('reports float atomics as the PoCL device itself answers cl_ext_float_atomics (none when it refuses the query)', async () => {
    const r = await run(s, ['props', vectorAdd]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    for (const fp of ['fp16', 'fp32', 'fp64']) {
      const cl = r.values.get(`opencl.${fp}Atomics`) ?? '';
      expect(cl).not.toBe('');
      const expected = cl.startsWith('refused:') ? 0 : Number(cl) & 0x70007;
      expect(Number(r.values.get(`props.${fp}Atomics`)), fp).toBe(expected);
    }
    expect(r.values.get('props.extensions')?.split(',')).toEqual(expect.arrayContaining(['ZE_extension_float_atomics', 'ZE_extension_kernel_max_group_size_properties']));
  });

  it('answers the kernel max-group-size extension with the largest group the kernel takes, and memory bus width 0 (unknown)', async () => {
    const r = await run(s, ['props', vectorAdd]);
    const max = Number(r.values.get('props.kernelMaxGroupSize'));
    expect(max).toBeGreaterThan(0);
    expect(max).toBeLessThanOrEqual(Number(r.values.get('props.maxTotalGroupSize')));
    expect(r.values.get('props.kernelMaxGroupSizeAccepted')).toBe('0x0');
    expect(r.values.get('props.kernelAboveMaxGroupSize')).toBe(INVALID_GROUP_SIZE_DIMENSION);
    expect(r.values.get('props.memoryBusWidth')).toBe('0');
    expect(Number(r.values.get('props.memoryTotalSize'))).toBeGreaterThan(0);
  });

  it('answers UNSUPPORTED_FEATURE for each thing it does not implement, and runs a by-value struct holding a pointer', async () => {
    const r = await run(s, ['refuse', vectorAdd, structArg]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const refusals = [...r.values].filter(([k]) => k.startsWith('refuse.'));
    expect(refusals.map(([k]) => k.slice('refuse.'.length))).toEqual([
      'moduleLink', 'globalPointer', 'functionPointer',
      'queryKernelTimestamps', 'cooperativeLaunch', 'ipcMemHandle', 'ipcEventPool',
      'virtualReserve', 'virtualPageSize', 'physicalMem', 'image', 'sampler',
    ]);
    for (const [k, v] of refusals) expect(v, k).toBe(UNSUPPORTED_FEATURE);
    expect(r.values.get('struct.wrong')).toBe('0');
  });

  it('writes specialization constants into the module: defaults without them, the values given with them, an unknown SpecId refused', async () => {
    const r = await run(s, ['specialize', specConst]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.values.get('spec.defaults.wrong')).toBe('0');
    expect(r.values.get('spec.set.wrong')).toBe('0');
    expect(r.values.get('spec.partial.wrong')).toBe('0');
    expect(r.values.get('spec.unknownId')).toBe(INVALID_ARGUMENT);
  });

  it('a module made from zeModuleGetNativeBinary\'s bytes runs as the first did (its specialization constants kept); a damaged or cut one is refused', async () => {
    const r = await run(s, ['native', specConst]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(Number(r.values.get('native.size'))).toBeGreaterThan(0);
    expect(r.values.get('native.wrong')).toBe('0');
    expect(r.values.get('native.truncated')).toBe(INVALID_NATIVE_BINARY);
    expect(r.values.get('native.damaged')).toBe(INVALID_NATIVE_BINARY);
  });

  it('zeMemFree waits for a queued launch and copy that use the memory', async () => {
    const r = await run(s, ['freewait', vectorAdd]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    // The free returned after the other thread set the gate the launch waits on, and with the copy's output complete.
    expect(r.values.get('freewait.gateSetAtFree')).toBe('1');
    expect(r.values.get('freewait.result')).toBe('ok');
  });

  it('a command of a regular list lets go of its memory before it signals: freeing a launch\'s output waits for nothing later in the list', async () => {
    const r = await run(s, ['holds', vectorAdd]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.values.get('holds.result')).toBe('ok');
    expect(r.values.get('holds.freeBeforeGate')).toBe('1');
    expect(r.values.get('holds.copyWrong')).toBe('0');
  });

  it.skipIf(!haveValgrind)('freeing memory that queued work still uses is clean under valgrind', { timeout: 600_000 }, async () => {
    const r = await underValgrind(s, ['freewait', vectorAdd]);
    expect(r.stderr).not.toMatch(/Invalid (read|write|free)/);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.values.get('freewait.result')).toBe('ok');
  });

  it('copies regions as the spec reads them (depth 0 is 2D; pitches and origins kept), each matching a reference copy', async () => {
    const r = await run(s, ['region', vectorAdd]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    // Bytes inside each destination region (width x height x depth, depth 0 counting as 1): all copied, none outside.
    const inside: Record<string, number> = { packed2d: 16 * 16, pitched2d: 20 * 7, pitched3d: 9 * 5 * 3, oneSlice: 11 * 4 };
    for (const [name, bytes] of Object.entries(inside)) {
      expect(r.values.get(`region.${name}.inside`), name).toBe(String(bytes));
      expect(r.values.get(`region.${name}.wrong`), name).toBe('0');
    }
  });

  it("copies from another context's memory and into it (zeCommandListAppendMemoryCopyFromContext), every byte right", async () => {
    const r = await run(s, ['region', vectorAdd]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.values.get('region.fromContext.wrong')).toBe('0');
  });

  it('builds a module of OpenCL 2.0 atomics on generic pointers (to global and local memory) and computes every value', async () => {
    const r = await run(s, ['atomics', atomics20]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.values.get('atomics.module')).not.toBe(MODULE_BUILD_FAILURE);
    expect(r.values.get('atomics.module')).toBe('0x0');
    expect(r.values.get('atomics.counter')).toBe(r.values.get('atomics.expected'));
    expect(r.values.get('atomics.expected')).toBe(String((1024 * 1023) / 2 + 1024));
    expect(r.values.get('atomics.wrong')).toBe('0');
  });

  it('the client built against 1.8.12 headers has no zeCommandListHostSynchronize to call', async () => {
    const r = await run(s, ['sequence', vectorAdd]);
    expect(r.exitCode).toBe(3);
  });
});

describe.skipIf(process.platform !== 'linux')("a client and driver built against 1.20.6 headers, through Debian's loader 1.8.12", () => {
  let s: Stack;
  beforeAll(async () => {
    dir ||= fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-refdriver-client-'));
    s = await buildStack('newer-headers', (await ensureDebs()).trixie.includeDir);
  }, 600_000);

  it('runs the SYCL-shaped sequence: immediate list, kernel, zeCommandListHostSynchronize, free', async () => {
    const r = await run(s, ['sequence', vectorAdd]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.values.get('sequence.result')).toBe('ok');
    // 1.8.12 has no such export: the driver's own command-list table answers.
    expect(r.values.get('sequence.route')).toBe('driver');
    expect(r.values.get('sequence.isImmediate')).toBe('1');
    expect(r.values.get('sequence.contextMatches')).toBe('1');
    expect(r.values.get('sequence.poll')).toBe('ok');
  });

  it.skipIf(!haveValgrind)('the SYCL-shaped sequence is clean under valgrind', { timeout: 600_000 }, async () => {
    const r = await underValgrind(s, ['sequence', vectorAdd]);
    expect(r.stderr).not.toMatch(/Invalid (read|write|free)/);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.values.get('sequence.result')).toBe('ok');
  });

  it('zeCommandListImmediateAppendCommandListsExp runs a closed list after its wait event and before its signal, and again when appended again', async () => {
    const r = await run(s, ['append', vectorAdd]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.values.get('append.doneBeforeGate')).toBe('0');
    expect(r.values.get('append.result')).toBe('ok');
    expect(r.values.get('append.again')).toBe('ok');
    expect(r.values.get('append.notImmediate')).toBe(INVALID_ARGUMENT);
  });

  it('allocations, refusals and frees behave the same built against these headers', async () => {
    const align = await run(s, ['align', vectorAdd]);
    expect(align.values.get('align.device.65536')).toBe('ok (0x0)');
    expect(align.values.get('align.kernel')).toBe('ok');
    const refuse = await run(s, ['refuse', vectorAdd, structArg]);
    expect(refuse.exitCode, refuse.stdout + refuse.stderr).toBe(0);
    for (const [k, v] of refuse.values) if (k.startsWith('refuse.')) expect(v, k).toBe(UNSUPPORTED_FEATURE);
    const free = await run(s, ['freewait', vectorAdd]);
    expect(free.values.get('freewait.gateSetAtFree')).toBe('1');
    expect(free.values.get('freewait.result')).toBe('ok');
  });

  it('the driver setup builds on a prefix holding only 1.8.12 headers carries the 1.9+ entry points and refuses the rest at once', async () => {
    // Setup's choice of headers for an offline prefix whose include/ is Debian 12's libze-dev 1.8.12 (API 1.4).
    const prefix = path.join(dir, 'offline-prefix');
    fs.mkdirSync(prefix, { recursive: true });
    fs.symlinkSync('/usr/include', path.join(prefix, 'include'));
    const driver = path.join(dir, 'offline-prefix-driver', 'libze_xpu_setup_refdriver.so');
    fs.mkdirSync(path.dirname(driver), { recursive: true });
    await execa('cc', driverBuildArgs(await refDriverIncludeDir(prefix), driver));
    const withDriver = { ...s, driver };
    const seq = await run(withDriver, ['sequence', vectorAdd]);
    expect(seq.exitCode, seq.stdout + seq.stderr).toBe(0);
    expect(seq.values.get('sequence.route')).toBe('driver');
    expect(seq.values.get('sequence.result')).toBe('ok');
    const append = await run(withDriver, ['append', vectorAdd]);
    expect(append.values.get('append.result'), append.stdout + append.stderr).toBe('ok');
    // Through loader 1.8.12 (API 1.4) the slots of its version that the driver lacks answer UNSUPPORTED_FEATURE.
    const refuse = await run(withDriver, ['refuse', vectorAdd, structArg]);
    expect(refuse.exitCode, refuse.stdout + refuse.stderr).toBe(0);
    for (const [k, v] of refuse.values) if (k.startsWith('refuse.')) expect(v, k).toBe(UNSUPPORTED_FEATURE);
    // Every slot of the version a client asks for is set (an implementation or the unsupported stub), for a client at
    // API 1.12 (these headers) and at 1.4 (Debian 12's), none beyond it: an interposing loader finds no empty slot.
    const old = await buildStack('offline-prefix-old-client', '/usr/include');
    for (const client of [s, old]) {
      const r = await run({ ...client, driver }, ['slots', vectorAdd]);
      const tables = [...r.values].filter(([k]) => k.startsWith('slots.') && k !== 'slots.imageCreate');
      expect(tables.length, r.stdout + r.stderr).toBe(8);
      for (const [k, v] of tables) expect(v, k).toMatch(/^0x0 0\/\d+ empty$/);
      expect(r.values.get('slots.imageCreate')).toBe(UNSUPPORTED_FEATURE);
    }
  });

  it('the driver built against these newer headers serves a client built against 1.8.12 headers (it fills only the slots of the version asked)', async () => {
    const old = await buildStack('current-driver-old-loader', '/usr/include');
    const r = await runKeyValues(old.client, ['freewait', vectorAdd], driverEnv(dir, { ZE_ENABLE_ALT_DRIVERS: s.driver }));
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.values.get('freewait.result')).toBe('ok');
  });
});
