// What a download taught about a candidate, kept in the cache: read back, bound to this host where it is about loading,
// and drawn from an install refusal of the plan's own packages only.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { XpuError } from '../../src/base/errors.js';
import { readVerdicts, rememberVerdicts, verdictHost, verdictOn, type Verdict } from '../../src/cache/verdicts.js';
import { verdictsFrom } from '../../src/plan/turned-away.js';
import type { InstallPlan } from '../../src/records/plan.js';

const lacks: Verdict = { component: 'gpu-driver', candidate: 'conda intel-compute-runtime 22.43', archives: ['b', 'a'], why: 'lacks lib/libze_intel_gpu.so.1' };
const loads: Verdict = { ...lacks, archives: ['c'], why: 'needs GLIBC_2.38', host: 'linux-x64 glibc 2.36' };

describe('verdicts', () => {
  it('are kept across runs, one per archives and host, and a damaged file reads as none', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'verdicts-'));
    await rememberVerdicts(dir, [lacks, loads]);
    await rememberVerdicts(dir, [{ ...loads, why: 'needs GLIBC_2.39' }]);
    expect((await readVerdicts(dir)).map((v) => v.why)).toEqual(['lacks lib/libze_intel_gpu.so.1', 'needs GLIBC_2.39']);
    await fs.writeFile(path.join(dir, 'verdicts.json'), '{"verd');
    expect(await readVerdicts(dir)).toEqual([]);
    await fs.rm(dir, { recursive: true });
  });

  it('turn away a resolution that has all of a verdict\'s archives; a load verdict only on its host', () => {
    expect(verdictOn([lacks], ['a', 'b', 'x'], 'any')).toBe(lacks);
    expect(verdictOn([lacks], ['a'], 'any')).toBeUndefined();
    expect(verdictOn([loads], ['c'], verdictHost({ platform: 'linux-x64', glibc: '2.36' }))).toBe(loads);
    expect(verdictOn([loads], ['c'], verdictHost({ platform: 'linux-x64', glibc: '2.43' }))).toBeUndefined();
  });

  it('come from a refusal that names a planned component, over its own archives, not its dependencies\'', () => {
    const plan = {
      platform: 'linux-x64',
      host: { native: true, glibc: '2.36' },
      components: [{
        name: 'gpu-driver', status: 'planned', version: '26.27', source: 'conda', origin: 'https://ch', explicit: true, notes: [], attempts: [],
        provides: [{ path: 'lib/libze_intel_gpu.so.1', required: true }],
        archives: [
          { package: 'intel-compute-runtime', version: '26.27', sha256: 'own' },
          { package: 'intel-gmmlib', version: '22.10', sha256: 'dep', requiredBy: ['intel-compute-runtime 26.27: intel-gmmlib'] },
        ],
      }],
    } as unknown as InstallPlan;
    const refused = new XpuError('PREFIX_CHECK', 'the new tree does not work here', {
      details: { problems: ['lib/libze_intel_gpu.so.1 does not load on this system: it needs libigdgmm.so.12', 'lib/libze_intel_gpu.so.1 needs GLIBC_2.38, this host has 2.36'], components: ['gpu-driver'], host: true },
    });
    expect(verdictsFrom(refused, plan)).toEqual([
      { component: 'gpu-driver', candidate: 'conda intel-compute-runtime 26.27', archives: ['own'], why: 'lib/libze_intel_gpu.so.1 needs GLIBC_2.38, this host has 2.36', host: 'linux-x64 glibc 2.36' },
    ]);
    const lacking = new XpuError('PREFIX_CHECK', 'gpu-driver 26.27 from https://ch lacks lib/libze_intel_gpu.so.1', { details: { component: 'gpu-driver' } });
    expect(verdictsFrom(lacking, plan)[0]).toMatchObject({ why: 'lacks lib/libze_intel_gpu.so.1', archives: ['own'] });
    expect(verdictsFrom(lacking, plan)[0]!.host).toBeUndefined();
    expect(verdictsFrom(new XpuError('HASH_MISMATCH', 'x'), plan)).toEqual([]);
  });
});
