// net/: retries and their waits, Retry-After, limits on size, time and throughput, proxies and CAs, against servers on 127.0.0.1.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as nodeTls from 'node:tls';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { netConfigFromEnv } from '../../src/net/config.js';
import { isUnreachable } from '../../src/base/errors.js';
import { Http, type HttpResponse } from '../../src/net/http.js';
import { proxyFor, trustedCas } from '../../src/net/proxy.js';
import { backoffMs, parseRetryAfter, type RetryClock } from '../../src/net/retry.js';
import { deadPort, makeTestCa, startFaultyServer, startForwardProxy, type FaultyServer } from '../support/faulty-server.js';
import { failure } from '../support/failure.js';

/** Test double for the retry clock: real time, but waits are recorded and return at once. */
function recordingClock(): RetryClock & { waits: number[] } {
  const waits: number[] = [];
  return { waits, now: () => Date.now(), sleep: async (ms) => void waits.push(ms), random: () => 0.5 };
}

const FILE = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7) % 251));

async function drain(res: HttpResponse): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of res.body) parts.push(c);
  return Buffer.concat(parts);
}

let srv: FaultyServer;
beforeAll(async () => {
  srv = await startFaultyServer();
});
afterAll(async () => {
  await srv.close();
});

describe('retry policy', () => {
  it('backs off exponentially with jitter, capped', () => {
    const p = { baseDelayMs: 500, maxDelayMs: 4000 };
    expect([0, 1, 2, 3, 4].map((n) => backoffMs(n, p, () => 0))).toEqual([250, 500, 1000, 2000, 2000]);
    expect([0, 1, 2, 3, 4].map((n) => backoffMs(n, p, () => 0.999999))).toEqual([500, 1000, 2000, 4000, 4000]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('takes its limits from the environment, and refuses nonsense', () => {
    const c = netConfigFromEnv({ XPU_SETUP_HTTP_ATTEMPTS: '2', XPU_SETUP_DOWNLOAD_DEADLINE_SECONDS: '1.5', XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND: '10' });
    expect([c.attempts, c.downloadDeadlineMs, c.minBytesPerSecond]).toEqual([2, 1500, 10]);
    expect(() => netConfigFromEnv({ XPU_SETUP_HTTP_ATTEMPTS: 'many' })).toThrow(/XPU_SETUP_HTTP_ATTEMPTS=many is not a number/);
    expect(netConfigFromEnv({}).baseDelayMs).toBe(500);
    expect(netConfigFromEnv({ XPU_SETUP_HTTP_BACKOFF_SECONDS: '0.02' }).baseDelayMs).toBe(20);
    expect(netConfigFromEnv({ XPU_SETUP_HTTP_BACKOFF_SECONDS: '0' }).baseDelayMs).toBe(0);
    expect(() => netConfigFromEnv({ XPU_SETUP_HTTP_BACKOFF_SECONDS: '-1' })).toThrow(/XPU_SETUP_HTTP_BACKOFF_SECONDS=-1 is not a number >= 0/);
  });
});

describe('requests against a misbehaving server', () => {
  it('retries 500, a reset connection and a short body, then succeeds', async () => {
    srv.script('/flaky', FILE, [{ kind: 'status', status: 500 }, { kind: 'reset' }, { kind: 'cut', bytes: 1000 }, { kind: 'ok' }]);
    const clock = recordingClock();
    const http = new Http({}, { attempts: 5 }, clock);
    const got = await http.getText(`${srv.url}/flaky`);
    expect(Buffer.from(got.body, 'utf8').length).toBeGreaterThan(0);
    expect(srv.requests.filter((r) => r.path === '/flaky').map((r) => r.status ?? 'reset')).toEqual([500, 'reset', 200, 200]);
    // The reset came on the connection the 500 left open, before any byte of an answer: that is asked again at once
    // on a new connection, as any kept connection the server has closed meanwhile; the cut body waits its turn.
    expect(clock.waits).toEqual([375, 750]);
  });

  it('waits as long as Retry-After says on 429', async () => {
    srv.script('/limited', FILE, [{ kind: 'status', status: 429, headers: { 'Retry-After': '3' } }, { kind: 'ok' }]);
    const clock = recordingClock();
    await new Http({}, {}, clock).getText(`${srv.url}/limited`);
    expect(clock.waits).toEqual([3000]);
  });

  it('gives up on a persistent 500 after the configured attempts, and says so', async () => {
    srv.script('/broken', FILE, [{ kind: 'status', status: 500 }]);
    const clock = recordingClock();
    const before = srv.requests.length;
    const e = await failure(new Http({ XPU_SETUP_HTTP_ATTEMPTS: '4' }, {}, clock).getText(`${srv.url}/broken`));
    expect(e.code).toBe('HTTP_STATUS');
    expect(srv.requests.length - before).toBe(4);
    expect(e.hints.join('\n')).toMatch(/gave up after 4 attempts/);
  });

  it('gives up when Retry-After asks for more than the retry time', async () => {
    srv.script('/later', FILE, [{ kind: 'status', status: 503, headers: { 'Retry-After': '600' } }]);
    const clock = recordingClock();
    const e = await failure(new Http({ XPU_SETUP_HTTP_RETRY_SECONDS: '60' }, {}, clock).getText(`${srv.url}/later`));
    expect(clock.waits).toEqual([]);
    expect(e.hints.join('\n')).toMatch(/asked to wait 600 s \(Retry-After\)/);
  });

  it('does not retry 404', async () => {
    const clock = recordingClock();
    const e = await failure(new Http({}, {}, clock).getText(`${srv.url}/nothing-here`));
    expect([e.code, clock.waits.length]).toEqual(['NOT_FOUND', 0]);
  });

  it('stops at the declared size: a flood fails after the limit, not at its end', async () => {
    srv.script('/flood', FILE, [{ kind: 'flood', bytes: 200 * 1024 * 1024 }]);
    const http = new Http({});
    const res = await http.open(`${srv.url}/flood`, { maxBytes: 55 * 1024 });
    const e = await failure(drain(res));
    expect(e.code).toBe('TOO_LARGE');
    expect(e.message).toMatch(/where the index declares 56320/);
    const sent = srv.requests.find((r) => r.path === '/flood')!.sent;
    expect(sent).toBeLessThan(20 * 1024 * 1024);
  });

  it('a drip hits the deadline, with a clear error', async () => {
    srv.script('/drip', FILE, [{ kind: 'drip', intervalMs: 100 }]);
    const http = new Http({ XPU_SETUP_DOWNLOAD_DEADLINE_SECONDS: '0.6' });
    const t0 = Date.now();
    const res = await http.open(`${srv.url}/drip`, { deadlineAt: Date.now() + http.config.downloadDeadlineMs });
    const e = await failure(drain(res));
    expect(e.code).toBe('DEADLINE');
    expect(e.message).toMatch(/did not finish within 0\.6 s/);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('a drip under the minimum throughput is stopped', async () => {
    srv.script('/slow', FILE, [{ kind: 'drip', intervalMs: 50 }]);
    const http = new Http({ XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND: '1000', XPU_SETUP_DOWNLOAD_RATE_WINDOW_SECONDS: '0.5' });
    const res = await http.open(`${srv.url}/slow`, { minRate: true });
    const e = await failure(drain(res));
    expect(e.code).toBe('TOO_SLOW');
    expect(e.message).toMatch(/under the minimum of 1000 bytes\/s over 0\.5 s/);
  });
});

describe('proxies', () => {
  it('chooses the proxy from the injected environment, NO_PROXY included', () => {
    const env = { HTTPS_PROXY: 'http://proxy:3128', http_proxy: 'http://p2:80', NO_PROXY: 'internal.example,.corp:8443' };
    expect(proxyFor('https://conda.anaconda.org/x', env)).toEqual({ url: 'http://proxy:3128', variable: 'HTTPS_PROXY' });
    expect(proxyFor('http://pypi.org/', env)).toEqual({ url: 'http://p2:80', variable: 'http_proxy' });
    expect(proxyFor('https://a.internal.example/', env)).toBeUndefined();
    expect(proxyFor('https://x.corp:8443/', env)).toBeUndefined();
    expect(proxyFor('https://x.corp/', env)?.url).toBe('http://proxy:3128');
  });

  it('goes through a working proxy', async () => {
    const proxy = await startForwardProxy();
    try {
      srv.script('/via-proxy', FILE, [{ kind: 'ok' }]);
      const got = await new Http({ HTTP_PROXY: proxy.url }).getText(`${srv.url}/via-proxy`);
      expect(got.body.length).toBeGreaterThan(0);
      // Plain http goes to the proxy as a request for the absolute URI, as curl and pip send it.
      expect(proxy.seen).toEqual([`GET ${srv.url}/via-proxy`]);
    } finally {
      await proxy.close();
    }
  });

  it('a proxy that allows CONNECT only to port 443 (squid\'s default) still serves plain http: it is forwarded, not tunnelled', async () => {
    const proxy = await startForwardProxy({ connectOnly443: true });
    try {
      srv.script('/squid', FILE, [{ kind: 'ok' }]);
      const got = await new Http({ HTTP_PROXY: proxy.url }).getText(`${srv.url}/squid`);
      expect(got.body.length).toBe(FILE.length);
      expect(proxy.seen).toEqual([`GET ${srv.url}/squid`]);
    } finally {
      await proxy.close();
    }
  });

  it('a proxy answering 502 is named: to a CONNECT (https) as PROXY, to a forwarded request (http) in the status error', async () => {
    const proxy = await startForwardProxy({ answer: 502 });
    try {
      const tunnelled = await failure(new Http({ HTTPS_PROXY: proxy.url }, { attempts: 1 }).getText('https://127.0.0.1:9/x'));
      expect([tunnelled.code, tunnelled.message]).toEqual(['PROXY', `the proxy ${proxy.url} (HTTPS_PROXY) answered HTTP 502 when asked to connect to 127.0.0.1:9 for https://127.0.0.1:9/x`]);
      expect(tunnelled.hints[0]).toMatch(/the proxy could not reach the server/);
      const forwarded = await failure(new Http({ HTTP_PROXY: proxy.url }, { attempts: 1 }).getText(`${srv.url}/x`));
      expect([forwarded.code, forwarded.message]).toEqual(['HTTP_STATUS', `GET ${srv.url}/x answered HTTP 502 through the proxy ${proxy.url} (HTTP_PROXY)`]);
      expect(forwarded.hints[0]).toMatch(/the proxy could not get an answer from the server/);
    } finally {
      await proxy.close();
    }
  });

  it('a dead proxy is named as the proxy, not as the mirror', async () => {
    const port = await deadPort();
    const e = await failure(new Http({ HTTPS_PROXY: `http://127.0.0.1:${port}`, HTTP_PROXY: `http://127.0.0.1:${port}` }).getText(`${srv.url}/x`));
    expect(e.code).toBe('PROXY');
    expect(e.message).toBe(`cannot reach the proxy http://127.0.0.1:${port} (HTTP_PROXY) to get ${srv.url}/x (ECONNREFUSED)`);
    expect(isUnreachable(e)).toBe(true);
  });

  it('reach() answers for a live server, a dead one and a dead proxy', async () => {
    const port = await deadPort();
    expect(await new Http({}).reach(`${srv.url}/nothing-here`, 2000)).toMatchObject({ ok: true, status: 404 });
    const dead = await new Http({}).reach(`http://127.0.0.1:${port}/`, 2000);
    expect([dead.ok, dead.error?.code, dead.error?.details.code]).toEqual([false, 'NETWORK', 'ECONNREFUSED']);
    const viaDead = await new Http({ HTTP_PROXY: `http://127.0.0.1:${port}` }).reach(`${srv.url}/`, 2000);
    expect([viaDead.ok, viaDead.error?.code, viaDead.error?.details.proxy]).toEqual([false, 'PROXY', `http://127.0.0.1:${port}`]);
  });
});

describe('custom CAs (a CA made now with openssl, an HTTPS server on 127.0.0.1)', () => {
  let dir: string;
  let tls: FaultyServer;
  let caFile: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'xpu-ca-'));
    const ca = await makeTestCa(dir);
    caFile = ca.caFile;
    tls = await startFaultyServer({ tls: { key: ca.key, cert: ca.cert } });
    tls.script('/f', FILE, [{ kind: 'ok' }]);
  }, 30_000);
  afterAll(async () => {
    await tls?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('without the CA: a TLS error that points at an intercepting proxy and NODE_EXTRA_CA_CERTS', async () => {
    const e = await failure(new Http({}).getText(`${tls.url}/f`));
    expect(e.code).toBe('TLS');
    expect(e.message).toMatch(/TLS certificate of 127\.0\.0\.1:\d+ was not accepted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
    expect(e.hints.join('\n')).toMatch(/intercepts HTTPS[\s\S]*NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem/);
  });

  it('a redirect from https to plain http is refused unless XPU_SETUP_ALLOW_HTTP_REDIRECT=1, and not retried', async () => {
    srv.script('/plain', FILE, [{ kind: 'ok' }]);
    tls.script('/down', FILE, [{ kind: 'status', status: 302, headers: { location: `${srv.url}/plain` } }]);
    const before = srv.requests.length;
    const e = await failure(new Http({ NODE_EXTRA_CA_CERTS: caFile }, { baseDelayMs: 1 }).getText(`${tls.url}/down`));
    expect([e.code, e.message, e.details.code]).toEqual(['NETWORK', `${tls.url}/down: redirects from https to plain http (${srv.url}/plain); refused`, 'REDIRECT_DOWNGRADE']);
    expect(e.hints.join('\n')).toMatch(/XPU_SETUP_ALLOW_HTTP_REDIRECT=1/);
    expect(tls.requests.filter((r) => r.path === '/down')).toHaveLength(1);
    expect(srv.requests.length).toBe(before);
    const got = await new Http({ NODE_EXTRA_CA_CERTS: caFile, XPU_SETUP_ALLOW_HTTP_REDIRECT: '1' }).getText(`${tls.url}/down`);
    expect(got.body.length).toBe(FILE.length);
  });

  it('NODE_EXTRA_CA_CERTS from the injected environment is honoured', async () => {
    const got = await new Http({ NODE_EXTRA_CA_CERTS: caFile }).getText(`${tls.url}/f`);
    expect(got.body.length).toBeGreaterThan(0);
  });

  it('SSL_CERT_FILE is honoured, and an unreadable one is named', async () => {
    expect((await new Http({ SSL_CERT_FILE: caFile }).getText(`${tls.url}/f`)).body.length).toBeGreaterThan(0);
    const e = await failure(new Http({ SSL_CERT_FILE: path.join(dir, 'missing.pem') }).getText(`${tls.url}/f`));
    expect(e.message).toMatch(/cannot read the CA certificates in .*missing\.pem \(SSL_CERT_FILE\)/);
  });

  it('both variables naming one file: its certificates once; different files: both', () => {
    const one = trustedCas({ SSL_CERT_FILE: caFile, NODE_EXTRA_CA_CERTS: path.join(path.dirname(caFile), '.', path.basename(caFile)) });
    expect(one).toHaveLength(1);
    const other = path.join(dir, 'other.pem');
    writeFileSync(other, readFileSync(caFile));
    expect(trustedCas({ SSL_CERT_FILE: caFile, NODE_EXTRA_CA_CERTS: other })).toHaveLength(2);
    expect(trustedCas({})).toBeUndefined();
  });

  it('many connections share one TLS context: the CA list is parsed once per client, not once per connection', async () => {
    // A test double around node:tls's own function (which tls.connect also calls when given no context): it
    // counts the contexts made with a CA list and makes them for real.
    const tlsModule = createRequire(import.meta.url)('node:tls') as typeof nodeTls;
    const real = tlsModule.createSecureContext;
    let withCa = 0;
    tlsModule.createSecureContext = (options) => {
      if (options?.ca !== undefined) withCa++;
      return real(options);
    };
    syncBuiltinESMExports();
    // A second server on another port: two servers, two TLS connections.
    const ca = await makeTestCa(mkdtempSync(path.join(dir, 'second-')));
    const other = await startFaultyServer({ tls: { key: ca.key, cert: ca.cert } });
    other.script('/f', FILE, [{ kind: 'ok' }]);
    const both = path.join(dir, 'both.pem');
    writeFileSync(both, readFileSync(caFile, 'utf8') + readFileSync(ca.caFile, 'utf8'));
    try {
      const http = new Http({ NODE_EXTRA_CA_CERTS: both });
      for (const server of [tls, other]) expect((await http.getText(`${server.url}/f`)).body.length).toBeGreaterThan(0);
    } finally {
      tlsModule.createSecureContext = real;
      syncBuiltinESMExports();
      await other.close();
    }
    expect(withCa).toBe(1);
  });

  it('through a proxy (CONNECT), the CA still applies', async () => {
    const proxy = await startForwardProxy();
    try {
      const got = await new Http({ HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: caFile }).getText(`${tls.url}/f`);
      expect(got.body.length).toBeGreaterThan(0);
      expect(proxy.seen).toEqual([`CONNECT ${new URL(tls.url).host}`]);
    } finally {
      await proxy.close();
    }
  });
});

describe('redirects', () => {
  it('a redirect loop is stopped at the loop, on the first attempt, with no retry', async () => {
    srv.script('/loop-a', FILE, [{ kind: 'status', status: 302, headers: { location: '/loop-b' } }]);
    srv.script('/loop-b', FILE, [{ kind: 'status', status: 301, headers: { location: '/loop-a' } }]);
    const e = await failure(new Http({}, { baseDelayMs: 1 }).getText(`${srv.url}/loop-a`));
    expect([e.code, e.details.code]).toEqual(['NETWORK', 'REDIRECT_LOOP']);
    expect(e.message).toBe(`${srv.url}/loop-a: redirects in a loop (${srv.url}/loop-a -> ${srv.url}/loop-b -> ${srv.url}/loop-a)`);
    expect(srv.requests.filter((r) => r.path.startsWith('/loop-')).map((r) => r.path)).toEqual(['/loop-a', '/loop-b']);
  });
});
