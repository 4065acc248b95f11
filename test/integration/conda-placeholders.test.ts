// conda's build-prefix placeholders through the install stage: a .conda (and a .tar.bz2) built here with a paths.json
// shaped like conda-forge's intel-compute-runtime (the ICD file in text mode, a shared library in binary mode).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchedArchive } from '../../src/fetch/fetch.js';
import { parsePathsJson, replaceBinaryPlaceholder } from '../../src/formats/conda.js';
import type { Host } from '../../src/platform/types.js';
import { installPlan } from '../../src/install/install.js';
import { readReceipt } from '../../src/prefix/receipt.js';
import { verifyPrefix } from '../../src/prefix/verify.js';
import type { ComponentManifest } from '../../src/manifest/schema.js';
import { makePlan } from '../../src/plan/plan.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { buildCondaPackage } from '../support/packages.js';
import { openGateway } from '../../src/index/gateway.js';
import { planOptions } from '../support/plan-options.js';

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-placeholder-'));
afterAll(() => fs.rm(work, { recursive: true, force: true }));

// conda-build's host prefix as conda-forge's Linux builds record it: the build root padded to 255 bytes.
const PLACEHOLDER = ('/home/conda/feedstock_root/build_artifacts/intel-compute-runtime_1747916400000/_h_env_placehold' + '_placehold'.repeat(30)).slice(0, 255);
const ICD = `${PLACEHOLDER}/lib/intel-opencl/libigdrcl.so\n`;

/** A real shared library whose rodata holds the placeholder inside a C string (as a compiled-in install path does). */
function libWithPlaceholder(dir: string): Buffer {
  const src = path.join(dir, 'where.c');
  execFileSync('sh', ['-c', `printf '%s\\n' 'const char *xpu_where(void) { return "${PLACEHOLDER}/lib/intel-opencl"; }' > ${src}`]);
  const out = path.join(dir, 'libwhere.so.1');
  execFileSync('cc', ['-shared', '-fPIC', '-o', out, src]);
  return execFileSync('cat', [out], { maxBuffer: 1 << 24 });
}

async function planFor(format: 'conda' | 'tar.bz2', prefixName: string, placeholder = PLACEHOLDER) {
  const dir = await fs.mkdtemp(path.join(work, 'case-'));
  const lib = libWithPlaceholder(dir);
  const pkg = await buildCondaPackage(
    {
      name: 'intel-compute-runtime', version: '26.18.38308.1', build: 'h4bc722e_0', buildNumber: 0, subdir: 'linux-64',
      payload: [
        { path: 'etc/OpenCL/vendors/intel.icd', type: 'file', data: Buffer.from(ICD.replaceAll(PLACEHOLDER, placeholder)) },
        { path: 'lib/libwhere.so.1', type: 'file', data: lib, mode: 0o755 },
        { path: 'lib/unmapped-note.txt', type: 'file', data: Buffer.from(`${placeholder}\n`) },
      ],
      placeholders: {
        'etc/OpenCL/vendors/intel.icd': { placeholder, mode: 'text' },
        'lib/libwhere.so.1': { placeholder, mode: 'binary' },
      },
    },
    format,
  );
  const sha256 = createHash('sha256').update(pkg.bytes).digest('hex');
  const file = path.join(dir, pkg.filename);
  await fs.writeFile(file, pkg.bytes);
  const manifest: ComponentManifest = {
    schema: 1, name: 'gpu-driver', summary: '', features: [],
    platforms: {
      'linux-x64': {
        provides: [{ path: 'etc/OpenCL/vendors/intel.icd', required: true }],
        sources: [{ kind: 'url', package: 'intel-compute-runtime', version: '26.18.38308.1', url: `https://example.invalid/${pkg.filename}`, sha256, size: pkg.bytes.length, map: [{ from: 'etc/', to: 'etc/' }, { from: 'lib/libwhere.so.1', to: 'lib/libwhere.so.1' }] }],
      },
    },
  };
  const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: false };
  const plan = await makePlan(host, [manifest], planOptions({ prefix: path.join(dir, prefixName), cacheDir: path.join(dir, 'cache') }), fakeDeps(), silentReporter, openGateway(fakeDeps(), { cacheDir: path.join(dir, 'cache') }));
  const archive = plan.components[0]!.archives[0]!;
  const fetched: FetchedArchive[] = [{ archive, component: 'gpu-driver', file: { path: file, sha256, size: pkg.bytes.length, cached: true } }];
  return { plan, fetched, lib };
}

