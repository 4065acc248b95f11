// Fault matrix, GitHub release documents: a local server shaped like the REST API on 127.0.0.1 answers with hostile
// release lists and pins files; the CLI plans the GPU driver from it as a process.
import * as fs from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, scrubbedEnv, tempDir } from '../e2e/cli.js';
import { FaultTable } from './matrix.js';

const table = new FaultTable('fault matrix: GitHub release documents (CLI as a process, a local API on 127.0.0.1)');
let work: string;
let server: Server;
let base: string;
/** What the server answers for the case now running, and the paths it was asked for. */
let answer: { releases: () => Buffer; pins?: () => string } = { releases: () => Buffer.from('[]') };
let asked: string[] = [];

const release = (tag: string, assets: { name: string }[]) => ({ tag_name: tag, draft: false, prerelease: false, assets: assets.map((a) => ({ ...a, browser_download_url: `${base}/dl/${encodeURIComponent(a.name)}` })) });

beforeAll(async () => {
  work = await tempDir('github-faults');
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    asked.push(url);
    if (url.startsWith('/repos/intel/compute-runtime/releases?')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(answer.releases());
    if (url.startsWith('/repos/intel/compute-runtime/contents/manifests/manifest.yml') && answer.pins) return void res.writeHead(200).end(answer.pins());
    res.writeHead(404).end('{"message":"Not Found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  table.print();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  if (work) await fs.rm(work, { recursive: true, force: true });
});

interface Case {
  name: string;
  releases: () => Buffer;
  pins?: () => string;
  exit: number;
  /** A damaged document fails its source (SOURCE_FAILED, the document's own error as its cause); a limit is TOO_LARGE. */
  code: string;
  says: RegExp;
  maxRssMb?: number;
  /** The most requests the run may make of the API. */
  maxRequests?: number;
}

const SUM = { name: 'ww07.sum' };
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
];

describe('fault matrix: GitHub release documents', () => {
  it.for(CASES)('$name', async (c) => {
    answer = { releases: c.releases, pins: c.pins };
    asked = [];
    const dir = await fs.mkdtemp(path.join(work, 'case-'));
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
    // Never raw: no ESC, CR or C1 control reaches the terminal, and no stack trace.
    expect(r.stderr).not.toMatch(/[\u001b\r\u0080-\u009f]/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at .*\(.*:\d+:\d+\)/);
    expect(ms).toBeLessThan(20_000);
    if (c.maxRssMb) expect(peak).toBeLessThan(c.maxRssMb);
    if (c.maxRequests) expect(asked.length).toBeLessThanOrEqual(c.maxRequests);
    expect(await fs.stat(path.join(dir, 'prefix')).then(() => true, () => false)).toBe(false);
  });
});
