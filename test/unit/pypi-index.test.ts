import { beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src/platform/types.js';
import { loadPep440 } from '../../src/versions/pep440.js';
import { newerNeedingGlibc, parseWheelFilename, platformTagScore, selectWheel } from '../../src/kinds/pypi.js';
import { parseJsonApi, parseSimpleHtml, parseSimpleJson, type IndexFile } from '../../src/index/simple-index.js';

const linux: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: true, glibc: '2.36' };
const oldLinux: Host = { ...linux, glibc: '2.17' };
const win: Host = { platform: 'win-x64', os: 'win32', arch: 'x64', native: false };
const sha = (c: string) => c.repeat(64);

// selectWheel compares in PEP 440's order, which planning loads before it reads an index.
beforeAll(loadPep440);

const html = `<!DOCTYPE html><html><body><h1>Links for intel-cmplr-lib-ur</h1>
<a href="../../files/intel_cmplr_lib_ur-2025.2.0-py2.py3-none-manylinux_2_28_x86_64.whl#sha256=${sha('a')}" data-requires-python="&gt;=3.9">intel_cmplr_lib_ur-2025.2.0-py2.py3-none-manylinux_2_28_x86_64.whl</a><br/>
<a href="https://files.example/intel_cmplr_lib_ur-2025.3.1-py2.py3-none-win_amd64.whl#sha256=${sha('b')}">intel_cmplr_lib_ur-2025.3.1-py2.py3-none-win_amd64.whl</a>
<a href="../../files/intel_cmplr_lib_ur-2025.3.1-py2.py3-none-manylinux_2_28_x86_64.whl#sha256=${sha('c')}">intel_cmplr_lib_ur-2025.3.1-py2.py3-none-manylinux_2_28_x86_64.whl</a>
<a href="../../files/intel_cmplr_lib_ur-2026.0.0-py2.py3-none-manylinux_2_28_x86_64.whl#sha256=${sha('d')}" data-yanked="broken build">intel_cmplr_lib_ur-2026.0.0-py2.py3-none-manylinux_2_28_x86_64.whl</a>
<a href="../../files/intel_cmplr_lib_ur-2025.4.0-py2.py3-none-manylinux_2_28_x86_64.whl">no hash</a>
</body></html>`;

describe('PEP 503 HTML', () => {
  const files = parseSimpleHtml(html, 'http://127.0.0.1:9/simple/intel-cmplr-lib-ur/');

  it('resolves hrefs, hash fragments, yanked and requires-python', () => {
    expect(files).toHaveLength(5);
    expect(files[0]).toEqual({
      filename: 'intel_cmplr_lib_ur-2025.2.0-py2.py3-none-manylinux_2_28_x86_64.whl',
      url: 'http://127.0.0.1:9/files/intel_cmplr_lib_ur-2025.2.0-py2.py3-none-manylinux_2_28_x86_64.whl',
      sha256: sha('a'),
      yanked: false,
      requiresPython: '>=3.9',
    });
    expect(files[3]).toMatchObject({ yanked: true, yankedReason: 'broken build' });
    expect(files[4]!.sha256).toBeUndefined();
  });

  it('selects the newest installable, hashed, non-yanked wheel for the host', () => {
    expect(selectWheel(files, 'intel-cmplr-lib-ur', linux)!.filename).toBe('intel_cmplr_lib_ur-2025.3.1-py2.py3-none-manylinux_2_28_x86_64.whl');
    expect(selectWheel(files, 'Intel_Cmplr.Lib-UR', win)!.filename).toBe('intel_cmplr_lib_ur-2025.3.1-py2.py3-none-win_amd64.whl');
    expect(selectWheel(files, 'intel-cmplr-lib-ur', oldLinux)).toBeUndefined();
    expect(selectWheel(files, 'intel-cmplr-lib-ur', linux, '<2025.3.0')!.filename).toContain('2025.2.0');
  });
});

