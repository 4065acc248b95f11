// GPU detection: the shipped PCI id table, sysfs trees on Linux, CIM/PnP JSON on Windows.
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeIntelGpu, GPU_IDS_URL, gpuIds, parseGpuIds } from '../../src/machine/gpu-ids.js';
import { classifyWindows, detectGpus } from '../../src/machine/gpu.js';
import { isDisplayClass, loadedGpuModules, parseSysfsHex, readPciDisplayControllers } from '../../src/machine/pci.js';
import { driverStoreDirOf, parsePnpDisplayDevices, parsePnpId, parseVideoControllers } from '../../src/machine/windows.js';
import { fakeDeps, notInstalled, ok } from '../fixtures/detect/fake-deps.js';
import { ARC_A770_I915, ARC_B580_XE, buildTree, NO_GPU, NVIDIA_ONLY } from '../fixtures/detect/sysfs-trees.js';

const fx = (p: string): string => readFileSync(path.join(__dirname, '../fixtures/detect', p), 'utf8');
const roots: string[] = [];
const tree = (t: Parameters<typeof buildTree>[0]): string => {
  const r = buildTree(t);
  roots.push(r);
  return r;
};
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('intel-gpu-ids.csv', () => {
  it('is found relative to the package root and parses every row', () => {
    expect(GPU_IDS_URL.pathname.endsWith('/data/intel-gpu-ids.csv')).toBe(true);
    const ids = gpuIds();
    // Ids compute-runtime binds (device_ids_configs_dg2.h, _bmg.h, _pvc.h, _nvls.h), written out here.
    const computeRuntime: [number, string][] = [
      [0x4f80, 'acm_g10'], [0x4f81, 'acm_g10'], [0x4f82, 'acm_g10'], [0x4f83, 'acm_g10'], [0x4f84, 'acm_g10'], [0x56af, 'acm_g10'],
      [0x4f85, 'acm_g12'], [0x4f86, 'acm_g12'], [0x4f87, 'acm_g11'], [0x4f88, 'acm_g11'], [0x56a5, 'acm_g11'],
      [0xe215, 'bmg_g21'], [0xe20b, 'bmg_g21'], [0xe220, 'bmg_g31'], [0x0bd0, 'pvc'], [0x0bd5, 'pvc'], [0x0bd4, 'pvc_vg'],
      [0xd744, 'nvl_s'], [0xd741, 'nvl_u'], [0xd74a, 'nvl_p'], [0x7d55, 'mtl_h'], [0x7d67, 'mtl_u'], [0x7d51, 'arl_h'],
      [0x64a0, 'lnl_m'], [0xb080, 'ptl_h'], [0xb090, 'ptl_u'], [0xfd80, 'wcl'], [0x9a49, 'tgllp'], [0x4905, 'dg1'],
    ];
    for (const [id, arch] of computeRuntime) expect(ids.get(id)?.arch, `0x${id.toString(16)}`).toBe(arch);
    expect(ids.get(0x56af)?.name).toBe('Intel(R) Arc(TM) A760A Graphics');
    expect(ids.get(0x0bd5)?.family).toBe('pvc');
    expect(ids.get(0xe20b)?.family).toBe('bmg');
    expect(ids.get(0x56a0)).toMatchObject({ platform: 'DG2_G10', family: 'dg2', kernelDriver: 'i915', name: 'Intel(R) Arc(tm) A770 Graphics' });
    expect(ids.get(0xe20b)).toMatchObject({ family: 'bmg', kernelDriver: 'xe', name: 'Intel(R) Arc(tm) B580 Graphics' });
  });

  it('names GPUs by marketing name, else by family and platform, else by id', () => {
    expect(describeIntelGpu(0x56a0)).toBe('Intel(R) Arc(tm) A770 Graphics (dg2, 8086:56a0)');
    expect(describeIntelGpu(0xe220)).toBe('Intel BMG GPU BMG (8086:e220)');
    expect(describeIntelGpu(0xffff)).toBe('unknown Intel GPU (8086:ffff)');
  });

  it('parses by column name and skips rows without a hex id', () => {
    const ids = parseGpuIds('name,device_id,family,platform_macro,kernel_driver_default,source\nX,0x1234,fam,PLAT,force,src\n,zz,,,,\n');
    expect([...ids.values()]).toEqual([{ deviceId: 0x1234, platform: 'PLAT', family: 'fam', kernelDriver: 'unknown', name: 'X' }]);
  });
});

