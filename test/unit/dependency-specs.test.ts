// Dependency lines as the indexes write them: PEP 508 Requires-Dist with markers, conda match specs, virtual packages.
import { describe, expect, it } from 'vitest';
import * as pep440 from '@renovatebot/pep440';
import type { Host } from '../../src/host/types.js';
import { checkVirtual, matchesSpec, matchesVersion, parseMatchSpec } from '../../src/sources/match-spec.js';
import { evaluateMarker, markerEnvFor, parseRequirement, requiresDistOf } from '../../src/sources/pep508.js';

const compare = (a: string, b: string, op: string) => (pep440.valid(a) && pep440.valid(b) ? pep440.satisfies(a, `${op}${b}`) : undefined);

describe('PEP 508', () => {
  it('reads the Requires-Dist lines of a METADATA file, folded lines included, and not the body', () => {
    const meta = 'Metadata-Version: 2.1\nName: umf\nVersion: 1.1.0\nRequires-Dist: tcmlib\n  >=1.5\nRequires-Dist: foo; extra == "x"\n\nRequires-Dist: not-a-header\n';
    expect(requiresDistOf(meta)).toEqual(['tcmlib >=1.5', 'foo; extra == "x"']);
  });

  it('parses names, extras, specifiers with or without parentheses, markers and URLs', () => {
    expect(parseRequirement('umf==1.0.*')).toEqual({ name: 'umf', extras: [], specifier: '==1.0.*', marker: undefined });
    expect(parseRequirement('tcmlib (>= 1.5, <2)')).toMatchObject({ name: 'tcmlib', specifier: '>=1.5,<2' });
    expect(parseRequirement('intel-sycl-rt[opt] ==2025.3.1 ; sys_platform == "linux"')).toMatchObject({ extras: ['opt'], marker: 'sys_platform == "linux"' });
    expect(parseRequirement('x @ https://example.invalid/x.whl')).toMatchObject({ name: 'x', url: 'https://example.invalid/x.whl' });
    expect(parseRequirement('umf =1.0')).toBeUndefined();
  });

  it('evaluates markers for the target platform, not for this machine', () => {
    const linux = markerEnvFor('linux-x64');
    const win = markerEnvFor('win-x64');
    const m = 'platform_system == "Windows" and platform_machine == "AMD64"';
    expect(evaluateMarker(m, linux, compare)).toBe(false);
    expect(evaluateMarker(m, win, compare)).toBe(true);
    expect(evaluateMarker('(sys_platform == "linux" or os_name == "nt") and extra == "test"', linux, compare)).toBe(false);
    expect(evaluateMarker('"linux" in sys_platform', linux, compare)).toBe(true);
  });

  it('keeps a dependency whose marker needs the Python version when none is known, and decides it when one is', () => {
    expect(evaluateMarker('python_version < "3.9"', markerEnvFor('linux-x64'), compare)).toBe(true);
    expect(evaluateMarker('python_version < "3.9"', markerEnvFor('linux-x64', { version: '3.12.3' }), compare)).toBe(false);
    expect(evaluateMarker('python_version >= "3.10"', markerEnvFor('linux-x64', { version: '3.12.3' }), compare)).toBe(true);
  });

  it('says undefined for a marker it cannot read', () => {
    expect(evaluateMarker('sys_platform ==', markerEnvFor('linux-x64'), compare)).toBeUndefined();
    expect(evaluateMarker('unknown_var == "x"', markerEnvFor('linux-x64'), compare)).toBeUndefined();
  });
});

describe('conda match specs', () => {
  it('reads the forms repodata uses', () => {
    expect(parseMatchSpec('level-zero ==1.20.6 h84d6215_0')).toEqual({ name: 'level-zero', version: '==1.20.6', build: 'h84d6215_0' });
    expect(parseMatchSpec('level-zero 1.8.12 h6ad65f8_0')).toEqual({ name: 'level-zero', version: '1.8.12', build: 'h6ad65f8_0' });
    expect(parseMatchSpec('__glibc >=2.17,<3.0.a0')).toEqual({ name: '__glibc', version: '>=2.17,<3.0.a0', build: undefined });
    expect(parseMatchSpec('umf==1.0.3')).toEqual({ name: 'umf', version: '==1.0.3' });
  });

  it('matches versions in conda order: ranges, globs, fuzzy =, alternatives', () => {
    expect(matchesVersion('1.29.0', '>=1.20.2,<2.0a0')).toBe(true);
    expect(matchesVersion('1.8.12', '>=1.20.2,<2.0a0')).toBe(false);
    expect(matchesVersion('2.0.0rc1', '>=1.20.2,<2.0a0')).toBe(false);
    expect(matchesVersion('1.0.2', '1.0.*')).toBe(true);
    expect(matchesVersion('1.1.0', '1.0.*')).toBe(false);
    expect(matchesVersion('1.0.2', '=1.0')).toBe(true);
    expect(matchesVersion('1.0.2', '1.0')).toBe(false);
    expect(matchesVersion('1.3', '1.2|1.3')).toBe(true);
    expect(matchesVersion('2.11.2', '>=2.11.2,<2.11.3.0a0')).toBe(true);
  });

  it('matches build strings with globs', () => {
    const rec = { name: 'umf', version: '1.0.3', build: 'intel_1002' };
    expect(matchesSpec(parseMatchSpec('umf 1.0.3 intel_*'), rec)).toBe(true);
    expect(matchesSpec(parseMatchSpec('umf 1.0.3 h1234_0'), rec)).toBe(false);
    expect(matchesSpec(parseMatchSpec('umf >=1'), rec)).toBe(true);
  });

  it('matches virtual packages against the host, naming its value when unmet', () => {
    const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: true, glibc: '2.36' };
    expect(checkVirtual(parseMatchSpec('__glibc >=2.17,<3.0.a0'), host)).toEqual({ ok: true });
    expect(checkVirtual(parseMatchSpec('__glibc >=2.38'), host)).toEqual({ ok: false, reason: "this machine's glibc is 2.36" });
    expect(checkVirtual(parseMatchSpec('__unix'), host)).toEqual({ ok: true });
    expect(checkVirtual(parseMatchSpec('__win'), host).ok).toBe(false);
    expect(checkVirtual(parseMatchSpec('__cuda >=12'), host).ok).toBe(false);
    // Planning for another machine: its glibc is not known, so the spec is taken as met.
    expect(checkVirtual(parseMatchSpec('__glibc >=2.38'), { ...host, native: false, glibc: undefined })).toEqual({ ok: true });
  });
});
