// The github kind's readers on text shaped like the real documents: a compute-runtime `ww<WW>.sum` (sha256sum's
// output), `manifests/manifest.yml` as compute-runtime writes it at a release tag, and the REST API's release JSON.
import { describe, expect, it } from 'vitest';
import { github, parsePinsFile, parseReleases, parseSumList, versionOfRevision } from '../../src/kinds/github.js';

const SUM_URL = 'https://github.com/intel/compute-runtime/releases/download/25.48.36300.8/ww48.sum';
const A = 'a'.repeat(64);
const B = '0123456789abcdef'.repeat(4);
const C = 'C'.repeat(64);

/** As `sha256sum *.deb *.ddeb > ww48.sum` writes it: two spaces, one file a line, debug packages too. */
const SUM_TEXT = [
  `${A}  intel-ocloc-dbgsym_25.48.36300.8-0_amd64.ddeb`,
  `${B}  intel-ocloc_25.48.36300.8-0_amd64.deb`,
  `${C}  libigdgmm12_22.8.2_amd64.deb`,
  `${A} *libze-intel-gpu1_25.48.36300.8-0_amd64.deb`,
  '',
].join('\n');

/** compute-runtime's manifests/manifest.yml at tag 25.48.36300.8, in its own format (fields and order as that file has them). */
const MANIFEST_YML = `components:
  aub_stream:
    branch: master
    dest_dir: aub_stream
    repository: https://github.com/intel/aubstream
    revision: 89e7a01d4c1bc9c754da0503f402396807932bee
    type: git
  gmmlib:
    asset_name: gmmlib
    dest_dir: gmmlib
    type: git
    branch: master
    revision: intel-gmmlib-22.8.2
    repository: https://github.com/intel/gmmlib.git
  igc:
    asset_name: igc
    dest_dir: igc
    type: git
    branch: releases/2.24.x
    revision: v2.24.8
    repository: https://github.com/intel/intelgraphicscompiler
  igsc:
    asset_name: igsc
    dest_dir: igsc
    type: git
    branch: master
    revision: V0.9.5
    repository: https://github.com/intel/igsc.git
    component_version: 301
  internal:
    branch: master
    dest_dir: internal
    revision: FETCH_HEAD
    type: git
  level_zero:
    asset_name: level_zero
    dest_dir: level_zero
    type: git
    branch: master
    revision: v1.26.0
    repository: https://github.com/oneapi-src/level-zero
converter: M-2061
version: '1'
`;

describe('the ww<WW>.sum list', () => {
  it('reads sha256sum lines, text and binary mode, into name -> lowercase sha256', () => {
    const sums = parseSumList(SUM_TEXT, SUM_URL);
    expect(sums.get('intel-ocloc_25.48.36300.8-0_amd64.deb')).toBe(B);
    expect(sums.get('libigdgmm12_22.8.2_amd64.deb')).toBe('c'.repeat(64));
    expect(sums.get('libze-intel-gpu1_25.48.36300.8-0_amd64.deb')).toBe(A);
    expect(sums.size).toBe(4);
  });

  it('reads CRLF line ends as the same list', () => {
    expect(parseSumList(SUM_TEXT.replace(/\n/g, '\r\n'), SUM_URL)).toEqual(parseSumList(SUM_TEXT, SUM_URL));
  });

  it('refuses a line that is not "<sha256>  <name>", naming the list and the line (a short hash, a note)', () => {
    expect(() => parseSumList(`${A.slice(1)}  intel-ocloc_25.48.36300.8-0_amd64.deb\n`, SUM_URL)).toThrow(/ww48\.sum line 1 is not "<sha256>  <file name>"/);
    expect(() => parseSumList(`${SUM_TEXT}See the release notes for checksums\n`, SUM_URL)).toThrow(/line 5/);
  });
});

