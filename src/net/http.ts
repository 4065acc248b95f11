// The only HTTP code: one undici dispatcher (proxy-aware), retries for transient failures, typed errors with the URL.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { Dispatcher } from 'undici';
import { XpuError } from '../errors.js';

export interface HttpOptions {
  headers?: Record<string, string>;
  /** Time allowed to connect and to wait for the response headers. */
  timeoutMs?: number;
  /** Attempts for transient failures (5xx, reset). Unreachable hosts fail at once. */
  retries?: number;
  signal?: AbortSignal;
}

export interface DownloadProgress {
  received: number;
  total?: number;
}

export interface DownloadResult {
  sha256: string;
  size: number;
}

const UNREACHABLE_CODES = new Set([
  'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'EADDRNOTAVAIL',
]);
const TRANSIENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

type Undici = typeof import('undici');
let undiciModule: Undici | undefined;
let dispatcher: Dispatcher | undefined;

/** undici is loaded on the first request, so commands that never touch the network do not pay for it. */
async function undici(): Promise<Undici> {
  if (!undiciModule) {
    // undici is CommonJS: Node and the bundle both hand its exports over as the default export; named exports only
    // where Node's CommonJS scan finds them.
    const m = (await import('undici')) as Undici & { default?: Undici };
    undiciModule = m.default ?? m;
  }
  return undiciModule;
}

/** HTTP(S)_PROXY / NO_PROXY are honoured when set; NODE_EXTRA_CA_CERTS reaches TLS through Node itself. */
function getDispatcher({ Agent, EnvHttpProxyAgent, interceptors }: Undici): Dispatcher {
  if (!dispatcher) {
    const hasProxy = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some((k) => process.env[k]);
    const connect = { timeout: 15_000 };
    const base = hasProxy ? new EnvHttpProxyAgent({ connect }) : new Agent({ connect, connections: 8 });
    // Release assets (GitHub) answer with redirects.
    dispatcher = base.compose(interceptors.redirect({ maxRedirections: 5 }));
  }
  return dispatcher;
}

function errorCode(e: unknown): string | undefined {
  let cur = e as { code?: string; cause?: unknown; errors?: unknown[] } | undefined;
  for (let i = 0; cur && i < 5; i++) {
    if (cur.code && cur.code !== 'UND_ERR') return cur.code;
    if (Array.isArray(cur.errors) && cur.errors.length) cur = cur.errors[0] as typeof cur;
    else cur = cur.cause as typeof cur;
  }
  return undefined;
}

/** True when the error means the server could not be reached at all (the planner then tries the next source). */
export function isUnreachable(e: unknown): boolean {
  return e instanceof XpuError && e.code === 'NETWORK' && e.details.unreachable === true;
}

/** `received` is set when the failure came while reading the body: the server answered, then the connection broke. */
function networkError(url: string, e: unknown, received?: number): XpuError {
  const code = errorCode(e);
  const unreachable = received === undefined && code !== undefined && UNREACHABLE_CODES.has(code);
  const hints = unreachable
    ? ['check the address, your network, or HTTPS_PROXY / NO_PROXY; behind a TLS-intercepting proxy set NODE_EXTRA_CA_CERTS']
    : ['the connection broke; run the command again (downloads already verified are kept in the cache)'];
  const what = received === undefined ? `cannot reach ${url}` : `the connection to ${url} broke after ${received} bytes`;
  return new XpuError('NETWORK', `${what}${code ? ` (${code})` : ''}`, {
    cause: e,
    hints,
    details: { url, code, unreachable, received },
  });
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

async function withRetries<T>(url: string, opts: HttpOptions, attempt: () => Promise<T>): Promise<T> {
  const retries = opts.retries ?? 3;
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      const err = e instanceof XpuError ? e : networkError(url, e);
      const transient =
        (err.code === 'NETWORK' && !err.details.unreachable && TRANSIENT_CODES.has(String(err.details.code))) ||
        (err.code === 'HTTP_STATUS' && Number(err.details.status) >= 500) ||
        err.code === 'SIZE_MISMATCH';
      if (!transient || i >= retries - 1 || opts.signal?.aborted) throw err;
      await sleep(250 * 2 ** i);
    }
  }
}

