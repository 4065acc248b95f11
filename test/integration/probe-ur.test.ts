// UR through koffi against the UR test double (tests build it; it is not Intel's Unified Runtime), and OpenCL via PoCL.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/real-deps.js';
import { formatVerbose } from '../../src/caps/format.js';
import { probeStack, urLoaderPath } from '../../src/probe/probe.js';
import { scanOpenCl } from '../../src/runtime/opencl.js';
import { probeUr } from '../../src/runtime/ur.js';
import { systemPrefix } from './probe-helpers.js';

const root = path.join(__dirname, '..', '..');
const doubleSource = path.join(root, 'test', 'fixtures', 'ur-double', 'ur_test_double.c');
const prefix = systemPrefix();
const urPath = urLoaderPath(prefix, 'linux');
execFileSync('cc', ['-shared', '-fPIC', '-O2', doubleSource, '-o', urPath]);
process.env.XPU_SETUP_UR_DOUBLE_DEVICES = '2';
afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));

describe('UR through the test double', () => {
  it('walks init, adapters, platforms and devices, and reads UR_DEVICE_INFO_IP_VERSION', () => {
    const r = probeUr(urPath);
    expect(r).toMatchObject({ init: 0, adapters: 1, adapterResult: 0, platforms: ['xpu-setup UR test double'] });
    expect(r.devices).toHaveLength(2);
    expect(r.devices[0]).toMatchObject({ name: 'xpu-setup UR test double device', vendorId: 0x8086, ipVersion: 0x05004004, ipVersionResult: 0 });
  });

  it('probe includes UR when the prefix has a UR loader, even with no L0 driver', async () => {
    const r = await probeStack(prefix, { deps: realDeps() });
    expect(r.ur?.devices).toHaveLength(2);
    expect(formatVerbose(r)).toContain('UR device      xpu-setup UR test double device ip 0x5004004');
  });
});

describe('OpenCL through the ICD loader', () => {
  it('lists the PoCL CPU device with its extensions, which the matcher never takes for an Intel GPU twin', () => {
    const scan = scanOpenCl('linux');
    expect(scan.error).toBeUndefined();
    const pocl = scan.devices.find((d) => d.platform === 'Portable Computing Language');
    expect(pocl).toMatchObject({ type: 'cpu' });
    expect(pocl!.extensions).toContain('cl_khr_byte_addressable_store');
  });

  it('reports a missing ICD loader as a note, not a crash', () => {
    expect(scanOpenCl('linux', '/nonexistent/libOpenCL.so.1').error).toMatch(/cannot load/);
  });
});
