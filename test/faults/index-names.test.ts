// Fault matrix, names an index hands out: control characters (C0, ESC, CR/LF, DEL, C1) in conda repodata (full file and
// shards), PyPI project pages (PEP 691 JSON, PEP 503 HTML, the /pypi JSON API) and apt's package lists (a private apt
// configuration whose list the run reads); the CLI as a process plans from each and must refuse, the name shown escaped.
import { encode } from '@msgpack/msgpack';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, scrubbedEnv } from '../e2e/cli.js';
import { withFixtureRun } from '../support/fixture-run.js';
import { serveLocal, type LocalServer } from '../support/static-server.js';
import { buildFixturePackages, zstdCompress, type FixturePackages } from '../support/packages.js';
import { aptRepository } from './hostile.js';
import { FaultTable } from './matrix.js';

const table = new FaultTable('fault matrix: control characters in index-given names (plan --json, CLI as a process)');
const fx = withFixtureRun('faults-names', { noIndex: true });
let fixtures: FixturePackages;
let server: LocalServer;
let base: string;
let routes = new Map<string, { body: Buffer; type?: string }>();

beforeAll(async () => {
  fixtures = await buildFixturePackages();
  server = await serveLocal((req, res) => {
    const r = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!r) return void res.writeHead(404, { 'content-length': 0 }).end();
    res.writeHead(200, { 'content-length': r.body.length, 'content-type': r.type ?? 'application/octet-stream' }).end(r.body);
  });
  base = server.url;
}, 300_000);

afterAll(async () => {
  table.print();
  await server?.close();
});

/** The real level-zero and level-zero-devel records (bookworm's), keyed by file name; `edit` alters level-zero's. */
function l0Records(edit: (r: Record<string, unknown>) => void): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const a of fixtures.artifacts.filter((x) => x.format === 'conda' && x.platform === 'linux-x64' && x.version === fixtures.l0Versions.bookworm && (x.name === 'level-zero' || x.name === 'level-zero-devel'))) {
    const rec: Record<string, unknown> = { ...a.conda, sha256: a.sha256, md5: a.md5, size: a.size };
    if (a.name === 'level-zero') edit(rec);
    out[a.filename] = rec;
  }
  return out;
}

async function fullChannel(records: Record<string, Record<string, unknown>>): Promise<void> {
  const doc = { info: { subdir: 'linux-64' }, packages: {}, 'packages.conda': records };
  routes.set('/ch/linux-64/repodata.json', { body: Buffer.from(JSON.stringify(doc)), type: 'application/json' });
}

async function shardedChannel(records: Record<string, Record<string, unknown>>): Promise<void> {
  const sha = (b: Buffer) => createHash('sha256').update(b).digest();
  const shards: Record<string, Uint8Array> = {};
  for (const name of new Set(Object.values(records).map((r) => String(r.name)))) {
    const mine = Object.fromEntries(Object.entries(records).filter(([, r]) => r.name === name).map(([f, r]) => [f, { ...r, sha256: Buffer.from(String(r.sha256), 'hex'), md5: Buffer.from(String(r.md5), 'hex') }]));
    const body = await zstdCompress(Buffer.from(encode({ packages: {}, 'packages.conda': mine, removed: [] })));
    shards[name] = sha(body);
    routes.set(`/ch/linux-64/shards/${sha(body).toString('hex')}.msgpack.zst`, { body });
  }
  routes.set('/ch/linux-64/repodata_shards.msgpack.zst', { body: await zstdCompress(Buffer.from(encode({ info: { subdir: 'linux-64', base_url: './', shards_base_url: './shards/' }, shards }))) });
}

const WHEEL = 'intel_cmplr_lib_ur-2025.3.2-py2.py3-none-manylinux_2_28_x86_64.whl';
const SHA = 'a'.repeat(64);

const stanza = (pkg: string, version: string, file = `${pkg}_1.99.0-1_amd64.deb`) =>
  `Package: ${pkg}\nSource: level-zero\nVersion: ${version}\nArchitecture: amd64\nDepends: libc6 (>= 2.34)\nFilename: pool/main/l/level-zero/${file}\nSize: 1000\nSHA256: ${SHA}\nDescription: oneAPI Level Zero\n\n`;

interface Case {
  name: string;
  /** Sets the routes (or an apt root) up; returns the CLI's source arguments and environment. */
  serve: (dir: string) => Promise<{ args: string[]; env?: Record<string, string> }>;
  /** What stderr must say: the document, the field and the name escaped. */
  says: RegExp;
}