async function open(url: string, opts: HttpOptions): Promise<Dispatcher.ResponseData<unknown>> {
  let res: Dispatcher.ResponseData<unknown>;
  try {
    const u = await undici();
    res = await u.request(url, {
      dispatcher: getDispatcher(u),
      headers: { 'user-agent': 'xpu-setup', ...opts.headers },
      headersTimeout: opts.timeoutMs ?? 30_000,
      bodyTimeout: 60_000,
      signal: opts.signal,
    });
  } catch (e) {
    throw networkError(url, e);
  }
  if (res.statusCode >= 400) {
    await res.body.dump().catch(() => undefined);
    const notFound = res.statusCode === 404 || res.statusCode === 410;
    throw new XpuError(notFound ? 'NOT_FOUND' : 'HTTP_STATUS', `GET ${url} answered HTTP ${res.statusCode}`, {
      details: { url, status: res.statusCode },
      hints: notFound ? ['check the index URL and the package name'] : ['the server failed; try again later or use another index'],
    });
  }
  return res;
}

export interface TextResponse {
  url: string;
  contentType: string;
  body: string;
}

export async function getText(url: string, opts: HttpOptions = {}): Promise<TextResponse> {
  return withRetries(url, opts, async () => {
    const res = await open(url, opts);
    try {
      const body = await res.body.text();
      return { url, contentType: String(res.headers['content-type'] ?? ''), body };
    } catch (e) {
      throw networkError(url, e, 0);
    }
  });
}

export async function getJson<T>(url: string, opts: HttpOptions = {}): Promise<T> {
  const res = await getText(url, { ...opts, headers: { accept: 'application/json', ...opts.headers } });
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
export async function consumeStream<T>(url: string, consume: (body: AsyncIterable<Buffer>) => Promise<T>, opts: HttpOptions = {}): Promise<T> {
  return withRetries(url, opts, async () => {
    const res = await open(url, opts);
    let received = 0;
    const counted = (async function* () {
      try {
        for await (const chunk of res.body) {
          received += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
      } catch (e) {
        throw networkError(url, e, received);
      }
    })();
    try {
      return await consume(counted);
    } finally {
      await res.body.dump().catch(() => undefined);
    }
  });
}

/**
 * Streams url into destFile, hashing as bytes arrive. The caller decides where destFile lives (a temp file in the
 * cache) and renames it only after checking the hash.
 */
export async function download(
  url: string,
  destFile: string,
  opts: HttpOptions & { expectedSize?: number; onProgress?: (p: DownloadProgress) => void } = {},
): Promise<DownloadResult> {
  return withRetries(url, opts, async () => {
    const res = await open(url, opts);
    const lenHeader = Number(res.headers['content-length']);
    const total = Number.isFinite(lenHeader) && lenHeader > 0 ? lenHeader : opts.expectedSize;
    const hash = createHash('sha256');
    const out = createWriteStream(destFile);
    let received = 0;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        hash.update(buf);
        received += buf.length;
        if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()));
        opts.onProgress?.({ received, total });
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    } catch (e) {
      out.destroy();
      throw networkError(url, e, received);
    }
    const expected = Number.isFinite(lenHeader) && lenHeader > 0 ? lenHeader : undefined;
    if (expected !== undefined && received !== expected) {
      throw new XpuError('SIZE_MISMATCH', `download of ${url} ended after ${received} of ${expected} bytes`, {
        details: { url, expected, received },
        hints: ['the connection was cut; run the command again'],
      });
    }
    return { sha256: hash.digest('hex'), size: received };
  });
}

/** A short reachability check for doctor: any HTTP answer counts as reachable. */
export async function reach(url: string, timeoutMs = 5000): Promise<{ ok: boolean; status?: number; error?: XpuError }> {
  try {
    const u = await undici();
    const res = await u.request(url, {
      dispatcher: getDispatcher(u),
      method: 'HEAD',
      headersTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump().catch(() => undefined);
    return { ok: true, status: res.statusCode };
  } catch (e) {
    return { ok: false, error: networkError(url, e) };
  }
}