describe('Linux sysfs', () => {
  it('reads hex attributes and recognises display classes', () => {
    expect(parseSysfsHex('0x8086\n')).toBe(0x8086);
    expect(parseSysfsHex('garbage')).toBeUndefined();
    expect(isDisplayClass(0x030000)).toBe(true);
    expect(isDisplayClass(0x038000)).toBe(true);
    expect(isDisplayClass(0x060000)).toBe(false);
  });

  it('finds an Arc A770 bound to i915 and ignores its audio function and the host bridge', async () => {
    const root = tree(ARC_A770_I915);
    const { found, tried } = await detectGpus(fakeDeps(), { root });
    expect(found.intel).toEqual([
      expect.objectContaining({ pciId: '8086:56a0', address: '0000:03:00.0', driver: 'i915', expectedDriver: 'i915', known: true, family: 'dg2' }),
    ]);
    expect(found.intel[0]!.name).toContain('A770');
    expect(found.others).toEqual([]);
    expect(tried[0]).toMatch(/3 devices, 1 display controllers/);
    expect(await loadedGpuModules(fakeDeps(), { root })).toEqual(['i915']);
  });

  it('finds a Battlemage B580 bound to xe with its subsystem ids', async () => {
    const root = tree(ARC_B580_XE);
    const pci = await readPciDisplayControllers(fakeDeps(), { root });
    expect(pci.found[0]).toEqual({ address: '0000:29:00.0', vendorId: 0x8086, deviceId: 0xe20b, classCode: 0x030000, subsystemVendorId: 0x1025, subsystemDeviceId: 0x1877, driver: 'xe' });
    const { found } = await detectGpus(fakeDeps(), { root });
    expect(found.intel[0]).toMatchObject({ pciId: '8086:e20b', driver: 'xe', expectedDriver: 'xe', family: 'bmg' });
    expect(await loadedGpuModules(fakeDeps(), { root })).toEqual(['xe']);
  });

  it("reads each device's class, and the other attributes of display controllers only", async () => {
    const root = tree(ARC_A770_I915);
    const read: string[] = [];
    const base = fakeDeps();
    const deps = { ...base, readFile: (p: string, kind?: Parameters<typeof base.readFile>[1]) => (read.push(path.relative(root, p)), base.readFile(p, kind)) };
    const pci = await readPciDisplayControllers(deps, { root });
    expect(pci.found.map((d) => d.address)).toEqual(['0000:03:00.0']);
    expect(pci.tried[0]).toMatch(/3 devices, 1 display controllers/);
    const perDevice = (dev: string) => read.filter((p) => p.includes(`/${dev}/`)).map((p) => path.basename(p)).sort();
    expect(perDevice('0000:03:00.0')).toEqual(['class', 'device', 'subsystem_device', 'subsystem_vendor', 'vendor']);
    for (const other of ['0000:04:00.0', '0000:00:00.0']) expect(perDevice(other)).toEqual(['class']);
  });

  it('reports an NVIDIA-only machine as no Intel GPU, naming what is there', async () => {
    const { found } = await detectGpus(fakeDeps(), { root: tree(NVIDIA_ONLY) });
    expect(found.intel).toEqual([]);
    expect(found.others).toEqual([{ vendor: 'NVIDIA', pciId: '10de:2684', address: '0000:01:00.0', driver: 'nvidia' }]);
  });

  it('reports no display device at all on a machine without a GPU', async () => {
    const { found } = await detectGpus(fakeDeps(), { root: tree(NO_GPU) });
    expect(found).toEqual({ intel: [], others: [] });
  });

  it('says so when sysfs is missing', async () => {
    const { found, tried } = await detectGpus(fakeDeps(), { root: '/nonexistent-root' });
    expect(found.intel).toEqual([]);
    expect(tried[0]).toMatch(/not readable/);
  });
});

