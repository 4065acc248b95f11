// Dependency lines as the indexes write them: PEP 508 Requires-Dist with markers, conda match specs, virtual packages.
import { describe, expect, it } from 'vitest';
import * as pep440 from '@renovatebot/pep440';
import type { Host } from '../../src/platform/types.js';
import { checkVirtual, isVersionSpec, isVirtual, matchesBuild, matchesSpec, matchesVersion, parseMatchSpec, virtualPackages } from '../../src/versions/match-spec.js';
import { evaluateMarker, markerEnvFor, parseRequirement, requiresDistOf } from '../../src/versions/pep508.js';

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

describe('PEP 508, line by line', () => {
  const ev = (m: string) => evaluateMarker(m, markerEnvFor('linux-x64'), compare);

  it('reads a METADATA file with CRLF line ends, headers without a space after the colon, and trailing blanks', () => {
    expect(requiresDistOf('Name: umf\r\nRequires-Dist: tcmlib >=1.5 \r\nRequires-Dist:foo\r\nX-Requires-Dist: bar\r\n\r\nRequires-Dist: body')).toEqual([
      'tcmlib >=1.5',
      'foo',
    ]);
  });

  it('keeps extras, URLs and markers as written, and refuses what is not a requirement', () => {
    expect(parseRequirement('intel-sycl-rt[ opt , dev ]')).toEqual({ name: 'intel-sycl-rt', extras: ['opt', 'dev'], specifier: '', marker: undefined });
    expect(parseRequirement('x @ https://example.invalid/x.whl ; os_name == "nt"')).toEqual({
      name: 'x',
      extras: [],
      specifier: '',
      marker: 'os_name == "nt"',
      url: 'https://example.invalid/x.whl',
    });
    expect(parseRequirement('x; extra == "a;b"')?.marker).toBe('extra == "a;b"');
    expect(parseRequirement('tcmlib (>=1.5, <2.0)')?.specifier).toBe('>=1.5,<2.0');
    expect(parseRequirement('.umf')).toBeUndefined();
    expect(parseRequirement('tcmlib (>=1.5')).toBeUndefined();
    expect(parseRequirement('tcmlib v>=1.5')).toBeUndefined();
    expect(parseRequirement('tcmlib >=1.5)')).toBeUndefined();
    expect(parseRequirement('tcmlib >=1.5,<2)')).toBeUndefined();
    expect(parseRequirement('tcmlib >=1.5,2')).toBeUndefined();
  });

  it('gives a target platform its marker variables, the Python ones only when an interpreter is known', () => {
    expect(markerEnvFor('linux-x64', { version: '3.12.3' })).toEqual({
      os_name: 'posix',
      sys_platform: 'linux',
      platform_system: 'Linux',
      platform_machine: 'x86_64',
      platform_python_implementation: 'CPython',
      implementation_name: 'cpython',
      python_version: '3.12',
      python_full_version: '3.12.3',
      extra: '',
    });
    expect(markerEnvFor('win-x64')).toMatchObject({ os_name: 'nt', sys_platform: 'win32', platform_system: 'Windows', platform_machine: 'AMD64', python_version: undefined });
    expect(ev('extra == ""')).toBe(true);
  });

  it('compares with every marker operator', () => {
    expect(ev('"win" not in sys_platform')).toBe(true);
    expect(ev('"win" not  in sys_platform')).toBe(true);
    expect(ev('"lin" not in sys_platform')).toBe(false);
    expect(ev('platform_machine === "x86_64"')).toBe(true);
    expect(ev('sys_platform != "win32"')).toBe(true);
    expect(ev('sys_platform != "linux"')).toBe(false);
    expect(ev('"3.9" > python_version')).toBe(true);
  });

  it('combines with and/or: an unreadable side leaves the answer open unless the other side decides nothing', () => {
    expect(ev('sys_platform == "win32" or os_name == "posix"')).toBe(true);
    expect(ev('sys_platform == "win32" or os_name == "nt"')).toBe(false);
    expect(ev('sys_platform == "win32" and unknown_var == "x"')).toBeUndefined();
    expect(ev('sys_platform == "linux" or unknown_var == "x"')).toBeUndefined();
    expect(ev('unknown_var == "x" or sys_platform == "linux"')).toBeUndefined();
  });

  it('reads trailing blanks and refuses a marker that is cut short, unbalanced or has stray tokens', () => {
    expect(ev('sys_platform == "linux"   ')).toBe(true);
    for (const bad of [
      'sys_platform == "linux" #',
      'sys_platform == "linux" and',
      '(sys_platform == "linux"',
      '(sys_platform == "linux" "x"',
      'sys_platform == "linux" )',
      'sys_platform "linux" "linux"',
      'sys_platform',
      ') == "x"',
    ]) {
      expect(ev(bad), bad).toBeUndefined();
    }
  });
});