describe('PEP 691 JSON and the JSON API', () => {
  it('reads files, hashes and string-valued yanked', () => {
    const files = parseSimpleJson(
      {
        meta: { 'api-version': '1.1' },
        files: [
          { filename: 'x-1.0-py3-none-any.whl', url: '/files/x-1.0-py3-none-any.whl', hashes: { sha256: sha('A') }, yanked: 'bad', size: 3 },
          { filename: 'x-1.1-py3-none-any.whl', url: 'x-1.1-py3-none-any.whl', hashes: {}, yanked: false },
        ],
      },
      'http://h/simple/x/',
    );
    expect(files[0]).toMatchObject({ url: 'http://h/files/x-1.0-py3-none-any.whl', sha256: sha('a'), yanked: true, yankedReason: 'bad', size: 3 });
    expect(files[1]).toMatchObject({ url: 'http://h/simple/x/x-1.1-py3-none-any.whl', yanked: false, sha256: undefined });
  });

  it('reads the /pypi/<name>/json releases', () => {
    const files: IndexFile[] = parseJsonApi(
      { releases: { '1.0': [{ filename: 'x-1.0-py3-none-any.whl', url: 'https://f/x-1.0-py3-none-any.whl', digests: { sha256: sha('e') }, size: 9, yanked: true, yanked_reason: 'withdrawn' }] } },
      'http://h/pypi/x/json',
    );
    expect(files).toEqual([{ filename: 'x-1.0-py3-none-any.whl', url: 'https://f/x-1.0-py3-none-any.whl', sha256: sha('e'), size: 9, yanked: true, yankedReason: 'withdrawn', requiresPython: undefined }]);
  });

  it('refuses documents of the wrong kind, naming the URL', () => {
    expect(() => parseSimpleJson({} as never, 'http://h/simple/x/')).toThrow(/http:\/\/h\/simple\/x\/ is not a PEP 691/);
    expect(() => parseJsonApi({} as never, 'http://h/pypi/x/json')).toThrow(/http:\/\/h\/pypi\/x\/json is not a PyPI JSON API/);
  });
});

describe('wheel tags', () => {
  it('parses names with compressed tag sets and build tags', () => {
    expect(parseWheelFilename('a_b-1.0-1-py2.py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl')).toEqual({
      name: 'a_b', version: '1.0', pythonTags: ['py2', 'py3'], abiTags: ['none'], platformTags: ['manylinux_2_17_x86_64', 'manylinux2014_x86_64'],
    });
    expect(parseWheelFilename('nope.tar.gz')).toBeUndefined();
  });

  it('scores manylinux tags against the host glibc', () => {
    expect(platformTagScore('manylinux_2_28_x86_64', linux)).toBeGreaterThan(platformTagScore('manylinux2014_x86_64', linux)!);
    expect(platformTagScore('manylinux_2_39_x86_64', linux)).toBeUndefined();
    expect(platformTagScore('manylinux1_x86_64', oldLinux)).toBeDefined();
    expect(platformTagScore('manylinux_2_28_aarch64', linux)).toBeUndefined();
    expect(platformTagScore('win_amd64', linux)).toBeUndefined();
    expect(platformTagScore('win_amd64', win)).toBe(1);
    expect(platformTagScore('any', win)).toBe(0);
  });
});

describe("newer releases whose wheels need a newer glibc than the host's", () => {
  const wheel = (name: string): IndexFile => ({ filename: name, url: `https://files.example/${name}`, sha256: sha('e'), yanked: false });
  const files = [
    wheel('intel_cmplr_lib_ur-2025.3.2-py2.py3-none-manylinux_2_28_x86_64.whl'),
    wheel('intel_cmplr_lib_ur-2026.2.0-py2.py3-none-manylinux_2_38_x86_64.whl'),
    wheel('intel_cmplr_lib_ur-2026.2.0-py2.py3-none-manylinux_2_39_x86_64.whl'),
    wheel('intel_cmplr_lib_ur-2026.3.0-py2.py3-none-manylinux_2_38_aarch64.whl'),
    wheel('intel_cmplr_lib_ur-2026.2.0-py2.py3-none-win_amd64.whl'),
  ];

  it('the wheel chosen is the newest that loads here; each newer one says the glibc its manylinux tag needs', () => {
    expect(parseWheelFilename(selectWheel(files, 'intel-cmplr-lib-ur', linux)!.filename)!.version).toBe('2025.3.2');
    // 2026.3.0 has a wheel for another architecture only: nothing this host's glibc could change.
    expect(newerNeedingGlibc(files, 'intel-cmplr-lib-ur', linux, '2025.3.2')).toEqual(['2026.2.0 needs glibc 2.38']);
    expect(newerNeedingGlibc(files, 'intel-cmplr-lib-ur', { ...linux, glibc: '2.39' }, '2026.2.0')).toEqual([]);
    expect(newerNeedingGlibc(files, 'intel-cmplr-lib-ur', { ...linux, glibc: undefined }, '2025.3.2')).toEqual([]);
  });
});