describe('Windows CIM and PnP JSON', () => {
  it('parses a single adapter object (ConvertTo-Json prints one object without brackets)', () => {
    const [c] = parseVideoControllers(fx('windows/cim-arc-meteorlake.json'));
    expect(c).toEqual({
      name: 'Intel(R) Arc(TM) Graphics',
      pnpDeviceId: 'PCI\\VEN_8086&DEV_7D55&SUBSYS_053B1854&REV_08\\3&11583659&0&10',
      vendorId: 0x8086,
      deviceId: 0x7d55,
      driverVersion: '32.0.101.5768',
      driverStoreDir: 'C:\\Windows\\System32\\DriverStore\\FileRepository\\iigd_dch.inf_amd64_195935a835b82d59',
      errorCode: 0,
      status: 'OK',
    });
  });

  it('splits Intel from NVIDIA in an array and names the Intel GPU from the id table', () => {
    const scan = classifyWindows(parseVideoControllers(fx('windows/cim-uhd-and-nvidia.json')));
    expect(scan.intel).toHaveLength(1);
    expect(scan.intel[0]).toMatchObject({ pciId: '8086:9bc4', known: true, windows: { adapterName: 'Intel(R) UHD Graphics', driverVersion: '27.20.100.9664', problem: 0 } });
    expect(scan.others).toEqual([{ vendor: 'NVIDIA', pciId: '10de:1e84', name: 'NVIDIA GeForce RTX 2070 SUPER' }]);
  });

  it('treats adapters without a PCI id as software adapters', () => {
    const scan = classifyWindows(parseVideoControllers(fx('windows/cim-remote-display-only.json')));
    expect(scan).toEqual({ intel: [], others: [{ vendor: 'software', pciId: '-', name: 'Microsoft Remote Display Adapter' }] });
  });

  it('reads PnP problem codes', () => {
    const [d] = parsePnpDisplayDevices(fx('windows/pnp-arc-code43.json'));
    expect(d).toMatchObject({ vendorId: 0x8086, deviceId: 0x56a0, status: 'Error', problem: 43, present: true });
  });

  it('pulls ids and the DriverStore folder out of Windows strings', () => {
    expect(parsePnpId('PCI\\VEN_8086&DEV_E20B&SUBSYS_12345678')).toEqual({ vendorId: 0x8086, deviceId: 0xe20b });
    expect(parsePnpId('ROOT\\DISPLAY\\0000')).toBeUndefined();
    expect(driverStoreDirOf('igdumdim64.dll,igd10iumd64.dll')).toBeUndefined();
    expect(parseVideoControllers('')).toEqual([]);
  });

  it('detectGpus on win32 asks PowerShell for CIM and falls back to PnP when CIM fails', async () => {
    const deps = fakeDeps({
      platform: 'win32',
      exec: (file, args) => {
        const script = args.at(-1) ?? '';
        if (file !== 'powershell.exe') return notInstalled(file);
        if (script.includes('Win32_VideoController')) return { exitCode: 1, stdout: '', stderr: 'Get-CimInstance : Access denied' };
        if (script.includes('Get-PnpDevice')) return ok(fx('windows/pnp-arc-code43.json'));
        return undefined;
      },
    });
    const { found, tried } = await detectGpus(deps);
    expect(found.intel[0]).toMatchObject({ pciId: '8086:56a0', windows: { problem: 43, status: 'Error' } });
    expect(tried).toEqual([
      'Get-CimInstance Win32_VideoController: powershell.exe exited 1: Get-CimInstance : Access denied',
      'Get-PnpDevice -Class Display: 1 devices',
    ]);
  });
});