const conda = ['--component', 'level-zero', '--source', 'conda', '--conda-channel'];
const pypi = ['--component', 'unified-runtime', '--source', 'pypi', '--require', 'unified-runtime<2026', '--index-url'];
const CASES: Case[] = [
  { name: 'repodata.json: a version ending in ESC [2J (clears the screen)', says: /repodata\.json: packages\.conda\["level-zero-[^"]+\.conda"\]\.version holds a control character: "1\.8\.12\\x1b\[2J"/,
    serve: async () => (routes = new Map(), await fullChannel(l0Records((r) => void (r.version = '1.8.12\u001b[2J'))), { args: [...conda, `${base}/ch`] }) },
  { name: 'repodata.json: a depends entry with CR LF and a forged plan line', says: /\.depends\[\d+\] holds a control character: "libstdcxx >=12\\x0d\\x0a\+ level-zero 99\.0 from conda"/,
    serve: async () => (routes = new Map(), await fullChannel(l0Records((r) => void (r.depends = [...(r.depends as string[]), 'libstdcxx >=12\r\n+ level-zero 99.0 from conda']))), { args: [...conda, `${base}/ch`] }) },
  { name: 'shard: a build string holding C1 CSI (U+009B) and DEL', says: /repodata_shards\.msgpack\.zst|shards\/[0-9a-f]{64}\.msgpack\.zst: packages\.conda\[".*"\]\.build holds a control character: "h0\\x9b2J\\x7f_0"/,
    serve: async () => (routes = new Map(), await shardedChannel(l0Records((r) => void (r.build = 'h0\u009b2J\u007f_0'))), { args: [...conda, `${base}/ch`] }) },
  { name: 'PEP 691 JSON page: a file name holding ESC ]0; (sets the window title)', says: /intel-cmplr-lib-ur\/: file 1\.filename holds a control character: "intel_cmplr_lib_ur-2025\.3\.2\\x1b\]0;owned\\x07-py2/,
    serve: async () => {
      routes = new Map();
      const filename = WHEEL.replace('2025.3.2-', '2025.3.2\u001b]0;owned\u0007-');
      routes.set('/simple/intel-cmplr-lib-ur/', { type: 'application/vnd.pypi.simple.v1+json', body: Buffer.from(JSON.stringify({ meta: { 'api-version': '1.1' }, name: 'intel-cmplr-lib-ur', files: [{ filename, url: `../../files/${WHEEL}`, hashes: { sha256: SHA } }] })) });
      return { args: [...pypi, `${base}/simple`] };
    } },
  { name: 'PEP 503 HTML page: a link text holding BS and NUL', says: /file 1\.filename holds a control character: "intel_cmplr_lib_ur\\x08\\x08\\x00-2025/,
    serve: async () => {
      routes = new Map();
      routes.set('/simple/intel-cmplr-lib-ur/', { type: 'text/html', body: Buffer.from(`<html><body><a href="../../files/${WHEEL}#sha256=${SHA}">${WHEEL.replace('ur-', 'ur\u0008\u0008\u0000-')}</a></body></html>`) });
      return { args: [...pypi, `${base}/simple`] };
    } },
  { name: '/pypi JSON API: a yank reason with CR LF', says: /intel-cmplr-lib-ur\/json: file 1\.yankedReason holds a control character: "broken\\x0d\\x0a\+ unified-runtime/,
    serve: async () => {
      routes = new Map();
      routes.set('/pypi/intel-cmplr-lib-ur/json', { type: 'application/json', body: Buffer.from(JSON.stringify({ releases: { '2025.3.2': [{ filename: WHEEL, url: `${base}/files/${WHEEL}`, digests: { sha256: SHA }, yanked: true, yanked_reason: 'broken\r\n+ unified-runtime 99.0 from pypi' }] } })) });
      return { args: [...pypi, `${base}/pypi`] };
    } },
  { name: "apt's lists: a Version holding ESC [2J", says: /apt's package lists \(apt-cache show\): package "libze1"\.version holds a control character: "1\.99\.0-1\\x1b\[2J"/,
    serve: async (dir) => ({ args: ['--component', 'level-zero', '--source', 'apt'], env: { APT_CONFIG: await aptRepository(path.join(dir, 'apt'), stanza('libze1', '1.99.0-1\u001b[2J') + stanza('libze-dev', '1.99.0-1', 'libze1 (= 1.99.0-1)')) } }) },
  // apt refuses a control character in a relation itself; a Filename it passes on as it is.
  { name: "apt's lists: a Filename holding ESC ]0; (the cache's file name)", says: /package "libze-dev"\.filename holds a control character: "pool\/main\/l\/level-zero\/libze-dev\\x1b\]0;owned\\x07_1\.99\.0-1_amd64\.deb"/,
    serve: async (dir) => ({ args: ['--component', 'level-zero', '--source', 'apt'], env: { APT_CONFIG: await aptRepository(path.join(dir, 'apt'), stanza('libze1', '1.99.0-1') + stanza('libze-dev', '1.99.0-1', 'libze-dev\u001b]0;owned\u0007_1.99.0-1_amd64.deb')) } }) },
];

describe('fault matrix: control characters in index-given names', () => {
  it.for(CASES)('$name', async (c) => {
    const dir = await fs.mkdtemp(fx.at('case-'));
    const { args, env } = await c.serve(dir);
    const t0 = Date.now();
    const r = await runCli(['plan', '--platform', 'linux-x64', '--json', '--cache-dir', path.join(dir, 'cache'), ...args], scrubbedEnv(path.join(dir, 'home'), env));
    const ms = Date.now() - t0;
    const doc = JSON.parse(r.stdout || '{}') as { ok?: boolean; error?: { code?: string } };
    table.add({ case: c.name, exit: r.exitCode, code: doc.ok ? '-' : (doc.error?.code ?? '?'), ms, outside: 'unchanged' });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr.replace(/\n\s+/g, ' ')).toMatch(c.says);
    // Never raw: nothing the index named reaches the terminal as a control character.
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});