describe('conda prefix placeholders', () => {
  for (const format of ['conda', 'tar.bz2'] as const) {
    it(`${format}: the ICD names the prefix's libigdrcl.so, the library's string is the prefix padded with NULs, the receipt hashes what is on disk`, async () => {
      const { plan, fetched, lib } = await planFor(format, 'prefix');
      await installPlan(plan, fetched, silentReporter);
      const prefix = plan.prefix;
      expect(await fs.readFile(path.join(prefix, 'etc/OpenCL/vendors/intel.icd'), 'utf8')).toBe(`${prefix}/lib/intel-opencl/libigdrcl.so\n`);
      const installed = await fs.readFile(path.join(prefix, 'lib/libwhere.so.1'));
      expect(installed.length).toBe(lib.length);
      expect(installed.includes(Buffer.from(PLACEHOLDER))).toBe(false);
      const at = installed.indexOf(Buffer.from(`${prefix}/lib/intel-opencl\0`));
      expect(at).toBeGreaterThan(0);
      // The rest of the old string's room is NULs, up to where the old string ended.
      const oldLength = `${PLACEHOLDER}/lib/intel-opencl`.length;
      expect(installed.subarray(at + `${prefix}/lib/intel-opencl`.length, at + oldLength + 1).every((b) => b === 0)).toBe(true);
      expect((await fs.stat(path.join(prefix, 'lib/libwhere.so.1'))).mode & 0o777).toBe(0o755);
      // Still a library the dynamic linker loads.
      const load = spawnSync(process.execPath, ['-e', `try { process.dlopen({exports:{}}, ${JSON.stringify(path.join(prefix, 'lib/libwhere.so.1'))}) } catch (e) { console.log(e.message) }`], { encoding: 'utf8' });
      expect(load.stdout).toMatch(/did not self-register|Module did not/);
      expect(await verifyPrefix(prefix, (await readReceipt(prefix))!)).toEqual([]);
    });
  }

  it('a binary placeholder shorter than the prefix is refused before the swap, as conda refuses it', async () => {
    const short = '/opt/build';
    const { plan, fetched } = await planFor('conda', 'a-prefix-longer-than-the-ten-byte-placeholder', short);
    const err = await installPlan(plan, fetched, silentReporter).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INSTALL', message: expect.stringContaining(`is longer than the package's build placeholder (${short.length} bytes)`) });
    await expect(fs.access(path.join(plan.prefix, 'etc'))).rejects.toThrow();
  });
});

describe('paths.json and binary replacement (pure)', () => {
  it('takes only entries with a placeholder; file_mode defaults to text; an unknown mode is refused', () => {
    const doc = { paths: [{ _path: 'a', path_type: 'hardlink' }, { _path: 'b', prefix_placeholder: '/p' }, { _path: 'c', prefix_placeholder: '/p', file_mode: 'binary' }], paths_version: 1 };
    expect(parsePathsJson(JSON.stringify(doc), 'x.conda')).toEqual([{ path: 'b', placeholder: '/p', mode: 'text' }, { path: 'c', placeholder: '/p', mode: 'binary' }]);
    expect(() => parsePathsJson(JSON.stringify({ paths: [{ _path: 'd', prefix_placeholder: '/p', file_mode: 'octal' }] }), 'x.conda')).toThrow(/file_mode "octal"/);
  });

  it('replaces every occurrence inside one C string, keeps the length, and leaves a string without its NUL alone', () => {
    const data = Buffer.from('\0/build/x:/build/y\0tail/build');
    const out = replaceBinaryPlaceholder(data, '/build', '/p', 'f');
    expect(out.toString('latin1')).toBe(`\0/p/x:/p/y${'\0'.repeat(9)}tail/build`);
    expect(out.length).toBe(data.length);
  });
});
