// Every index read of a plan goes through the run's gateway: the fixture server sees exactly the requests the gateway
// counts, for a conda channel, a PEP 691 simple index with metadata files and the PyPI JSON API (whose release documents
// carry the Requires-Dist). A kind that read an index with its own client would make the server see more.
import { describe, expect, it } from 'vitest';
import type { Host } from '../../src/platform/types.js';
import { loadManifests } from '../../src/manifest/load.js';
import { makePlan } from '../../src/plan/plan.js';
import { planOptions, type PlanInput } from '../support/plan-options.js';
import { silentReporter } from '../../src/base/reporter.js';
import { openGateway, type CachePolicy } from '../../src/index/gateway.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('index-reads');

// This machine, as a test double: conda's runtime libraries (libgcc) may be left to its own copies, as on a real one.
const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: true, glibc: '2.36' };

/** Plans with a gateway of its own and returns the plan, the server's requests during it, and the gateway's count. */
async function planCounted(cacheDir: string, opts: Partial<PlanInput>, policy: CachePolicy = 'use-cache') {
  const deps = fakeDeps({ platform: 'linux' });
  const gateway = openGateway(deps, { cacheDir, policy });
  const before = fx.index.requests.length;
  const plan = await makePlan(host, await loadManifests(), planOptions({ prefix: fx.at('p'), cacheDir, ...opts }), deps, silentReporter, gateway);
  return { plan, served: fx.index.requests.slice(before), counted: gateway.stats.requests };
}

const planned = (p: { components: { name: string; status: string; version?: string; archives: { filename: string }[] }[] }) =>
  p.components.filter((c) => c.status === 'planned').map((c) => `${c.name} ${c.version}: ${c.archives.map((a) => a.filename).join(' ')}`);

describe('the gateway counts every request a plan makes of an index', () => {
  for (const [label, indexUrl] of [
    ['the PyPI JSON API (release documents for Requires-Dist)', () => fx.index.jsonApiUrl],
    ['a simple index with metadata files', () => fx.index.simpleUrl],
  ] as const) {
    it(`conda channel + ${label}`, async () => {
      const cacheDir = fx.at(label.replace(/\W+/g, '-'));
      const { plan, served, counted } = await planCounted(cacheDir, {
        components: ['level-zero', 'unified-runtime'],
        indexes: { conda: [fx.index.condaChannelUrl('trixie')], pypi: [indexUrl()] },
        sources: ['conda', 'pypi'],
        // trixie's loader is 1.20.6: the UR whose adapters it can load (2026's need a loader >= 1.25).
        requires: ['unified-runtime<2026'],
      });
      expect(planned(plan).map((l) => l.split(':')[0])).toEqual([expect.stringMatching(/^level-zero /), expect.stringMatching(/^unified-runtime /)]);
      // UR's closure was followed (its Requires-Dist read), so the release documents or metadata files were asked for.
      expect(plan.components.find((c) => c.name === 'unified-runtime')!.archives.length).toBeGreaterThan(1);
      if (label.includes('JSON')) expect(served.some((r) => /^\/pypi\/[^/]+\/[^/]+\/json$/.test(r.path))).toBe(true);
      expect(served.length).toBeGreaterThan(0);
      expect(counted).toBe(served.length);

      // The same plan again under cache-only: nothing is asked of the server, and the plan is the same.
      const offline = await planCounted(cacheDir, { components: ['level-zero', 'unified-runtime'], indexes: { conda: [fx.index.condaChannelUrl('trixie')], pypi: [indexUrl()] }, sources: ['conda', 'pypi'], requires: ['unified-runtime<2026'] }, 'cache-only');
      expect(offline.served).toEqual([]);
      expect(offline.counted).toBe(0);
      expect(planned(offline.plan)).toEqual(planned(plan));
    });
  }
});
