// The modern GPU stack run for real: inside a Debian sid root, the built CLI installs sid's own Level Zero loader 1.32
// and GPU user-mode driver 26.27 (compute-runtime, IGC 2.40, gmmlib) through the apt kind into a prefix, and a shell
// in the root that sourced only the prefix's env.sh proves it: the loader loads the prefix's driver, ocloc compiles
// for bmg, lnl and ptl, and the OpenCL ICD loader (clinfo) loads the prefix's ICD. No GPU is needed for any of it.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../e2e/cli.js';
import { buildCondaForgeDriver, CONDA_FORGE_DRIVER } from '../support/gpu-driver-conda-forge.js';
import { startFixtureIndex, type FixtureIndex } from '../support/index-server.js';
import { buildFixturePackages } from '../support/packages.js';
import { reportSkip } from '../support/skips.js';
import { inSid, prepareSid, SID_ROOT, sq, type RootRun } from './sid.js';

const DRIVER_SET = ['libze-intel-gpu1', 'intel-opencl-icd', 'intel-ocloc', 'libigc2', 'libigdfcl2', 'libigdgmm12'];
const LOADER_SET = ['libze1', 'libze-dev'];
const TARGETS = ['bmg', 'lnl', 'ptl'];

const table: string[] = [];
/** One printed line per case: what ran and what it showed. */
function row(name: string, ok: boolean, detail: string): void {
  const line = `${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(34)} ${detail}`;
  table.push(line);
  process.stderr.write(`sid: ${line}\n`);
}
const show = (r: RootRun): string => `exit ${r.exitCode}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

let cannot: string | undefined;
let node: string;
let work: string;
let prefix: string;
let setup: RootRun;
let setupSeconds: number;
const started = Date.now();
let prepareSeconds = 0;

/** A shell in the root with nothing but HOME, PATH and what the prefix's env.sh sets. */
const withEnvFile = (script: string, cwd = work): Promise<RootRun> =>
  inSid(node, `. ${sq(`${prefix}/env.sh`)} && ${script}`, { HOME: path.join(work, 'home') }, cwd);

interface ReceiptArchive {
  package: string;
  version: string;
}

beforeAll(async () => {
  const t0 = Date.now();
  const prepared = await prepareSid();
  prepareSeconds = (Date.now() - t0) / 1000;
  if (prepared.cannot !== undefined) {
    cannot = prepared.cannot;
    reportSkip('the sid suite', cannot);
    row('sid root', true, `skipped: ${cannot}`);
    return;
  }
  node = prepared.node;
  work = await tempDir('sid');
  prefix = path.join(work, 'p');
  await fs.mkdir(path.join(work, 'home'));
  const t1 = Date.now();
  const cli = [node, path.join(REPO, 'bin', 'xpu-setup.js'), '--component', 'level-zero,gpu-driver', '--source', 'apt', '--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--verbose'];
  setup = await inSid(node, cli.map(sq).join(' '), { HOME: path.join(work, 'home'), CI: 'true' }, work);
  setupSeconds = (Date.now() - t1) / 1000;
}, 1_500_000);

beforeEach((ctx) => {
  if (cannot) ctx.skip(cannot);
});

afterAll(async () => {
  if (work) await fs.rm(work, { recursive: true, force: true });
  process.stderr.write(`\nsid suite (${((Date.now() - started) / 1000).toFixed(0)} s: root and node ${prepareSeconds.toFixed(0)} s, setup ${setupSeconds?.toFixed(0) ?? '-'} s):\n${table.join('\n')}\n`);
});

describe("Debian sid's loader 1.32 and GPU driver 26.27, set up by the CLI inside a sid root", () => {
  it("installs sid's driver set and loader through the apt kind", async () => {
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8').catch(() => '{}')) as { archives?: ReceiptArchive[]; components?: { name: string; version: string; source: string }[] };
    const archives = receipt.archives ?? [];
    const got = archives.map((a) => `${a.package} ${a.version}`);
    row('setup --source apt', setup.exitCode === 0, `exit ${setup.exitCode} in ${setupSeconds.toFixed(0)} s: ${got.join(', ')}`);
    expect(setup.exitCode, show(setup)).toBe(0);
    const packages = archives.map((a) => a.package);
    expect(packages).toEqual(expect.arrayContaining([...LOADER_SET, ...DRIVER_SET]));
    const components = Object.fromEntries((receipt.components ?? []).map((c) => [c.name, c]));
    expect(components['level-zero']?.version).toMatch(/^1\.32\./);
    expect(components['gpu-driver']?.version).toMatch(/^26\.27\./);
    for (const c of Object.values(components)) expect(c.source).toMatch(/^apt /);
  });

  it("plans with the binary cache the root's apt keeps, building none of its own in the cache dir", async () => {
    const own = await fs.stat(path.join(work, 'cache', 'index', 'apt', 'pkgcache.bin')).then(() => true, () => false);
    const system = await fs.stat(path.join(SID_ROOT, 'var', 'cache', 'apt', 'pkgcache.bin')).then(() => true, () => false);
    row('apt binary cache', !own && system, `the root's /var/cache/apt/pkgcache.bin ${system ? 'used' : 'missing'}; ${own ? 'one built in the cache dir' : 'none built in the cache dir'}`);
    expect(own).toBe(false);
    expect(system).toBe(true);
  });

  it("the loader 1.32 loads the prefix's driver, found through env.sh's LD_LIBRARY_PATH alone", async () => {
    // A program as a user builds it: the prefix's headers, linked against the prefix's libze_loader.so. It is compiled
    // on this machine (the root has no compiler); sid's loader needs a newer glibc than this machine's, whose symbols
    // the program never calls itself.
    const src = path.join(work, 'zeinit.c');
    await fs.writeFile(src, '#include <stdio.h>\n#include <level_zero/ze_api.h>\nint main(void) { ze_result_t r = zeInit(0); printf("zeInit=0x%x\\n", (unsigned)r); return 0; }\n');
    await execa('gcc', [src, '-o', path.join(work, 'zeinit'), `-I${prefix}/include`, `-L${prefix}/lib`, '-lze_loader', '-Wl,--allow-shlib-undefined']);
    const r = await withEnvFile('ZE_ENABLE_LOADER_DEBUG_TRACE=1 ./zeinit');
    const said = `${r.stdout}\n${r.stderr}`;
    const trace = said.split('\n').filter((l) => l.startsWith('ZE_LOADER_DEBUG_TRACE:'));
    const want = `ZE_LOADER_DEBUG_TRACE:Loading Driver libze_intel_gpu.so.1 succeeded from: ${prefix}/lib/libze_intel_gpu.so.1`;
    const result = said.split('\n').find((l) => l.startsWith('zeInit='));
    row('zeInit through env.sh', trace.includes(want), `${result}; ${trace.includes(want) ? `driver loaded from ${prefix}/lib` : 'the prefix driver was not loaded'}`);
    process.stderr.write(`sid: loader trace:\n${trace.map((l) => `  ${l}`).join('\n')}\n`);
    expect(r.exitCode, show(r)).toBe(0);
    expect(trace, show(r)).toContain(want);
    // No GPU here: the driver loads and finds no device.
    expect(result).toBe('zeInit=0x78000001');
  });

  it('ocloc from env.sh compiles an OpenCL kernel for bmg, lnl and ptl into zebins', async () => {
    const kdir = path.join(work, 'kernel');
    await fs.mkdir(kdir);
    await fs.writeFile(path.join(kdir, 'add.cl'), 'kernel void add(global const float *a, global const float *b, global float *c) { size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n');
    const bins = (await fs.readdir(path.join(prefix, 'bin'))).filter((n) => /^ocloc(-[\d.]+)?$/.test(n)).sort();
    // The unversioned name is what Triton and Inductor run; the package ships only ocloc-<major>.<minor>.1.
    const name = bins.includes('ocloc') ? 'ocloc' : bins.find((n) => n.startsWith('ocloc-'));
    expect(name, `bin/ holds ${bins.join(', ')}`).toBeDefined();
    row('bin/ocloc*', bins.includes('ocloc'), `${bins.join(', ')}${bins.includes('ocloc') ? '' : ': no plain ocloc, the versioned one is run'}`);
    for (const target of TARGETS) {
      const r = await withEnvFile(`command -v ${name} && ${name} compile -file add.cl -device ${target} -output add_${target}`, kdir);
      const bin = (await fs.readdir(kdir)).find((n) => n.startsWith(`add_${target}`) && n.endsWith('.bin'));
      const head = bin ? await fs.readFile(path.join(kdir, bin)) : Buffer.alloc(0);
      const zebin = head.subarray(0, 4).toString('latin1') === '\x7fELF' && head.readUInt16LE(18) === 205;
      row(`${name} -device ${target}`, r.exitCode === 0 && zebin, `${r.stdout.split('\n')[0]}: ${bin ?? 'no output'}${zebin ? ' (zebin, EM_INTEL_GEN)' : ''}`);
      expect(r.exitCode, show(r)).toBe(0);
      expect(r.stdout.split('\n')[0]).toBe(`${prefix}/bin/${name}`);
      expect(r.stdout).toMatch(/Build succeeded/);
      expect(zebin, bin).toBe(true);
    }
  });

  it("clinfo, with OCL_ICD_VENDORS from env.sh, loads the prefix's Intel ICD", async () => {
    const r = await withEnvFile('LD_DEBUG=files clinfo -l');
    const loaded = r.stderr.includes(`file=${prefix}/lib/intel-opencl/libigdrcl.so [0];  generating link map`);
    const gmm = r.stderr.includes(`calling init: ${prefix}/lib/libigdgmm.so.12`);
    row('clinfo through env.sh', loaded && gmm, `${loaded ? 'libigdrcl.so from the prefix' : 'prefix ICD not loaded'}, ${gmm ? "the prefix's gmmlib" : 'gmmlib not from the prefix'}; clinfo -l: ${r.stdout.trim() || 'no platform (no GPU here)'}`);
    expect(loaded, show(r)).toBe(true);
    expect(gmm, show(r)).toBe(true);
  });

  // Recorded, not judged: setup's proof runs inside its own process, which has no LD_LIBRARY_PATH of the prefix, so it
  // can say that no driver was found while a program started after env.sh loads it (see the loader case above).
  it("setup's own proof: what it said of the loader, the driver and ocloc", () => {
    const said = setup.stderr.split('\n').filter((l) => /^(warning|error|✓)|^\s+hint:/.test(l));
    const driverFound = !/no Level Zero driver was found/.test(setup.stderr);
    const oclocFound = !/no bin\/ocloc/.test(setup.stderr);
    row("setup's proof", true, `driver ${driverFound ? 'found' : 'NOT found'}, ocloc ${oclocFound ? 'found' : 'NOT found'} (as setup says; ${said.length} lines below)`);
    process.stderr.write(`sid: setup's proof said:\n${said.map((l) => `  ${l}`).join('\n')}\n`);
    expect(setup.exitCode).toBe(0);
  });

  it("doctor in the root says the prefix's driver loads once the env file is loaded", async () => {
    const cli = [node, path.join(REPO, 'bin', 'xpu-setup.js'), 'doctor', '--prefix', prefix, '--json'];
    const r = await inSid(node, cli.map(sq).join(' '), { HOME: path.join(work, 'home'), CI: 'true' }, work);
    const checks = (JSON.parse(r.stdout || '{}') as { checks?: { id: string; status: string; message?: string }[] }).checks ?? [];
    const of = (id: string) => checks.find((c) => c.id === id);
    row('doctor user-driver', of('user-driver')?.status === 'ok', `${of('user-driver')?.status}: ${of('user-driver')?.message}`);
    row('doctor ocloc', of('ocloc')?.status === 'ok', `${of('ocloc')?.status}: ${of('ocloc')?.message?.slice(0, 120)}`);
    expect(of('user-driver'), show(r)).toMatchObject({ status: 'ok', message: `${prefix}/lib/libze_intel_gpu.so.1 (the prefix's, found once its env file is loaded) loads` });
  });

  // The proof runs in a child with the env file's environment, so it finds the driver a program started after env.sh finds.
  it("setup's proof says the prefix's driver is found, as a program started after env.sh finds it", () => {
    expect(setup.stderr).not.toMatch(/no Level Zero driver was found/);
    expect(setup.stderr).toContain(`the Level Zero driver libze_intel_gpu.so.1 (${prefix}/lib/libze_intel_gpu.so.1) loaded but found no device`);
  });

  // The package ships only ocloc-26.27.1; the prefix gives the unversioned bin/ocloc that Triton and Inductor run.
  it("setup gives bin/ocloc and does not say the driver's packages have none", async () => {
    expect(setup.stderr).not.toMatch(/no bin\/ocloc/);
    await fs.access(path.join(prefix, 'bin', 'ocloc'));
  });
});

