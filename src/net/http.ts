// The HTTP API the rest of the code uses (one request, retries, whole documents, streams, reachability), with the
// injected environment's proxy and CAs; the transport for each URL is chosen in one place (`transportFor`). Returns
// bodies as pieces or streams, never writes files.
import type { Readable } from 'node:stream';
import { createSecureContext, type SecureContext } from 'node:tls';
import { XpuError } from '../base/errors.js';
import { DEFAULT_NET_CONFIG, netConfigFromEnv, overLimit, type IndexLimits, type NetConfig } from './config.js';
import { PieceStream, pumpInto, type PieceSink, type Pump } from '../base/pieces.js';
import { redactUrl, requestAuth } from './credentials.js';
import { DirectTransport } from './direct.js';
import { networkError, statusError, tooLarge } from './errors.js';
import { deadlineError, followRedirects, unref, watchRate } from './policy.js';
import { ProxiedTransport } from './proxied.js';
import { proxyFor, trustedCas, type ProxyChoice } from './proxy.js';
import { realClock, withRetries, type RetryClock } from './retry.js';
import type { RawResponse, Transport } from './transport.js';

export { networkError, TLS_CODES, TLS_HINTS, tooLarge } from './errors.js';

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

export class Http {
  readonly config: NetConfig;
  private direct?: DirectTransport;
  private proxied?: ProxiedTransport;
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

  /**
   * The one choice of transport: requests no proxy applies to go to the server itself (DirectTransport), the others
   * through undici's proxy agent, which loads only for them.
   */
  private transportFor(url: string): Transport {
    if (this.proxyFor(url)) return (this.proxied ??= new ProxiedTransport(this.env, this.config.connectTimeoutMs, () => this.secureContext()));
    return (this.direct ??= new DirectTransport(() => this.secureContext()));
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
      const err = deadlineError(this.config, url, () => received, index);
      if (left <= 0) throw err();
      timers.push(unref(setTimeout(() => ac.abort(err()), left)));
    }
    if ((opts.minRate || index) && this.config.minBytesPerSecond > 0) watchRate(this.config, this.clock, url, ac, timers, () => received, index);
    let res: RawResponse;
    try {
      res = await followRedirects(named, opts.method ?? 'GET', this.config, (u, method) => this.send(u, method, opts, ac.signal));
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

  /** One request to `url` (no redirect followed) through the transport chosen for it. */
  private send(named: string, method: string, opts: OpenOptions, signal: AbortSignal): Promise<RawResponse> {
    // Basic auth only where the user gave credentials for this very origin; the request line never carries them.
    const { url, authorization } = requestAuth(named);
    return this.transportFor(url).request(url, {
      method,
      headers: { 'user-agent': 'xpu-setup', ...(authorization ? { authorization } : {}), ...opts.headers },
      signal,
      connectTimeoutMs: this.config.connectTimeoutMs,
      headersTimeoutMs: opts.headersTimeoutMs ?? this.config.headersTimeoutMs,
      idleTimeoutMs: this.config.idleTimeoutMs,
    });
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

function link(from: AbortSignal | undefined, to: AbortController): () => void {
  if (!from) return () => undefined;
  if (from.aborted) to.abort(from.reason);
  const on = () => to.abort(from.reason);
  from.addEventListener('abort', on, { once: true });
  return () => from.removeEventListener('abort', on);
}
