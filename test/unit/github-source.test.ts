// The github kind's readers on text shaped like the real documents: a compute-runtime `ww<WW>.sum` (sha256sum's
// output), `manifests/manifest.yml` as compute-runtime writes it at a release tag, and the REST API's release JSON.
import { describe, expect, it } from 'vitest';
import { XpuError } from '../../src/base/errors.js';
import type { Host } from '../../src/platform/types.js';
import { DEFAULT_INDEX_LIMITS } from '../../src/net/config.js';
import { github, parsePinsFile, parseReleases, parseSumList, resolveGithub, versionOfRevision, type GithubSourceSpec } from '../../src/kinds/github.js';
import { NotAvailable, type SourceContext } from '../../src/kinds/kind.js';
import { silentReporter } from '../../src/base/reporter.js';
import type { Gateway } from '../../src/index/gateway.js';
import { parseConstraint } from '../../src/versions/order.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';

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
    const [r] = parseReleases(Buffer.from(JSON.stringify(doc)), URL_, DEFAULT_INDEX_LIMITS);
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
    expect(parseReleases(Buffer.from(JSON.stringify({ tag_name: 'v2.24.8', assets: [] })), URL_, DEFAULT_INDEX_LIMITS).map((r) => r.tag)).toEqual(['v2.24.8']);
  });

  it('refuses a download URL that steps down from https, and a document that is no release', () => {
    const doc = [{ tag_name: 'x', assets: [{ ...asset('a.deb', null), browser_download_url: 'http://example.com/a.deb' }] }];
    expect(() => parseReleases(Buffer.from(JSON.stringify(doc)), URL_, DEFAULT_INDEX_LIMITS)).toThrow(/step down from https/);
    expect(() => parseReleases(Buffer.from('{"message":"Not Found"}'), URL_, DEFAULT_INDEX_LIMITS)).toThrow(/not a GitHub release document/);
  });
});

describe('the github kind', () => {
  const bad = (what: string) => new Error(what);
  const spec = { kind: 'github' as const, repository: 'intel/compute-runtime', sums: 'ww{ww}.sum', assets: ['intel-ocloc_{tag}-0_amd64.deb'], map: [] };

  it('names the API it reads: GitHub by default, --github-url in its place', () => {
    expect(github.indexes(spec, {})).toEqual(['https://api.github.com/']);
    expect(github.indexes(spec, { github: ['https://ghe.example.com/api/v3/'] })).toEqual(['https://ghe.example.com/api/v3/']);
    expect(github.optionValues?.('https://api.github.com')).toEqual([]);
    expect(github.optionValues?.('https://mirror.example.com/gh')).toEqual(['https://mirror.example.com/gh']);
  });

  it('refuses an entry without owner/name, a sum list or archive names, and "with" without "pins"', () => {
    expect(() => github.validate({ ...spec, repository: 'compute-runtime' }, bad)).toThrow(/owner\/name/);
    expect(() => github.validate({ ...spec, sums: '' }, bad)).toThrow(/sums/);
    expect(() => github.validate({ ...spec, assets: ['notes.txt'] }, bad)).toThrow(/archive names/);
    expect(() => github.validate({ ...spec, with: [{ component: 'igc', repository: 'intel/intel-graphics-compiler', assets: ['a_{version}.deb'] }] }, bad)).toThrow(/needs "pins"/);
    expect(() => github.validate(spec, bad)).not.toThrow();
  });
});

