// The only HTTP code: requests with the injected environment's proxy and CAs (direct ones through DirectTransport,
// proxied ones through undici); returns bodies as pieces or streams, never writes files.
import type { Readable } from 'node:stream';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { buildConnector, Dispatcher } from 'undici';
import { XpuError } from '../errors.js';
import { DEFAULT_NET_CONFIG, NET_ENV, netConfigFromEnv, overLimit, type IndexLimits, type NetConfig } from './config.js';
import { PieceStream, piecesOf, pumpInto, type PieceSink, type Pump } from '../pieces.js';
import { DirectTransport, type RawResponse } from './direct.js';
import { proxyFor, proxySettings, trustedCas, type ProxyChoice } from './proxy.js';
import { parseRetryAfter, realClock, withRetries, type RetryClock } from './retry.js';
import { isLinkLocal } from './url-rule.js';
import { redactUrl, requestAuth } from './credentials.js';

export interface OpenOptions {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  signal?: AbortSignal;
  headersTimeoutMs?: number;
  /** Read no more than this many body bytes (the size the index declares); more fails at once. */
  maxBytes?: number;
  /** Which index limit `maxBytes` is (said in the error, with its variable); none: the size the index declares. */
  limit?: keyof IndexLimits;
  /** Epoch ms by which the whole body must have arrived (the per-download deadline). */
  deadlineAt?: number;
  /** Apply the minimum-throughput rule of the config to the body (an index read always does). */
  minRate?: boolean;
  /**
   * An index read (a repodata file, a shard, a project page, a METADATA): the minimum rate applies, and the index
   * deadline unless `deadlineAt` is given (one read's attempts share one deadline).
   */
  index?: boolean;
}

export interface HttpResponse {
  url: string;
  status: number;
  headers: Record<string, string | undefined>;
  contentLength?: number;
  /**
   * The body as a stream; fails with a typed error on a cut, a short body, too many bytes, the deadline or a drip.
   * Made when first asked for: a reader that uses `pump` instead never copies the body.
   */
  readonly body: Readable;
  /**
   * The body handed to `each` piece by piece, each valid only until `each` returns or its promise settles (the
   * connection reads into buffers it keeps); fails as `body` does. Either this or `body`, not both.
   */
  pump: Pump;
  /** For a response whose body is not wanted: releases the connection and the timers. */
  discard(): Promise<void>;
}

export interface TextResponse {
  url: string;
  contentType: string;
  body: string;
}

export interface ReachAnswer {
  ok: boolean;
  status?: number;
  /** Content-Length of a 2xx answer, when the server gave one. */
  size?: number;
  error?: XpuError;
}

const UNREACHABLE_CODES = new Set([
  'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'CONNECT_TIMEOUT', 'EADDRNOTAVAIL',
]);

/** Release assets (GitHub) answer with redirects. */
const MAX_REDIRECTIONS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** What to do when a certificate is not accepted: said by every request that fails so, index or archive. */
export const TLS_HINTS = [
  'a proxy or antivirus that intercepts HTTPS and re-signs it is the likely cause',
  'get its CA certificate as a PEM file and export NODE_EXTRA_CA_CERTS=/path/to/ca.pem (SSL_CERT_FILE=/path replaces the whole CA list)',
];

/** A redirect that is not followed: the same answer comes every time, so it is not retried. */
function redirectError(url: string, why: string, code: string, hints: string[]): XpuError {
  return new XpuError('NETWORK', `${url}: ${why}`, { details: { url, code, unreachable: false, retryable: false }, hints });
}

export const TLS_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function errorCode(e: unknown): string | undefined {
  let cur = e as { code?: string; cause?: unknown; errors?: unknown[] } | undefined;
  for (let i = 0; cur && i < 6; i++) {
    if (cur.code && cur.code !== 'UND_ERR' && cur.code !== 'UND_ERR_ABORTED') return cur.code;
    if (Array.isArray(cur.errors) && cur.errors.length) cur = cur.errors[0] as typeof cur;
    else cur = cur.cause as typeof cur;
  }
  return undefined;
}

