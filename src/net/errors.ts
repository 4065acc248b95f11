// The network's failures as typed errors: what could not be reached, a certificate not accepted, a proxy's refusal, a
// status, a redirect not followed, a body larger than declared; each names the URL (its credentials hidden).
import { XpuError } from '../base/errors.js';
import { parseRetryAfter } from './retry.js';
import type { ProxyChoice } from './proxy.js';

const UNREACHABLE_CODES = new Set([
  'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'CONNECT_TIMEOUT', 'EADDRNOTAVAIL',
]);

/** What to do when a certificate is not accepted: said by every request that fails so, index or archive. */
export const TLS_HINTS = [
  'a proxy or antivirus that intercepts HTTPS and re-signs it is the likely cause',
  'get its CA certificate as a PEM file and export NODE_EXTRA_CA_CERTS=/path/to/ca.pem (SSL_CERT_FILE=/path replaces the whole CA list)',
];

/** A redirect that is not followed: the same answer comes every time, so it is not retried. */
export function redirectError(url: string, why: string, code: string, hints: string[]): XpuError {
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

/** The first error in e's cause chain that carries a code of its own. */
function codedError(e: unknown): { code: string; hostname?: string; address?: string } | undefined {
  let cur = e as { code?: string; hostname?: string; address?: string; cause?: unknown; errors?: unknown[] } | undefined;
  for (let i = 0; cur && i < 6; i++) {
    if (cur.code && cur.code !== 'UND_ERR' && cur.code !== 'UND_ERR_ABORTED') return cur as { code: string };
    if (Array.isArray(cur.errors) && cur.errors.length) cur = cur.errors[0] as typeof cur;
    else cur = cur.cause as typeof cur;
  }
  return undefined;
}

/** `received` is set when the failure came while reading the body: the server answered, then the connection broke. */
export function networkError(url: string, e: unknown, received?: number, proxy?: ProxyChoice): XpuError {
  if (e instanceof XpuError) return e;
  const coded = codedError(e);
  const code = coded?.code;
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
  if (code === 'LINK_LOCAL') {
    const { hostname, address } = coded!;
    return new XpuError('NETWORK', `${url}: ${hostname} resolves to ${address}, a link-local address; not connected`, {
      cause: e,
      details: { url, code, address, unreachable: false, retryable: false },
      hints: ['cloud metadata services answer at link-local addresses, so a name that resolves there is never connected to; write the address itself in the URL if you mean it'],
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
  const to = (e as { redirectedTo?: string } | undefined)?.redirectedTo;
  const where = to ? `${to} (where ${url} redirected)` : url;
  const what = received === undefined ? `cannot reach ${where}` : `the connection to ${where} broke after ${received} bytes`;
  return new XpuError('NETWORK', `${what}${code ? ` (${code})` : ''}`, {
    cause: e,
    hints,
    details: { url, code, unreachable, received, proxy: proxy?.url, ...(to ? { redirectedTo: to } : {}) },
  });
}

function causeMessages(e: unknown): string {
  const out: string[] = [];
  let cur = e as { message?: string; cause?: unknown } | undefined;
  for (let i = 0; cur && i < 6; i++, cur = cur.cause as typeof cur) out.push(String(cur.message ?? ''));
  return out.join('\n');
}

export function statusError(url: string, status: number, headers: Record<string, string | undefined>, now: number, proxy?: ProxyChoice): XpuError {
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

/** More bytes than the index (or the pin) declares: the request, and a resumed download, stop at once. */
export function tooLarge(url: string, max: number, got: number): XpuError {
  return new XpuError('TOO_LARGE', `${url} sent ${got} bytes or more where the index declares ${max}`, {
    details: { url, expected: max, received: got },
    hints: ['the server sends something other than the file the index describes; stopped reading. Try again later or use another index'],
  });
}
