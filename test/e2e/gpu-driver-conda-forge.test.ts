// conda-forge's intel-compute-runtime as its recipe builds it (test/support/gpu-driver-conda-forge.ts: sid's 26.27 files
// in the feedstock's shape: OpenCL ICD and ocloc-26.27.1, no Level Zero driver; any IGC 2.x allowed by its depends),
// planned on this machine. The files need a newer glibc than Debian 12's, so what a plan must decide is tested here and
// the install itself runs in the sid root (test/sid/sid.test.ts).
import * as fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureSidDebs } from '../support/debs.js';
import { buildCondaForgeDriver, CONDA_FORGE_DRIVER } from '../support/gpu-driver-conda-forge.js';
import { releaseRows } from '../support/releases.js';
import type { CliRun } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const run = promisify(execFile);

const { runtime, igc, newerIgc } = CONDA_FORGE_DRIVER;
const fx = withFixtureRun('gpu-driver-cf', { more: buildCondaForgeDriver });

/** A plan with a cache of its own: what the install below learns of the package (it lacks the Level Zero driver) stays in its cache. */
const plan = (channel: 'gpu-driver-cf' | 'gpu-driver-cf-igc'): Promise<CliRun> =>
  fx.run(['plan', '--component', 'gpu-driver', '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl(channel), '--prefix', fx.at(channel), '--cache-dir', fx.at(`plan-cache-${channel}`), '--json']);

interface PlannedArchive {
  package: string;
  version: string;
}
const archivesOf = (r: CliRun): PlannedArchive[] =>
  (JSON.parse(r.stdout || '{}').components ?? JSON.parse(r.stdout || '{}').plan?.components ?? []).flatMap((c: { archives?: PlannedArchive[] }) => c.archives ?? []);

describe("conda-forge's intel-compute-runtime: OpenCL and ocloc, no Level Zero driver", () => {
  it('plans the package and its IGC and gmmlib: a driver package without libze_intel_gpu.so.1 is still the OpenCL ICD and ocloc', async () => {
    const r = await plan('gpu-driver-cf');
    process.stderr.write(`gpu-driver-cf plan: exit ${r.exitCode}\n${r.stderr}\n`);
    expect(r.exitCode, r.stderr).toBe(0);
    // With the GCC 14 runtime its depends name, which this machine's older libstdc++ does not satisfy.
    const driver = archivesOf(r).filter((a) => a.package.startsWith('intel-'));
    expect(driver.map((a) => `${a.package} ${a.version}`).sort()).toEqual([`${igc.name} ${igc.version}`, `intel-gmmlib ${CONDA_FORGE_DRIVER.gmmlib.version}`, `${runtime.name} ${runtime.version}`].sort());
  });

  // Its libraries also need GLIBC_2.43 here, but a newer glibc would not make it a Level Zero driver: the refusal names
  // what the package lacks for the role, and the next plan turns it away without downloading it again.
  it('on Debian 12 with conda alone: refused before the swap for having no Level Zero driver, not for its glibc; the next plan knows it without a download', async () => {
    const at = fx.at('install');
    const cache = fx.at('cache');
    const r = await fx.run(['--component', 'gpu-driver', '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl('gpu-driver-cf'), '--prefix', at, '--cache-dir', cache, '--no-probe']);
    process.stderr.write(`gpu-driver-cf setup on this machine: exit ${r.exitCode}\n${r.stderr}\n`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('the prefix was left as it was');
    expect(r.stderr).toContain(`error: gpu-driver ${runtime.version} from ${fx.index.condaChannelUrl('gpu-driver-cf')} lacks lib/libze_intel_gpu.so.1`);
    expect(r.stderr).toMatch(/hint: the package has no Level Zero driver .*--source apt, --source github/);
    expect(r.stderr).not.toMatch(/GLIBC_2\.4/);
    await expect(fs.access(at)).rejects.toThrow();
    const again = await fx.run(['plan', '--component', 'gpu-driver', '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl('gpu-driver-cf'), '--prefix', at, '--cache-dir', cache]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/lacks lib\/libze_intel_gpu\.so\.1 \(learned from an earlier download\)/);
  });

  // The depends allow any IGC 2.x (2.42.6 is the newest); the driver loads only the IGC of its own major.minor.
  it(`pairs the driver ${runtime.version} with the IGC of its major.minor (${igc.version}), not the newest its depends allow (${newerIgc.version})`, async () => {
    const r = await plan('gpu-driver-cf-igc');
    process.stderr.write(`gpu-driver-cf-igc plan: exit ${r.exitCode}\n${r.stderr}\n`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(archivesOf(r).find((a) => a.package === igc.name)?.version).toBe(igc.version);
  });
});

describe("data/compute-runtime-releases.json against sid's real packages", () => {
  it("the sid row's IGC, gmmlib and glibc are what sid's packages say", async () => {
    const sid = await ensureSidDebs();
    const row = releaseRows().find((r) => r.packagedBy === 'debian-sid')!;
    const upstream = (p: string) => sid.versions[p]!.replace(/[-+][^-+]*$/, '').replace(/\+ds\d*$/, '');
    expect(upstream('libze-intel-gpu1')).toBe(row.release);
    expect(upstream('libigc2')).toBe(row.igc);
    expect(upstream('libigdgmm12')).toBe(row.gmmlib);
    // The driver pins the IGC of its own version: >= it and << it+~.
    const depends = (await run('dpkg-deb', ['-f', sid.debs['intel-opencl-icd']!, 'Depends'])).stdout;
    expect(depends).toContain(`libigc2 (<< ${row.igc}+~)`);
    const libc = async (p: string) => /libc6 \(>= ([\d.]+)\)/.exec((await run('dpkg-deb', ['-f', sid.debs[p]!, 'Depends'])).stdout)![1]!;
    const floors = await Promise.all(['libze-intel-gpu1', 'intel-opencl-icd', 'intel-ocloc', 'libigc2', 'libigdfcl2', 'libigdgmm12'].map(libc));
    expect(floors.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1)).toBe(row.glibc);
  });
});