/** `received` is set when the failure came while reading the body: the server answered, then the connection broke. */
export function networkError(url: string, e: unknown, received?: number, proxy?: ProxyChoice): XpuError {
  if (e instanceof XpuError) return e;
  const code = errorCode(e);
  if (code && TLS_CODES.has(code)) {
    return new XpuError('TLS', `the TLS certificate of ${new URL(url).host} was not accepted (${code}) for ${url}`, {
      cause: e,
      details: { url, code, proxy: proxy?.url },
      hints: TLS_HINTS,
    });
  }
  // undici's words when a proxy refuses a CONNECT tunnel (squid answers 403 for ports other than 443, a broken one 502).
  const tunnel = /Proxy response \((\d+)\) !== 200 when HTTP Tunneling/.exec(causeMessages(e));
  if (tunnel && proxy) {
    return new XpuError('PROXY', `the proxy ${proxy.url} (${proxy.variable}) answered HTTP ${tunnel[1]} when asked to connect to ${new URL(url).host} for ${url}`, {
      cause: e,
      details: { url, status: Number(tunnel[1]), proxy: proxy.url, variable: proxy.variable, retryable: Number(tunnel[1]) >= 500 },
      hints: [
        Number(tunnel[1]) >= 500 ? 'the proxy could not reach the server, or failed itself; try again later, or ask who runs the proxy' : 'the proxy refuses this connection; ask who runs it to allow the host, or list the host in NO_PROXY',
      ],
    });
  }
  const unreachable = received === undefined && code !== undefined && UNREACHABLE_CODES.has(code);
  if (unreachable && proxy) {
    return new XpuError('PROXY', `cannot reach the proxy ${proxy.url} (${proxy.variable}) to get ${url} (${code})`, {
      cause: e,
      details: { url, code, unreachable, proxy: proxy.url, variable: proxy.variable },
      hints: [`check that the proxy runs, or fix ${proxy.variable}; NO_PROXY lists hosts to reach directly`],
    });
  }
  const hints = unreachable
    ? ['check the address, your network, or HTTPS_PROXY / NO_PROXY; behind a TLS-intercepting proxy set NODE_EXTRA_CA_CERTS']
    : ['the connection broke; run the command again (downloads already verified are kept in the cache)'];
  const what = received === undefined ? `cannot reach ${url}` : `the connection to ${url} broke after ${received} bytes`;
  return new XpuError('NETWORK', `${what}${code ? ` (${code})` : ''}`, {
    cause: e,
    hints,
    details: { url, code, unreachable, received, proxy: proxy?.url },
  });
}

function causeMessages(e: unknown): string {
  const out: string[] = [];
  let cur = e as { message?: string; cause?: unknown } | undefined;
  for (let i = 0; cur && i < 6; i++, cur = cur.cause as typeof cur) out.push(String(cur.message ?? ''));
  return out.join('\n');
}

function statusError(url: string, status: number, headers: Record<string, string | undefined>, now: number, proxy?: ProxyChoice): XpuError {
  const notFound = status === 404 || status === 410;
  const retryAfterMs = status === 429 || status === 503 || status === 408 ? parseRetryAfter(headers['retry-after'], now) : undefined;
  // A plain-http request through a proxy gets the proxy's own 502/504 when it cannot reach the server.
  const viaProxy = proxy && (status === 502 || status === 504);
  return new XpuError(notFound ? 'NOT_FOUND' : 'HTTP_STATUS', `GET ${url} answered HTTP ${status}${proxy ? ` through the proxy ${proxy.url} (${proxy.variable})` : ''}`, {
    details: { url, status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), ...(proxy ? { proxy: proxy.url } : {}) },
    hints: viaProxy
      ? ['the proxy could not get an answer from the server (or the server failed behind it); try again later, or list the host in NO_PROXY to reach it directly']
      : notFound
      ? ['check the index URL and the package name']
      : status === 429
        ? ['the server limits how often it is asked; wait a little and run again, or use a mirror']
        : ['the server failed; try again later or use another index'],
  });
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * undici's connector with TCP keep-alive switched on once connected instead of before: Wine's sockets reject the
 * option on an unconnected socket, which the default turns into a failed connection. Same effect elsewhere.
 */
