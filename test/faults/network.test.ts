// Fault matrix, network: the CLI fetching a pinned archive from a misbehaving server on 127.0.0.1; one table line per case.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, scrubbedEnv } from '../e2e/cli.js';
import { withFixtureRun } from '../support/fixture-run.js';
import { deadPort, makeTestCa, sha256, startFaultyServer, startForwardProxy, type Behaviour, type FaultyServer } from '../support/faulty-server.js';
import { windowsDouble, zipBuffer } from '../support/packages.js';
import { compareSnapshots, FaultTable, makeSentinel, snapshotTree } from './matrix.js';

const table = new FaultTable('network faults (xpu-setup --platform win-x64 --source url, pinned 55 KB zip)');
const fx = withFixtureRun('faults-net', { noIndex: true });
let srv: FaultyServer;
let tlsSrv: FaultyServer;
let caFile: string;
let zip: Buffer;

beforeAll(async () => {
  // Random content, stored: the archive is as large as its payload (about 55 KB), so cuts and floods are measurable.
  zip = await zipBuffer(
    [
      { path: 'include/level_zero/ze_api.h', data: Buffer.from('/* fault-matrix fixture header */\n#pragma once\n') },
      { path: 'include/level_zero/payload.bin', data: randomBytes(55 * 1024) },
      { path: 'lib/ze_loader.lib', data: windowsDouble('ze_loader.lib', '1.21.9') },
    ],
    false,
  );
  srv = await startFaultyServer({ lifetimeMs: 600_000 });
  const ca = await makeTestCa(await fs.mkdtemp(fx.at('ca-')));
  caFile = ca.caFile;
  tlsSrv = await startFaultyServer({ tls: { key: ca.key, cert: ca.cert }, lifetimeMs: 600_000 });
}, 60_000);

afterAll(async () => {
  table.print();
  await srv?.close();
  await tlsSrv?.close();
});

interface Outcome {
  exit: number;
  code: string;
  ms: number;
  stderr: string;
  prefixExists: boolean;
}

let caseNo = 0;

/**
 * One CLI run fetching the pinned zip from a path scripted with `behaviours`. `again` runs once more in an earlier
 * case's directory (same cache, same URL), as a second run of the same command would.
 */
async function runCase(
  name: string,
  behaviours: Behaviour[],
  env: Record<string, string> = {},
  server: FaultyServer = srv,
  again?: { dir: string; path: string },
  at?: string,
): Promise<Outcome & { path: string; dir: string }> {
  const dir = again?.dir ?? fx.at(`case-${caseNo++}`);
  const urlPath = again?.path ?? at ?? `/sdk-${caseNo}/level-zero-win-sdk-1.21.9.zip`;
  server.script(urlPath, zip, behaviours);
  const manifests = path.join(dir, 'manifests');
  if (!again) {
    await fs.mkdir(manifests, { recursive: true });
    const l0 = JSON.parse(await fs.readFile(path.join(__dirname, '../../manifests/level-zero.json'), 'utf8'));
    const src = l0.platforms['win-x64'].sources.find((s: { kind: string }) => s.kind === 'url');
    Object.assign(src, { url: `${server.url}${urlPath}`, sha256: sha256(zip), size: zip.length, version: '1.21.9' });
    await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
    await makeSentinel(path.join(dir, 'outside'));
    await fs.mkdir(path.join(dir, 'home'));
  }
  const outside = path.join(dir, 'outside');
  const before = await snapshotTree(outside);
  const prefix = path.join(dir, 'prefix');
  const home = path.join(dir, 'home');
  const t0 = Date.now();
  const r = await runCli(
    ['--json', '--platform', 'win-x64', '--prefix', prefix, '--cache-dir', path.join(dir, 'cache'), '--manifests', manifests, '--source', 'url', '--component', 'level-zero'],
    scrubbedEnv(home, env),
  );
  const ms = Date.now() - t0;
  let code = '-';
  if (r.exitCode !== 0) {
    const doc = JSON.parse(r.stdout) as { error?: { code?: string } };
    code = doc.error?.code ?? '?';
  }
  const prefixExists = await fs.stat(prefix).then(() => true, () => false);
  let outsideState = compareSnapshots(before, await snapshotTree(outside));
  if (r.exitCode !== 0 && prefixExists) outsideState += '; PREFIX CREATED';
  table.add({ case: name, exit: r.exitCode, code, ms, outside: outsideState });
  expect(outsideState).toBe('unchanged');
  return { exit: r.exitCode, code, ms, stderr: r.stderr, prefixExists, path: urlPath, dir };
}

