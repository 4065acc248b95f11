// Fault matrix, GitHub release documents: a local server shaped like the REST API on 127.0.0.1 answers with hostile
// release lists and pins files; the CLI plans the GPU driver from it as a process.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, scrubbedEnv } from '../e2e/cli.js';
import { withFixtureRun } from '../support/fixture-run.js';
import { serveLocal, type LocalServer } from '../support/static-server.js';
import { FaultTable } from './matrix.js';

const table = new FaultTable('fault matrix: GitHub release documents (CLI as a process, a local API on 127.0.0.1)');
const fx = withFixtureRun('github-faults', { noIndex: true });
let server: LocalServer;
let base: string;
/** What the server answers for the case now running, and the paths it was asked for. */
let answer: { releases: () => Buffer; pins?: () => string; files?: Record<string, string> } = { releases: () => Buffer.from('[]') };
let asked: string[] = [];

const release = (tag: string, assets: { name: string }[]) => ({ tag_name: tag, draft: false, prerelease: false, assets: assets.map((a) => ({ ...a, browser_download_url: `${base}/dl/${encodeURIComponent(a.name)}` })) });

beforeAll(async () => {
  server = await serveLocal((req, res) => {
    const url = req.url ?? '/';
    asked.push(url);
    if (url.startsWith('/repos/intel/compute-runtime/releases?')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(answer.releases());
    if (url.startsWith('/repos/intel/compute-runtime/contents/manifests/manifest.yml') && answer.pins) return void res.writeHead(200).end(answer.pins());
    const file = url.startsWith('/dl/') ? answer.files?.[decodeURIComponent(url.slice(4))] : undefined;
    if (file !== undefined) return void res.writeHead(200).end(file);
    res.writeHead(404).end('{"message":"Not Found"}');
  });
  base = server.url;
});

afterAll(async () => {
  table.print();
  await server?.close();
});

interface Case {
  name: string;
  releases: () => Buffer;
  pins?: () => string;
  /** Release assets the server answers, by name. */
  files?: Record<string, string>;
  exit: number;
  /** A damaged document fails its source (SOURCE_FAILED, the document's own error as its cause); a limit is TOO_LARGE. */
  code: string;
  says: RegExp;
  /** What stderr must not say (the wrong cause). */
  notSays?: RegExp;
  maxRssMb?: number;
  /** The most requests the run may make of the API. */
  maxRequests?: number;
}

const SUM = { name: 'ww07.sum' };
const TAG = '23.07.25000.1';
const DEBS = [...['libze-intel-gpu1', 'intel-opencl-icd', 'intel-ocloc'].map((n) => `${n}_${TAG}-0_amd64.deb`), 'libigdgmm12_22.3.3_amd64.deb'];
const sums = (names: string[]) => names.map((n, i) => `${String(i + 1).repeat(64).slice(0, 64)}  ${n}\n`).join('');
/** A release whose own assets are all there (its sum list listing them); what goes with it (gmmlib, IGC) is not. */
const withSums = () => Buffer.from(JSON.stringify([release(TAG, [SUM, ...DEBS.map((name) => ({ name }))])]));
const PINS = 'components:\n  gmmlib:\n    revision: intel-gmmlib-22.3.3\n    repository: intel/gmmlib\n  igc:\n    revision: igc-1.0.12504.6\n    repository: intel/intel-graphics-compiler\n';
const CASES: Case[] = [
  { name: '4,000 releases that fit, none with a manifest.yml', exit: 1, code: 'TOO_LARGE', says: /tried no more than 30.*XPU_SETUP_MAX_CANDIDATES/s, maxRequests: 40,
    releases: () => Buffer.from(JSON.stringify(Array.from({ length: 4000 }, (_, i) => release(`23.07.${30000 + i}.1`, [SUM])))) },
  { name: 'a release list of 90 MB (one tag_name of padding)', exit: 1, code: 'TOO_LARGE', says: /more than 67108864 bytes.*XPU_SETUP_MAX_JSON_BYTES/s, maxRssMb: 450,
    releases: () => Buffer.from(JSON.stringify([{ ...release('23.07.1.1', [SUM]), body: 'p'.repeat(90 << 20) }])) },
  { name: 'a release list nested 200,000 arrays deep', exit: 1, code: 'TOO_LARGE', says: /nests arrays and objects more than 32.*XPU_SETUP_MAX_NESTING/s,
    releases: () => Buffer.from(`[${'['.repeat(200_000)}${']'.repeat(200_000)}]`) },
  { name: 'manifest.yml: a line of 400,000 spaces and one letter', exit: 1, code: 'SOURCE_FAILED', says: /manifest\.yml.* line 2 is not "key: value"/,
    releases: () => Buffer.from(JSON.stringify([release('23.07.1.1', [SUM])])), pins: () => `components:\n${' '.repeat(400_000)}x\n` },
  { name: 'an asset named with ESC [2J, CR and LF (a forged plan line)', exit: 1, code: 'SOURCE_FAILED', says: /\[0\]\.assets\[1\]\.name holds a control character: "intel-ocloc\\x1b\[2J\\x0d\\x0a\+ gpu-driver 99/,
    releases: () => Buffer.from(JSON.stringify([release('23.07.1.1', [SUM, { name: 'intel-ocloc\u001b[2J\r\n+ gpu-driver 99.0 from github_amd64.deb' }])])) },
  { name: 'a tag_name holding a C1 control (U+009B, CSI)', exit: 1, code: 'SOURCE_FAILED', says: /tag_name holds a control character: "23\.07\.1\.1\\x9b31m"/,
    releases: () => Buffer.from(JSON.stringify([release('23.07.1.1\u009b31m', [SUM])])) },
  { name: 'a sum list saved with a UTF-8 BOM: read as the same list', exit: 1, code: 'NO_SOURCE', says: /pins igc igc-1\.0\.12504\.6, and intel\/intel-graphics-compiler has no release/, notSays: /is not "<sha256>  <file name>"/,
    releases: withSums, pins: () => PINS, files: { 'ww07.sum': `\ufeff${sums(DEBS)}` } },
  { name: 'a sum list with a zero-width space in line 2: refused, the character shown', exit: 1, code: 'SOURCE_FAILED', says: /ww07\.sum line 2 is not "<sha256>  <file name>": "2{64} \\u200b intel-opencl-icd/,
    releases: withSums, pins: () => PINS, files: { 'ww07.sum': sums(DEBS).replace(`  ${DEBS[1]}`, ` \u200b ${DEBS[1]}`) } },
  { name: "manifest.yml in the contents API's JSON form (base64): read as the file", exit: 1, code: 'NO_SOURCE', says: /pins igc igc-1\.0\.12504\.6, and intel\/intel-graphics-compiler has no release/, notSays: /not "key: value"/,
    releases: withSums, files: { 'ww07.sum': sums(DEBS) },
    pins: () => JSON.stringify({ type: 'file', encoding: 'base64', name: 'manifest.yml', path: 'manifests/manifest.yml', content: Buffer.from(PINS).toString('base64').replace(/(.{60})/g, '$1\n') }) },
  { name: "manifest.yml as the contents API's JSON without content (encoding none)", exit: 1, code: 'SOURCE_FAILED', says: /manifest\.yml\?ref=.* answered with the contents API's JSON form, but not a file in base64 \(type "file", encoding "none"\)/, notSays: /not "key: value"/,
    releases: withSums, files: { 'ww07.sum': sums(DEBS) }, pins: () => JSON.stringify({ type: 'file', encoding: 'none', content: '' }) },
];

describe('fault matrix: GitHub release documents', () => {
  it.for(CASES)('$name', async (c) => {
    answer = { releases: c.releases, pins: c.pins, files: c.files };
    asked = [];
    const dir = await fs.mkdtemp(fx.at('case-'));
    const t0 = Date.now();
    const r = await runCli(
      ['--component', 'gpu-driver', '--source', 'github', '--github-url', base, '--prefix', path.join(dir, 'prefix'), '--cache-dir', path.join(dir, 'cache'), '--dry-run', '--json'],
      scrubbedEnv(path.join(dir, 'home')),
      { peakRss: true, timeoutMs: 60_000 },
    );
    const ms = Date.now() - t0;
    const doc = JSON.parse(r.stdout || '{}') as { ok?: boolean; error?: { code?: string; message?: string } };
    const peak = Math.round((r.peakRssKb ?? 0) / 1024);
    table.add({ case: c.name, exit: r.exitCode, code: doc.ok ? '-' : (doc.error?.code ?? '?'), ms, outside: `${asked.length} requests, peak ${peak} MiB` });
    expect({ exit: r.exitCode, code: doc.ok ? '-' : doc.error?.code }, r.stderr).toEqual({ exit: c.exit, code: c.code });
    expect(r.stderr).toMatch(c.says);
    if (c.notSays) expect(r.stderr).not.toMatch(c.notSays);
    // Never raw: no ESC, CR or C1 control reaches the terminal, and no stack trace.
    expect(r.stderr).not.toMatch(/[\u001b\r\u0080-\u009f]/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at .*\(.*:\d+:\d+\)/);
    expect(ms).toBeLessThan(20_000);
    if (c.maxRssMb) expect(peak).toBeLessThan(c.maxRssMb);
    if (c.maxRequests) expect(asked.length).toBeLessThanOrEqual(c.maxRequests);
    expect(await fs.stat(path.join(dir, 'prefix')).then(() => true, () => false)).toBe(false);
  });
});