describe('conda match specs, term by term', () => {
  it('parses specs with extra blanks and bare names', () => {
    expect(parseMatchSpec(' umf==1.0.3 ')).toEqual({ name: 'umf', version: '==1.0.3' });
    expect(parseMatchSpec('level-zero  >=1.20')).toEqual({ name: 'level-zero', version: '>=1.20', build: undefined });
    expect(parseMatchSpec('__unix')).toEqual({ name: '__unix', version: '', build: undefined });
  });

  it('matches blanks inside terms, trailing globs, fuzzy prefixes, ~= and !=', () => {
    expect(matchesVersion('1.29.0', '>=1.20.2, <2.0a0')).toBe(true);
    expect(matchesVersion('1.29.0', '>= 1.20.2')).toBe(true);
    expect(matchesVersion('1.0.2', '1.0*')).toBe(true);
    expect(matchesVersion('1.1.0', '1.0*')).toBe(false);
    expect(matchesVersion('1.0', '=1.0')).toBe(true);
    expect(matchesVersion('1.0', '=1.0.2')).toBe(false);
    expect(matchesVersion('1.0', '>=1.0,')).toBe(true);
    expect(matchesVersion('1.4.7', '~=1.4.5')).toBe(true);
    expect(matchesVersion('1.4.5', '~=1.4.5')).toBe(true);
    expect(matchesVersion('1.4.4', '~=1.4.5')).toBe(false);
    expect(matchesVersion('1.5.0', '~=1.4.5')).toBe(false);
    expect(matchesVersion('2.2', '~=2.1')).toBe(true);
    expect(matchesVersion('3.0', '~=2.1')).toBe(false);
    expect(matchesVersion('1.20.5', '~=1.20.2')).toBe(true);
    expect(matchesVersion('1.21.0', '~=1.20.2')).toBe(false);
    expect(matchesVersion('1.0.2', '!=1.0.*')).toBe(false);
    expect(matchesVersion('1.1.0', '!=1.0.*')).toBe(true);
    expect(matchesVersion('1.0.2', '!=1.0.2')).toBe(false);
    expect(matchesVersion('1.0.3', '!=1.0.2')).toBe(true);
  });

  it('tells a version spec from other text', () => {
    for (const ok of ['>=1.20.2,<2.0a0', '1.0.*', '1.0*', '2025.3|2026.0', '*', '>= 1.5', '>=1.0, <2', '>=1.0 ,<2', '1.0', '1!2.0']) expect(isVersionSpec(ok), ok).toBe(true);
    for (const bad of ['foo bar', '1.0 foo', '1.0|foo bar', '1.0,foo bar', '>=1.0,<', '1.0|', '(1.0)', '1.0..2']) expect(isVersionSpec(bad), bad).toBe(false);
  });

  it('matches build globs literally apart from *', () => {
    expect(matchesBuild('intel_1002', 'h1234_*')).toBe(false);
    expect(matchesBuild('py3.10_0', 'py3.1*')).toBe(true);
    expect(matchesBuild('py3x10_0', 'py3.1*')).toBe(false);
    expect(matchesBuild('anything', undefined)).toBe(true);
  });

  it('matches a record only under its own name and version', () => {
    const rec = { name: 'umf', version: '1.0.3', build: 'intel_1002' };
    expect(matchesSpec(parseMatchSpec('tcmlib >=1'), rec)).toBe(false);
    expect(matchesSpec(parseMatchSpec('umf >=2'), rec)).toBe(false);
  });

  it('names virtual packages by their leading __, and knows which ones each platform provides', () => {
    expect(isVirtual('__glibc')).toBe(true);
    expect(isVirtual('level-zero')).toBe(false);
    expect(isVirtual('odd__')).toBe(false);
    const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: true, glibc: '2.36' };
    expect(Object.fromEntries(virtualPackages(host))).toEqual({
      __glibc: { version: '2.36' },
      __linux: {},
      __unix: {},
      __archspec: { version: '1', build: 'x86_64' },
    });
    const win: Host = { platform: 'win-x64', os: 'win32', arch: 'x64', native: false };
    expect(Object.fromEntries(virtualPackages(win))).toEqual({ __win: {}, __archspec: { version: '1', build: 'x86_64' } });
    expect(checkVirtual(parseMatchSpec('__glibc >=2.17'), win)).toEqual({ ok: false, reason: 'this win-x64 machine has no __glibc' });
    expect(checkVirtual(parseMatchSpec('__win'), win)).toEqual({ ok: true });
    expect(checkVirtual(parseMatchSpec('__archspec 1 x86_64'), host)).toEqual({ ok: true });
  });
});