function connectThenKeepAlive(build: Undici['buildConnector'], opts: buildConnector.BuildOptions): buildConnector.connector {
  const inner = build({ ...opts, keepAlive: false });
  return (connectOpts, cb) =>
    inner(connectOpts, (err, socket) => {
      if (socket) {
        try {
          socket.setKeepAlive(true, 60_000);
        } catch {
          // keep-alive only spares reconnects; a socket without it still works
        }
      }
      (cb as (e: Error | null, s: typeof socket) => void)(err, socket);
    });
}

export class Http {
  readonly config: NetConfig;
  private dispatcher?: Dispatcher;
  private direct?: DirectTransport;
  /** null: no CA of our own, Node's list applies. */
  private context?: SecureContext | null;

  constructor(
    readonly env: Record<string, string | undefined>,
    config: Partial<NetConfig> = {},
    readonly clock: RetryClock = realClock,
  ) {
    this.config = { ...netConfigFromEnv(env, DEFAULT_NET_CONFIG), ...config };
  }

  /** The proxy a request to url goes through (for messages), from the same environment the dispatcher uses. */
  proxyFor(url: string): ProxyChoice | undefined {
    return proxyFor(url, this.env);
  }

  /** The CAs as one TLS context for every connection: given `ca` itself, each connection parses the whole list again. */
  private secureContext(): SecureContext | undefined {
    if (this.context === undefined) {
      const ca = trustedCas(this.env);
      this.context = ca ? createSecureContext({ ca }) : null;
    }
    return this.context ?? undefined;
  }

  /** Requests no proxy applies to go through DirectTransport; undici, with its proxy agents, loads only for the others. */
  private getDirect(): DirectTransport {
    this.direct ??= new DirectTransport(() => this.secureContext());
    return this.direct;
  }

  private getDispatcher({ Agent, buildConnector, EnvHttpProxyAgent }: Undici): Dispatcher {
    if (!this.dispatcher) {
      const context = this.secureContext();
      const tls = context ? { secureContext: context } : {};
      const connect = { timeout: this.config.connectTimeoutMs, ...tls };
      const p = proxySettings(this.env);
      // Empty strings, not undefined: undici would otherwise read process.env behind the injected environment.
      // proxyTunnel false: plain http goes to the proxy as a request for the absolute URI, https through CONNECT, as
      // curl and pip do (squid, by default, allows CONNECT to port 443 only). Redirects are followed in open().
      this.dispatcher =
        p.http || p.https
          ? new EnvHttpProxyAgent({ httpProxy: p.http?.url ?? '', httpsProxy: p.https?.url ?? '', noProxy: p.noProxy, connect, requestTls: tls, proxyTls: tls, proxyTunnel: false })
          : new Agent({ connect: connectThenKeepAlive(buildConnector, connect), connections: 8 });
    }
    return this.dispatcher;
  }