const requestsOf = (server: FaultyServer, p: string) => server.requests.filter((r) => r.path === p);
/** Keeps retry waits short (a 20 ms first back-off) so the suite stays quick; each case still shows the rule working. */
const QUICK = { XPU_SETUP_HTTP_ATTEMPTS: '3', XPU_SETUP_HTTP_RETRY_SECONDS: '20', XPU_SETUP_HTTP_BACKOFF_SECONDS: '0.02' };

describe('network fault matrix', () => {
  it('clean download (baseline)', async () => {
    const o = await runCase('clean download (baseline)', [{ kind: 'ok' }]);
    expect([o.exit, o.prefixExists]).toEqual([0, true]);
  });

  it('truncated once (Content-Length longer than the body): retried, resumed, installed', async () => {
    const o = await runCase('truncated once, then served', [{ kind: 'cut', bytes: 20_000 }, { kind: 'ok' }], QUICK);
    expect(o.exit).toBe(0);
    expect(requestsOf(srv, o.path).map((r) => [r.status, r.range])).toEqual([[200, undefined], [206, 'bytes=20000-']]);
  });

  it('truncated on every attempt: bounded attempts, the byte count, exit 1', async () => {
    const o = await runCase('truncated on every attempt', [{ kind: 'cut', bytes: 1000 }], QUICK);
    expect([o.exit, o.code]).toEqual([1, 'NETWORK']);
    expect(o.stderr).toMatch(/broke after \d+ bytes[\s\S]*gave up after 3 attempts/);
    expect(requestsOf(srv, o.path)).toHaveLength(3);
  });

  it('429 with Retry-After: waits as asked, then installs', async () => {
    const o = await runCase('429 + Retry-After: 1', [{ kind: 'status', status: 429, headers: { 'Retry-After': '1' } }, { kind: 'ok' }], QUICK);
    expect(o.exit).toBe(0);
    const [a, b] = requestsOf(srv, o.path);
    expect([a!.status, b!.status]).toEqual([429, 200]);
  });

  it('persistent 500: gives up after the configured attempts', async () => {
    const o = await runCase('persistent 500 (3 attempts)', [{ kind: 'status', status: 500 }], QUICK);
    expect([o.exit, o.code]).toEqual([1, 'HTTP_STATUS']);
    expect(requestsOf(srv, o.path)).toHaveLength(3);
    expect(o.stderr).toMatch(/gave up after 3 attempts/);
  });

  it('connection reset before any answer, every time', async () => {
    const o = await runCase('connection reset, every time', [{ kind: 'reset' }], QUICK);
    expect([o.exit, o.code]).toEqual([1, 'NETWORK']);
  });

  it('resume after a cut in an earlier run: the next run asks only for the rest', async () => {
    const first = await runCase('cut, run ends (XPU_SETUP_HTTP_ATTEMPTS=1)', [{ kind: 'cut', bytes: 30_000 }], { XPU_SETUP_HTTP_ATTEMPTS: '1' });
    expect(first.exit).toBe(1);
    const second = await runCase('resume in the next run (Range + If-Range)', [{ kind: 'ok' }], {}, srv, first);
    expect(second.exit, second.stderr).toBe(0);
    const last = requestsOf(srv, first.path).at(-1)!;
    expect([last.status, last.range]).toEqual([206, 'bytes=30000-']);
    expect(last.ifRange).toMatch(/^"/);
  });

  it('slow drip under the minimum throughput: stopped with a clear error', async () => {
    const o = await runCase('slow drip (1 B / 50 ms; min 2000 B/s over 1 s)', [{ kind: 'drip', intervalMs: 50 }], { XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND: '2000', XPU_SETUP_DOWNLOAD_RATE_WINDOW_SECONDS: '1' });
    expect([o.exit, o.code]).toEqual([1, 'TOO_SLOW']);
    expect(o.stderr).toMatch(/under the minimum of 2000 bytes\/s over 1 s/);
  });

  it('slow drip against the per-download deadline', async () => {
    const o = await runCase('slow drip, deadline 2 s (no rate rule)', [{ kind: 'drip', intervalMs: 20 }], { XPU_SETUP_DOWNLOAD_DEADLINE_SECONDS: '2', XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND: '0' });
    expect([o.exit, o.code]).toEqual([1, 'DEADLINE']);
    expect(o.stderr).toMatch(/did not finish within 2 s/);
  });

  it('oversized body (200 MB for the 55 KB pin): stops at the pinned size', async () => {
    const o = await runCase('oversized body (200 MB for 55 KB)', [{ kind: 'flood', bytes: 200 * 1024 * 1024 }]);
    expect([o.exit, o.code]).toEqual([1, 'TOO_LARGE']);
    expect(requestsOf(srv, o.path)[0]!.sent).toBeLessThan(20 * 1024 * 1024);
  });

  it('404: no retries', async () => {
    const o = await runCase('404', [{ kind: 'status', status: 404 }], QUICK);
    expect([o.exit, o.code]).toEqual([1, 'NOT_FOUND']);
    expect(requestsOf(srv, o.path)).toHaveLength(1);
  });

  it('dead proxy: the proxy is named', async () => {
    const port = await deadPort();
    const o = await runCase('dead proxy (HTTP_PROXY; 3 attempts)', [{ kind: 'ok' }], { ...QUICK, HTTP_PROXY: `http://127.0.0.1:${port}` });
    expect([o.exit, o.code]).toEqual([1, 'PROXY']);
    expect(requestsOf(srv, o.path)).toHaveLength(0);
    expect(o.stderr).toContain(`cannot reach the proxy http://127.0.0.1:${port} (HTTP_PROXY)`);
  });

  it('TLS certificate from an unknown CA: says an intercepting proxy is the likely cause', async () => {
    const o = await runCase('bad TLS (unknown CA)', [{ kind: 'ok' }], {}, tlsSrv);
    expect([o.exit, o.code]).toEqual([1, 'TLS']);
    expect(o.stderr).toMatch(/intercepts HTTPS[\s\S]*NODE_EXTRA_CA_CERTS/);
  });

  it('TLS failure on an index (conda channel, PyPI index): the same hint as on an archive', async () => {
    for (const [name, args] of [
      ['bad TLS on a conda channel (unknown CA)', ['--platform', 'linux-x64', '--source', 'conda', '--conda-channel', `${tlsSrv.url}/channel`, '--component', 'level-zero']],
      ['bad TLS on a PyPI index (unknown CA)', ['--platform', 'linux-x64', '--source', 'pypi', '--index-url', `${tlsSrv.url}/simple`, '--component', 'unified-runtime']],
    ] as const) {
      const dir = fx.at(`case-${caseNo++}`);
      await fs.mkdir(path.join(dir, 'home'), { recursive: true });
      const t0 = Date.now();
      const r = await runCli(['--json', ...args, '--prefix', path.join(dir, 'prefix'), '--cache-dir', path.join(dir, 'cache')], scrubbedEnv(path.join(dir, 'home')));
      const doc = JSON.parse(r.stdout) as { error?: { code?: string; hints?: string[] } };
      table.add({ case: name, exit: r.exitCode, code: doc.error?.code ?? '-', ms: Date.now() - t0, outside: 'unchanged' });
      expect(r.exitCode).toBe(1);
      expect(doc.error?.hints?.join('\n')).toMatch(/intercepts HTTPS[\s\S]*NODE_EXTRA_CA_CERTS/);
      expect(doc.error?.hints?.join('\n')).not.toMatch(/fix the URL or the network/);
    }
  });

  it('redirect loop: stopped at the loop, never retried', async () => {
    const p = `/sdk-${caseNo + 1}/loop.zip`;
    const o = await runCase('redirect loop (a URL redirecting to itself)', [{ kind: 'status', status: 302, headers: { location: p } }], QUICK, srv, undefined, p);
    expect([o.exit, o.code]).toEqual([1, 'NETWORK']);
    expect(o.stderr).toMatch(/redirects in a loop/);
    expect(requestsOf(srv, o.path)).toHaveLength(1);
  });

  it('an https archive that redirects to plain http is refused; XPU_SETUP_ALLOW_HTTP_REDIRECT=1 allows it', async () => {
    srv.script('/plain/sdk.zip', zip, [{ kind: 'ok' }]);
    const o = await runCase('https redirecting to plain http', [{ kind: 'status', status: 302, headers: { location: `${srv.url}/plain/sdk.zip` } }], { ...QUICK, NODE_EXTRA_CA_CERTS: caFile }, tlsSrv);
    expect([o.exit, o.code]).toEqual([1, 'NETWORK']);
    expect(o.stderr).toMatch(/redirects from https to plain http[\s\S]*XPU_SETUP_ALLOW_HTTP_REDIRECT=1/);
    expect(requestsOf(srv, '/plain/sdk.zip')).toHaveLength(0);
    const allowed = await runCase('https -> http with XPU_SETUP_ALLOW_HTTP_REDIRECT=1', [{ kind: 'status', status: 302, headers: { location: `${srv.url}/plain/sdk.zip` } }], { NODE_EXTRA_CA_CERTS: caFile, XPU_SETUP_ALLOW_HTTP_REDIRECT: '1' }, tlsSrv);
    expect(allowed.exit).toBe(0);
  });

  it('a Content-Length short of the file: SIZE_MISMATCH, retried, resumed, installed', async () => {
    const o = await runCase('Content-Length short of the file, once', [{ kind: 'short-length', bytes: 20_000 }, { kind: 'ok' }], QUICK);
    expect(o.exit, o.stderr).toBe(0);
    expect(requestsOf(srv, o.path).map((r) => [r.status, r.range])).toEqual([[200, undefined], [206, 'bytes=20000-']]);
    const always = await runCase('Content-Length short of the file, always', [{ kind: 'short-length', bytes: 20_000 }], QUICK);
    expect([always.exit, always.code]).toEqual([1, 'SIZE_MISMATCH']);
    expect(always.stderr).toMatch(/ended after 20000 of \d+ bytes \(the server's Content-Length said 20000\)/);
  });

  it('a redirect to a closed port names the address it could not reach', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}/moved/level-zero-win-sdk-1.21.9.zip`;
    const o = await runCase('redirect to a closed port', [{ kind: 'status', status: 302, headers: { location: dead } }], QUICK);
    expect([o.exit, o.code]).toEqual([1, 'NETWORK']);
    expect(o.stderr).toContain(`cannot reach ${dead} (where ${srv.url}${o.path} redirected)`);
  });

  it('a body cut short without a length: a retried truncation, resumed, installed', async () => {
    const o = await runCase('cut short, no Content-Length (HTTP/1.0 style)', [{ kind: 'short', bytes: 20_000 }, { kind: 'ok' }], QUICK);
    expect(o.exit, o.stderr).toBe(0);
    expect(requestsOf(srv, o.path).map((r) => [r.status, r.range])).toEqual([[200, undefined], [206, 'bytes=20000-']]);
  });

  it('a server without ETag or Last-Modified: a cut is resumed within the run with Range', async () => {
    const o = await runCase('cut, no validators: resumed in the same run', [{ kind: 'cut', bytes: 20_000, bare: true }, { kind: 'ok', bare: true }], QUICK);
    expect(o.exit, o.stderr).toBe(0);
    expect(requestsOf(srv, o.path).map((r) => [r.status, r.range, r.ifRange])).toEqual([[200, undefined, undefined], [206, 'bytes=20000-', undefined]]);
  });

  it('a proxy that allows CONNECT only to 443 (squid default): plain http is forwarded and installs', async () => {
    const proxy = await startForwardProxy({ connectOnly443: true });
    try {
      const o = await runCase('HTTP_PROXY allowing CONNECT to 443 only', [{ kind: 'ok' }], { HTTP_PROXY: proxy.url });
      expect(o.exit, o.stderr).toBe(0);
      expect(proxy.seen).toEqual([`GET ${srv.url}${o.path}`]);
    } finally {
      await proxy.close();
    }
  });

  it('a proxy answering 502: the proxy is named', async () => {
    const proxy = await startForwardProxy({ answer: 502 });
    try {
      const o = await runCase('proxy answering 502', [{ kind: 'ok' }], { ...QUICK, HTTP_PROXY: proxy.url });
      expect([o.exit, o.code]).toEqual([1, 'HTTP_STATUS']);
      expect(o.stderr).toContain(`answered HTTP 502 through the proxy ${proxy.url} (HTTP_PROXY)`);
    } finally {
      await proxy.close();
    }
  });

  it('the same server with NODE_EXTRA_CA_CERTS: installs', async () => {
    const o = await runCase('TLS with NODE_EXTRA_CA_CERTS', [{ kind: 'ok' }], { NODE_EXTRA_CA_CERTS: caFile }, tlsSrv);
    expect(o.exit).toBe(0);
  });

  it('the same server with SSL_CERT_FILE (which Node itself ignores): installs', async () => {
    const o = await runCase('TLS with SSL_CERT_FILE', [{ kind: 'ok' }], { SSL_CERT_FILE: caFile }, tlsSrv);
    expect(o.exit).toBe(0);
  });
});