describe('resolve, through a stand-in gateway that answers from a table of URLs (a test double)', () => {
  const API = 'https://api.github.com';
  const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: true };
  const dl = (tag: string, name: string) => `https://github.com/intel/compute-runtime/releases/download/${tag}/${name}`;
  const rel = (tag: string, names: string[], extra: Record<string, unknown> = {}) => ({
    tag_name: tag,
    draft: false,
    prerelease: false,
    assets: names.map((name) => ({ name, size: 10, digest: null, browser_download_url: dl(tag, name) })),
    ...extra,
  });
  const debs = (tag: string) => [`intel-ocloc_${tag}-0_amd64.deb`, 'libigdgmm12_22.8.2_amd64.deb'];
  const pins = MANIFEST_YML;
  const spec: GithubSourceSpec = { kind: 'github', repository: 'intel/compute-runtime', sums: 'ww{ww}.sum', assets: ['intel-ocloc_{tag}-0_amd64.deb', 'libigdgmm12_{gmmlib}_amd64.deb'], pins: 'manifests/manifest.yml', map: [] };
  /** Answers GET url from the table; any other URL is a 404, as the API says it. */
  const stand = (table: Record<string, string>): { ctx: SourceContext; asked: string[] } => {
    const asked: string[] = [];
    const bytes = async (url: string) => {
      asked.push(url);
      if (!(url in table)) throw new XpuError('NOT_FOUND', `GET ${url} answered HTTP 404`, { details: { url, status: 404 } });
      return { bytes: Buffer.from(table[url]!), meta: { contentType: '', outcome: 'downloaded' as const } };
    };
    const gateway = { client: { bytes } } as unknown as Gateway;
    return { ctx: { host, deps: fakeDeps({ platform: 'linux' }), reporter: silentReporter, gateway, indexes: {} }, asked };
  };
  const list = `${API}/repos/intel/compute-runtime/releases?per_page=100`;
  const pinsAt = (tag: string) => `${API}/repos/intel/compute-runtime/contents/manifests/manifest.yml?ref=${tag}`;
  const sum = (tag: string, week: string) => ({ [dl(tag, `ww${week}.sum`)]: debs(tag).map((n, i) => `${String(i).repeat(64)}  ${n}\n`).join('') });

  it('passes over pre-releases, tags that are not dotted numbers, releases without their sum list or pins file, and says why', async () => {
    const { ctx } = stand({
      [list]: JSON.stringify([
        rel('26.31.39395.13', [...debs('26.31.39395.13'), 'ww31.sum'], { prerelease: true }),
        rel('26.27.39122.14-legacy1', [...debs('26.27.39122.14-legacy1'), 'ww27.sum']),
        rel('26.22.38646.7', debs('26.22.38646.7')),
        rel('26.18.38308.1', [...debs('26.18.38308.1'), 'ww18.sum']),
        rel('25.48.36300.8', [...debs('25.48.36300.8'), 'ww48.sum']),
      ]),
      [pinsAt('25.48.36300.8')]: pins,
      ...sum('25.48.36300.8', '48'),
    });
    const r = await resolveGithub(spec, ctx);
    expect(r.version).toBe('25.48.36300.8');
    expect(r.archives.map((a) => [a.filename, a.sha256])).toEqual([
      ['intel-ocloc_25.48.36300.8-0_amd64.deb', '0'.repeat(64)],
      ['libigdgmm12_22.8.2_amd64.deb', '1'.repeat(64)],
    ]);
    expect(r.origin).toBe(API);
  });

  it('orders tags by number, not text (25.5 before 25.48), and keeps to --require', async () => {
    const tags = ['25.5.32567.17', '25.48.36300.8', '25.13.33276.16'];
    const table: Record<string, string> = { [list]: JSON.stringify(tags.map((t) => rel(t, [...debs(t), `ww${t.split('.')[1]}.sum`]))) };
    for (const t of tags) Object.assign(table, { [pinsAt(t)]: pins }, sum(t, t.split('.')[1]!));
    expect((await resolveGithub(spec, stand(table).ctx)).version).toBe('25.48.36300.8');
    const floor = [parseConstraint('gpu-driver<25.40')];
    expect((await resolveGithub(spec, { ...stand(table).ctx, constraints: floor })).version).toBe('25.13.33276.16');
  });

  it('says what each newest release lacked when none fits', async () => {
    const { ctx } = stand({ [list]: JSON.stringify([rel('26.18.38308.1', debs('26.18.38308.1')), rel('25.48.36300.8', ['ww48.sum'])]), [pinsAt('25.48.36300.8')]: pins });
    const e = await resolveGithub(spec, ctx).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotAvailable);
    expect((e as NotAvailable).reason).toBe('release 26.18.38308.1 has no sum list ww18.sum; release 25.48.36300.8 has no asset intel-ocloc_25.48.36300.8-0_amd64.deb, libigdgmm12_22.8.2_amd64.deb');
  });

  it('reads the API --github-url names in place of GitHub\'s', async () => {
    const mirror = 'https://ghe.example.com/api/v3';
    const { ctx, asked } = stand({});
    await expect(resolveGithub(spec, { ...ctx, indexes: { github: [`${mirror}/`] } })).rejects.toThrow(NotAvailable);
    expect(asked).toEqual([`${mirror}/repos/intel/compute-runtime/releases?per_page=100`]);
  });
});