  /** One request, no retries; statuses >= 400 become typed errors (with Retry-After when the server sent one). */
  async open(named: string, opts: OpenOptions = {}): Promise<HttpResponse> {
    // Every message says the URL with its credentials hidden; only the request itself has them.
    const url = redactUrl(named);
    const proxy = this.proxyFor(url);
    const ac = new AbortController();
    const stopLink = link(opts.signal, ac);
    const timers: NodeJS.Timeout[] = [];
    const stop = () => {
      // clearTimeout clears intervals as well.
      timers.forEach((t) => clearTimeout(t));
      stopLink();
    };
    const start = this.clock.now();
    let received = 0;
    const index = opts.index === true;
    const deadlineAt = opts.deadlineAt ?? (index ? start + this.config.indexDeadlineMs : undefined);
    if (deadlineAt !== undefined) {
      const left = deadlineAt - start;
      const err = this.deadlineError(url, () => received, index);
      if (left <= 0) throw err();
      timers.push(unref(setTimeout(() => ac.abort(err()), left)));
    }
    if ((opts.minRate || index) && this.config.minBytesPerSecond > 0) this.watchRate(url, ac, timers, () => received, index);
    let res: RawResponse;
    try {
      res = await this.follow(named, opts, ac.signal);
    } catch (e) {
      stop();
      throw ac.signal.reason instanceof XpuError ? ac.signal.reason : networkError(url, e, undefined, proxy);
    }
    const headers = res.headers;
    const discard = async () => {
      stop();
      await res.dump().catch(() => undefined);
    };
    if (res.statusCode >= 400) {
      await discard();
      throw statusError(url, res.statusCode, headers, this.clock.now(), proxy);
    }
    const len = Number(headers['content-length']);
    const contentLength = headers['content-length'] !== undefined && Number.isFinite(len) ? len : undefined;
    if (opts.maxBytes !== undefined && contentLength !== undefined && contentLength > opts.maxBytes) {
      await discard();
      throw opts.limit ? overLimit(url, 'is', opts.maxBytes, opts.limit, contentLength) : tooLarge(url, opts.maxBytes, contentLength);
    }
    const fail = (e: unknown) => (ac.signal.reason instanceof XpuError ? ac.signal.reason : networkError(url, e, received, proxy));
    // Each piece is counted as it passes (the deadline and the rate watch read the count); a short body fails at its end.
    const pump = async (each: PieceSink) => {
      try {
        // What `each` throws itself (a full disk under a download) passes through as it is, not as a network error.
        await pumpInto(
          res.pump,
          (piece) => {
            received += piece.length;
            if (opts.maxBytes !== undefined && received > opts.maxBytes) throw opts.limit ? overLimit(url, 'is', opts.maxBytes, opts.limit) : tooLarge(url, opts.maxBytes, received);
            return each(piece);
          },
          fail,
        );
        if (contentLength !== undefined && received < contentLength) {
          throw new XpuError('SIZE_MISMATCH', `download of ${url} ended after ${received} of ${contentLength} bytes`, {
            details: { url, expected: contentLength, received, retryable: true },
            hints: ['the connection was cut; run the command again'],
          });
        }
      } catch (e) {
        res.cancel();
        throw e;
      } finally {
        // However the reader ends (the whole body, an error, or stopping early), the timers go with it.
        stop();
      }
    };
    let stream: Readable | undefined;
    return {
      url,
      status: res.statusCode,
      headers,
      contentLength,
      get body() {
        return (stream ??= new PieceStream(pump, () => res.cancel()));
      },
      pump,
      discard: async () => {
        if (!stream) return discard();
        // A reader that stopped part-way: the rest is not read, and the connection is closed.
        if (!stream.readableEnded) stream.destroy();
        stop();
      },
    };
  }

  /** One request to `url` through the transport its proxy setting picks. */
  private async send(named: string, method: string, opts: OpenOptions, signal: AbortSignal): Promise<RawResponse> {
    // Basic auth only where the user gave credentials for this very origin; the request line never carries them.
    const { url, authorization } = requestAuth(named);
    const request = { method, headers: { 'user-agent': 'xpu-setup', ...(authorization ? { authorization } : {}), ...opts.headers }, signal };
    const headersTimeoutMs = opts.headersTimeoutMs ?? this.config.headersTimeoutMs;
    if (this.proxyFor(url)) {
      const u = await undici();
      const r = await u.request(url, { ...request, dispatcher: this.getDispatcher(u), headersTimeout: headersTimeoutMs, bodyTimeout: this.config.idleTimeoutMs });
      return {
        statusCode: r.statusCode,
        headers: flatHeaders(r.headers),
        pump: piecesOf(r.body),
        dump: () => r.body.dump(),
        cancel: () => r.body.destroy(),
      };
    }
    return this.getDirect().request(url, { ...request, connectTimeoutMs: this.config.connectTimeoutMs, headersTimeoutMs, idleTimeoutMs: this.config.idleTimeoutMs });
  }