describe("compute-runtime's manifests/manifest.yml", () => {
  it('reads each component with its fields, the top-level scalars left out', () => {
    const pins = parsePinsFile(MANIFEST_YML, 'manifest.yml');
    expect([...pins.keys()]).toEqual(['aub_stream', 'gmmlib', 'igc', 'igsc', 'internal', 'level_zero']);
    expect(pins.get('igc')).toEqual({ asset_name: 'igc', dest_dir: 'igc', type: 'git', branch: 'releases/2.24.x', revision: 'v2.24.8', repository: 'https://github.com/intel/intelgraphicscompiler' });
    expect(pins.get('gmmlib')?.revision).toBe('intel-gmmlib-22.8.2');
    expect(pins.get('igsc')?.component_version).toBe('301');
  });

  it('gives the release number of a release revision and none of a commit or a branch', () => {
    expect(versionOfRevision('v2.24.8')).toBe('2.24.8');
    expect(versionOfRevision('intel-gmmlib-22.8.2')).toBe('22.8.2');
    expect(versionOfRevision('igc-1.0.12504.6')).toBe('1.0.12504.6');
    expect(versionOfRevision('89e7a01d4c1bc9c754da0503f402396807932bee')).toBeUndefined();
    expect(versionOfRevision('FETCH_HEAD')).toBeUndefined();
  });

  it('refuses a file without a components mapping', () => {
    expect(() => parsePinsFile("converter: M-2061\nversion: '1'\n", 'manifest.yml')).toThrow(/has no "components:" mapping/);
  });
});

describe('the REST API release documents', () => {
  const URL_ = 'https://api.github.com/repos/intel/compute-runtime/releases?per_page=100';
  const asset = (name: string, digest: string | null) => ({
    url: `https://api.github.com/repos/intel/compute-runtime/releases/assets/1`,
    id: 1,
    name,
    label: '',
    content_type: 'application/vnd.debian.binary-package',
    state: 'uploaded',
    size: 4096,
    digest,
    browser_download_url: `https://github.com/intel/compute-runtime/releases/download/25.48.36300.8/${name}`,
  });

  it('reads tag_name, draft, prerelease and each asset with its download URL, size and digest (null: none)', () => {
    const doc = [{ tag_name: '25.48.36300.8', draft: false, prerelease: false, assets: [asset('ww48.sum', `sha256:${B}`), asset('intel-ocloc_25.48.36300.8-0_amd64.deb', null)] }];
    const [r] = parseReleases(JSON.stringify(doc), URL_);
    expect(r).toEqual({
      tag: '25.48.36300.8',
      draft: false,
      prerelease: false,
      assets: [
        { name: 'ww48.sum', url: 'https://github.com/intel/compute-runtime/releases/download/25.48.36300.8/ww48.sum', size: 4096, digest: `sha256:${B}` },
        { name: 'intel-ocloc_25.48.36300.8-0_amd64.deb', url: 'https://github.com/intel/compute-runtime/releases/download/25.48.36300.8/intel-ocloc_25.48.36300.8-0_amd64.deb', size: 4096 },
      ],
    });
  });

  it('reads one release (/releases/tags/{tag}) as a list of one', () => {
    expect(parseReleases(JSON.stringify({ tag_name: 'v2.24.8', assets: [] }), URL_).map((r) => r.tag)).toEqual(['v2.24.8']);
  });

  it('refuses a download URL that steps down from https, and a document that is no release', () => {
    const doc = [{ tag_name: 'x', assets: [{ ...asset('a.deb', null), browser_download_url: 'http://example.com/a.deb' }] }];
    expect(() => parseReleases(JSON.stringify(doc), URL_)).toThrow(/step down from https/);
    expect(() => parseReleases('{"message":"Not Found"}', URL_)).toThrow(/not a GitHub release document/);
  });
});

describe('the github kind', () => {
  const bad = (what: string) => new Error(what);
  const spec = { kind: 'github' as const, repository: 'intel/compute-runtime', sums: 'ww{ww}.sum', assets: ['intel-ocloc_{tag}-0_amd64.deb'], map: [] };

  it('names the API it reads: GitHub by default, --github-url in its place', () => {
    expect(github.indexes(spec, {})).toEqual(['https://api.github.com/']);
    expect(github.indexes(spec, { githubUrl: 'https://ghe.example.com/api/v3/' })).toEqual(['https://ghe.example.com/api/v3/']);
    expect(github.option?.values('https://api.github.com')).toEqual([]);
    expect(github.option?.values('https://mirror.example.com/gh')).toEqual(['https://mirror.example.com/gh']);
  });

  it('refuses an entry without owner/name, a sum list or archive names, and "with" without "pins"', () => {
    expect(() => github.validate({ ...spec, repository: 'compute-runtime' }, bad)).toThrow(/owner\/name/);
    expect(() => github.validate({ ...spec, sums: '' }, bad)).toThrow(/sums/);
    expect(() => github.validate({ ...spec, assets: ['notes.txt'] }, bad)).toThrow(/archive names/);
    expect(() => github.validate({ ...spec, with: [{ component: 'igc', repository: 'intel/intel-graphics-compiler', assets: ['a_{version}.deb'] }] }, bad)).toThrow(/needs "pins"/);
    expect(() => github.validate(spec, bad)).not.toThrow();
  });
});
