// The plan stage on its own: manifests + host + options -> InstallPlan, with no CLI, network or index server.
import { describe, expect, it } from 'vitest';
import type { Host } from '../../src/platform/types.js';
import type { ComponentManifest, SourceSpec } from '../../src/manifest/schema.js';
import { planKeyOf } from '../../src/plan/key.js';
import { makePlan } from '../../src/plan/plan.js';
import { planOptions, type PlanInput } from '../support/plan-options.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { openGateway } from '../../src/index/gateway.js';

// Planning for another platform: nothing is executed, so apt is never asked and url sources resolve from data alone.
const winHost: Host = { platform: 'win-x64', os: 'win32', arch: 'x64', native: false };
const opts: PlanInput = { prefix: '/tmp/p', cacheDir: '/tmp/c' };
const sha = (c: string) => c.repeat(64);

function urlSource(version: string, hash = sha('a')): SourceSpec {
  return { kind: 'url', package: 'sdk', version, url: `https://example.invalid/sdk-${version}.zip`, sha256: hash, map: [{ from: 'include/', to: 'include/' }] };
}

function manifest(name: string, sources: SourceSpec[], extra: Partial<ComponentManifest> = {}): ComponentManifest {
  return {
    schema: 1, name, summary: name, features: [],
    platforms: { 'win-x64': { provides: [{ path: 'include/x.h', required: true }], sources } },
    ...extra,
  };
}

const plan = (ms: ComponentManifest[], o: Partial<PlanInput> = {}) => makePlan(winHost, ms, planOptions({ ...opts, ...o }), fakeDeps({ platform: 'linux' }), silentReporter, openGateway(fakeDeps(), { cacheDir: o.cacheDir ?? opts.cacheDir }));

describe('makePlan', () => {
  it('turns a pinned URL into a planned archive, and carries the loader flag from the manifest', async () => {
    const p = await plan([manifest('l0', [urlSource('1.20.6')], { roles: ['ze-loader'] }), manifest('other', [urlSource('2.0.0', sha('b'))])]);
    expect(p.platform).toBe('win-x64');
    expect(p.host).toEqual({ native: false, distro: undefined, glibc: undefined });
    const [l0, other] = p.components;
    expect(l0).toMatchObject({ name: 'l0', status: 'planned', roles: ['ze-loader'], source: 'url', version: '1.20.6', explicit: false });
    expect(l0!.archives).toEqual([
      { package: 'sdk', version: '1.20.6', filename: 'sdk-1.20.6.zip', url: 'https://example.invalid/sdk-1.20.6.zip', sha256: sha('a'), size: undefined, format: 'zip', map: [{ from: 'include/', to: 'include/' }] },
    ]);
    expect(other!.roles).toBeUndefined();
    expect(JSON.parse(JSON.stringify(p))).toMatchObject({ schema: 1, components: [{ name: 'l0' }, { name: 'other' }] });
  });

  it('gives equal plans equal keys, and a different archive hash a different key', async () => {
    const a = await plan([manifest('l0', [urlSource('1.0.0')])]);
    const b = await plan([manifest('l0', [urlSource('1.0.0')])]);
    const c = await plan([manifest('l0', [urlSource('1.0.0', sha('c'))])]);
    expect(a.planKey).toMatch(/^[0-9a-f]{64}$/);
    expect(b.planKey).toBe(a.planKey);
    expect(c.planKey).not.toBe(a.planKey);
    expect(planKeyOf('linux-x64', a.components)).not.toBe(a.planKey);
  });

  it('falls through a source that cannot serve this host and records each attempt', async () => {
    const apt: SourceSpec = { kind: 'apt', packages: ['libze-dev'], map: [{ from: 'usr/', to: '' }] };
    const p = await plan([manifest('l0', [apt, urlSource('1.0.0')])]);
    expect(p.components[0]!.attempts.map((a) => [a.source, a.outcome])).toEqual([['apt', 'not-found'], ['url', 'chosen']]);
    expect(p.components[0]!.attempts[0]!.reason).toMatch(/^apt: apt is only used on a Debian or Ubuntu machine/);
  });

  it('follows --source order, and leaves out kinds not named', async () => {
    const p = await plan([manifest('l0', [urlSource('1.0.0')])], { sources: ['apt'] });
    expect(p.components[0]).toMatchObject({ status: 'unavailable', attempts: [] });
    expect(p.components[0]!.notes).toEqual(['no source of the kinds apt provides l0 for win-x64']);
  });

  it('notes what an older version lacks', async () => {
    const p = await plan([manifest('l0', [urlSource('1.8.12')], { features: [{ since: '1.9.0', what: 'the IP version extension' }] })]);
    expect(p.components[0]!.notes).toEqual(['l0 1.8.12 lacks the IP version extension (since 1.9.0)']);
  });

  it('reports a component with no source for the platform, and fails only when it was named', async () => {
    const linuxOnly: ComponentManifest = { schema: 1, name: 'ur', summary: '', features: [], platforms: { 'linux-x64': { provides: [], sources: [urlSource('1.0.0')] } } };
    const p = await plan([manifest('l0', [urlSource('1.0.0')]), linuxOnly]);
    expect(p.components[1]).toMatchObject({ name: 'ur', status: 'unavailable', notes: ['ur has no source for win-x64'] });
    const apt: SourceSpec = { kind: 'apt', packages: ['libze-dev'], map: [{ from: 'usr/', to: '' }] };
    await expect(plan([manifest('l0', [apt])], { components: ['l0'] })).rejects.toMatchObject({
      code: 'NO_SOURCE',
      message: 'no source could provide l0 for win-x64',
      hints: [expect.stringMatching(/^tried l0: apt: apt is only used/), expect.stringMatching(/^check the index URLs/)],
    });
  });

  it('refuses an unknown component by name, listing the known ones', async () => {
    await expect(plan([manifest('l0', [urlSource('1.0.0')])], { components: ['nope'] })).rejects.toMatchObject({
      code: 'USAGE',
      message: 'unknown component "nope"',
      hints: ['components: l0'],
    });
  });
});