describe("conda-forge's intel-compute-runtime (its recipe's shape, sid's files) set up inside the sid root", () => {
  let index: FixtureIndex;
  let cf: RootRun;
  let at: string;

  beforeAll(async () => {
    if (cannot) return;
    const [base, driver] = await Promise.all([buildFixturePackages(), buildCondaForgeDriver()]);
    index = await startFixtureIndex({ fixtures: { ...base, artifacts: [...base.artifacts, ...driver] } });
    at = path.join(work, 'cf');
    // The root shares this machine's network: the index on 127.0.0.1 is reachable from inside it.
    // conda-forge first, then the root's apt: the conda package is no Level Zero driver, so apt's serves.
    const cli = [node, path.join(REPO, 'bin', 'xpu-setup.js'), '--component', 'gpu-driver', '--source', 'conda,apt', '--conda-channel', index.condaChannelUrl('gpu-driver-cf'), '--prefix', at, '--cache-dir', path.join(work, 'cache'), '--no-probe'];
    cf = await inSid(node, cli.map(sq).join(' '), { HOME: path.join(work, 'home'), CI: 'true' }, work);
    const said = cf.stderr.split('\n').filter((l) => /^(warning|error|✓|✗)|^\s+hint:/.test(l));
    row('setup from gpu-driver-cf', cf.exitCode === 0, `exit ${cf.exitCode}: ${said.join(' | ').slice(0, 300)}`);
  }, 900_000);

  afterAll(async () => {
    await index?.close();
  });

  // A package without libze_intel_gpu.so.1 is no candidate for the driver's Level Zero role: learned from its download,
  // remembered, and the next source (sid's apt) serves in the same run; clinfo and ocloc then come from apt's packages.
  it("is turned away for having no Level Zero driver, and sid's apt driver is installed in the same run; clinfo and ocloc work from env.sh", async () => {
    expect(cf.exitCode, show(cf)).toBe(0);
    expect(cf.stderr).toContain(`gpu-driver: conda ${CONDA_FORGE_DRIVER.runtime.name} ${CONDA_FORGE_DRIVER.runtime.version}: lacks lib/libze_intel_gpu.so.1: planning again without it`);
    const receipt = JSON.parse(await fs.readFile(path.join(at, 'xpu-setup.receipt.json'), 'utf8')) as { components: { name: string; version: string; source: string }[] };
    expect(receipt.components.find((c) => c.name === 'gpu-driver')?.source).toMatch(/^apt /);
    await fs.access(path.join(at, 'lib', 'libze_intel_gpu.so.1'));
    const r = await inSid(node, `. ${sq(`${at}/env.sh`)} && LD_DEBUG=files clinfo -l && command -v ocloc`, { HOME: path.join(work, 'home') }, work);
    expect(r.stderr).toContain(`file=${at}/lib/intel-opencl/libigdrcl.so [0];  generating link map`);
    expect(r.stdout).toContain(`${at}/bin/ocloc`);
  });
});