  /**
   * The request and the redirects it answers with, under one policy for both transports: at most MAX_REDIRECTIONS,
   * never to an address already visited (a loop is said at once, not retried), never from https down to plain http
   * unless XPU_SETUP_ALLOW_HTTP_REDIRECT=1.
   */
  private async follow(named: string, opts: OpenOptions, signal: AbortSignal): Promise<RawResponse> {
    const url = redactUrl(named);
    let current = new URL(named);
    let method = opts.method ?? 'GET';
    const seen = new Set([current.href]);
    for (let hop = 0; ; hop++) {
      const res = await this.send(current.href, method, opts, signal);
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode) || typeof location !== 'string') return res;
      await res.dump().catch(() => undefined);
      const next = new URL(location, current);
      if (seen.has(next.href)) {
        throw redirectError(url, `redirects in a loop (${[...seen, next.href].slice(-3).map(redactUrl).join(' -> ')})`, 'REDIRECT_LOOP', ['the server is misconfigured; stopped at the loop instead of asking again. Use another index or mirror, or tell who runs it']);
      }
      if (hop >= MAX_REDIRECTIONS) {
        throw redirectError(url, `more than ${MAX_REDIRECTIONS} redirects`, 'TOO_MANY_REDIRECTS', ['the server sends redirect after redirect; use another index or mirror']);
      }
      if (current.protocol === 'https:' && next.protocol === 'http:' && !this.config.allowHttpRedirect) {
        throw redirectError(url, `redirects from https to plain http (${redactUrl(next.href)}); refused`, 'REDIRECT_DOWNGRADE', [
          'a redirect to plain http lets anyone on the path read and change what arrives; use an https mirror',
          `if you trust the network, allow it: ${NET_ENV.allowHttpRedirect}=1 (every archive is still checked against its sha256)`,
        ]);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw redirectError(url, `redirects to ${redactUrl(next.href)}, which is not http or https`, 'UNSUPPORTED_SCHEME', ['use another index or mirror']);
      }
      if (isLinkLocal(next.hostname) && next.host !== new URL(url).host) {
        throw redirectError(url, `redirects to ${redactUrl(next.href)}, a link-local address; refused`, 'LINK_LOCAL', ['a server may not send requests to link-local addresses (cloud metadata services answer there); name such a host yourself if you mean it']);
      }
      seen.add(next.href);
      if (res.statusCode === 303 && method !== 'HEAD') method = 'GET';
      current = next;
    }
  }

  private deadlineError(url: string, received: () => number, index: boolean): () => XpuError {
    const ms = index ? this.config.indexDeadlineMs : this.config.downloadDeadlineMs;
    return () =>
      new XpuError('DEADLINE', `${index ? 'reading' : 'download of'} ${url} did not finish within ${ms / 1000} s (${received()} bytes arrived)`, {
        details: { url, deadlineMs: ms, received: received(), retryable: false },
        hints: [`the server or the network is too slow; try again later or use a mirror, or raise ${index ? NET_ENV.indexDeadlineSeconds : NET_ENV.deadlineSeconds}`],
      });
  }

  /** Aborts when fewer than minBytesPerSecond arrived over the last rateWindowMs. */
  private watchRate(url: string, ac: AbortController, timers: NodeJS.Timeout[], received: () => number, index: boolean): void {
    const { minBytesPerSecond: rate, rateWindowMs: window } = this.config;
    const samples: Array<{ at: number; bytes: number }> = [{ at: this.clock.now(), bytes: 0 }];
    const tick = Math.max(50, Math.min(1000, window / 4));
    const timer = unref(
      setInterval(() => {
        const now = this.clock.now();
        samples.push({ at: now, bytes: received() });
        while (samples.length > 1 && now - samples[1]!.at >= window) samples.shift();
        const from = samples[0]!;
        if (now - from.at < window || received() - from.bytes >= (rate * (now - from.at)) / 1000) return;
        clearInterval(timer);
        const got = received() - from.bytes;
        ac.abort(
          new XpuError('TOO_SLOW', `${index ? 'reading' : 'download of'} ${url} slowed to ${Math.round((got * 1000) / (now - from.at))} bytes/s, under the minimum of ${rate} bytes/s over ${window / 1000} s`, {
            details: { url, minBytesPerSecond: rate, windowMs: window, received: received() },
            hints: [`the server or the network is stalling; try again later or use a mirror, or lower ${NET_ENV.minBytesPerSecond}`],
          }),
        );
      }, tick),
    );
    timers.push(timer);
  }

  /** Runs attempt under this client's retry policy (for callers, like downloads, that resume between attempts). */
  retry<T>(attempt: (n: number) => Promise<T>, signal?: AbortSignal, unreachableToo = false): Promise<T> {
    return withRetries(this.config, this.clock, attempt, { signal, unreachableToo });
  }

  /** A small index document whole (a lockfile, a project's JSON), under the index deadline and limits. */
  async getText(url: string, opts: OpenOptions = {}): Promise<TextResponse> {
    const deadlineAt = opts.deadlineAt ?? this.clock.now() + this.config.indexDeadlineMs;
    return this.retry(async () => {
      const res = await this.open(url, { index: true, maxBytes: this.config.limits.indexBytes, limit: 'indexBytes', ...opts, deadlineAt });
      const parts: Buffer[] = [];
      for await (const chunk of res.body) parts.push(chunk);
      return { url, contentType: res.headers['content-type'] ?? '', body: Buffer.concat(parts).toString('utf8') };
    }, opts.signal);
  }

  async getJson<T>(url: string, opts: OpenOptions = {}): Promise<T> {
    const res = await this.getText(url, { ...opts, headers: { accept: 'application/json', ...opts.headers } });
    try {
      return JSON.parse(res.body) as T;
    } catch (e) {
      throw new XpuError('BAD_INDEX', `${url} did not return valid JSON`, {
        cause: e,
        details: { url },
        hints: ['check that the URL points at the index itself (not a web page or a login portal)'],
      });
    }
  }

  /**
   * Hands the response body to `consume` as it arrives (for documents too large to hold whole). A broken connection
   * is retried like any other request; errors `consume` raises itself pass through unchanged.
   */
  async consumeStream<T>(url: string, consume: (body: Readable) => Promise<T>, opts: OpenOptions = {}): Promise<T> {
    const deadlineAt = opts.deadlineAt ?? this.clock.now() + this.config.indexDeadlineMs;
    return this.retry(async () => {
      const res = await this.open(url, { index: true, maxBytes: this.config.limits.indexBytes, limit: 'indexBytes', ...opts, deadlineAt });
      try {
        return await consume(res.body);
      } finally {
        await res.discard();
      }
    }, opts.signal);
  }

  /** A short reachability check for doctor: any HTTP answer counts as reachable. */
  async reach(url: string, timeoutMs = 5000): Promise<ReachAnswer> {
    try {
      const res = await this.open(url, { method: 'HEAD', headersTimeoutMs: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
      await res.discard();
      const size = res.status < 300 && res.contentLength !== undefined && res.contentLength > 0 ? res.contentLength : undefined;
      return { ok: true, status: res.status, ...(size !== undefined ? { size } : {}) };
    } catch (e) {
      if (e instanceof XpuError && (e.code === 'HTTP_STATUS' || e.code === 'NOT_FOUND')) return { ok: true, status: Number(e.details.status) };
      return { ok: false, error: networkError(url, e, undefined, this.proxyFor(url)) };
    }
  }
}

/** More bytes than the index (or the pin) declares: the request, and a resumed download, stop at once. */
export function tooLarge(url: string, max: number, got: number): XpuError {
  return new XpuError('TOO_LARGE', `${url} sent ${got} bytes or more where the index declares ${max}`, {
    details: { url, expected: max, received: got },
    hints: ['the server sends something other than the file the index describes; stopped reading. Try again later or use another index'],
  });
}

function unref(t: NodeJS.Timeout): NodeJS.Timeout {
  t.unref();
  return t;
}

function link(from: AbortSignal | undefined, to: AbortController): () => void {
  if (!from) return () => undefined;
  if (from.aborted) to.abort(from.reason);
  const on = () => to.abort(from.reason);
  from.addEventListener('abort', on, { once: true });
  return () => from.removeEventListener('abort', on);
}

type Undici = typeof import('undici');
let undiciModule: Undici | undefined;

/** undici is loaded by the first request, so commands that never touch the network do not pay for it. */
async function undici(): Promise<Undici> {
  if (!undiciModule) {
    // undici is CommonJS: Node and the bundle both hand its exports over as the default export; named exports only
    // where Node's CommonJS scan finds them.
    const m = (await import('undici')) as Undici & { default?: Undici };
    undiciModule = m.default ?? m;
  }
  return undiciModule;
}

const clients = new WeakMap<object, Http>();

/** The client for an environment (one connection pool per environment object, so deps.env is read, never process.env). */
export function httpFor(env: Record<string, string | undefined>): Http {
  let c = clients.get(env);
  if (!c) {
    c = new Http(env);
    clients.set(env, c);
  }
  return c;
}
