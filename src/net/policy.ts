// What every request is held to, whichever transport carries it: the redirect policy, the deadline and the minimum rate.
import { XpuError } from '../base/errors.js';
import { NET_ENV, type NetConfig } from './config.js';
import { redactUrl } from './credentials.js';
import { redirectError } from './errors.js';
import type { RetryClock } from './retry.js';
import type { RawResponse } from './transport.js';
import { isLinkLocal } from './url-rule.js';

/** Release assets (GitHub) answer with redirects. */
const MAX_REDIRECTIONS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The request and the redirects it answers with, under one policy for both transports: at most MAX_REDIRECTIONS,
 * never to an address already visited (a loop is said at once, not retried), never from https down to plain http
 * unless XPU_SETUP_ALLOW_HTTP_REDIRECT=1, never to another scheme or a link-local host the user did not name.
 */
export async function followRedirects(
  named: string,
  method: string,
  config: Pick<NetConfig, 'allowHttpRedirect'>,
  send: (url: string, method: string) => Promise<RawResponse>,
): Promise<RawResponse> {
  const url = redactUrl(named);
  let current = new URL(named);
  const seen = new Set([current.href]);
  for (let hop = 0; ; hop++) {
    const res = hop === 0 ? await send(current.href, method) : await send(current.href, method).catch((e: unknown) => {
      // The failure is the redirect target's: said with it, not only with the URL first asked.
      if (e && typeof e === 'object' && !(e instanceof XpuError)) Object.assign(e, { redirectedTo: redactUrl(current.href) });
      throw e;
    });
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
    if (current.protocol === 'https:' && next.protocol === 'http:' && !config.allowHttpRedirect) {
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


/** The error a read past its deadline fails with (made when the time is up: it says what had arrived). */
export function deadlineError(config: NetConfig, url: string, received: () => number, index: boolean): () => XpuError {
  const ms = index ? config.indexDeadlineMs : config.downloadDeadlineMs;
  return () =>
    new XpuError('DEADLINE', `${index ? 'reading' : 'download of'} ${url} did not finish within ${ms / 1000} s (${received()} bytes arrived)`, {
      details: { url, deadlineMs: ms, received: received(), retryable: false },
      hints: [`the server or the network is too slow; try again later or use a mirror, or raise ${index ? NET_ENV.indexDeadlineSeconds : NET_ENV.deadlineSeconds}`],
    });
}

/** Aborts when fewer than minBytesPerSecond arrived over the last rateWindowMs. */
export function watchRate(config: NetConfig, clock: RetryClock, url: string, ac: AbortController, timers: NodeJS.Timeout[], received: () => number, index: boolean): void {
  const { minBytesPerSecond: rate, rateWindowMs: window } = config;
  const samples: Array<{ at: number; bytes: number }> = [{ at: clock.now(), bytes: 0 }];
  const tick = Math.max(50, Math.min(1000, window / 4));
  const timer = unref(
    setInterval(() => {
      const now = clock.now();
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

export function unref(t: NodeJS.Timeout): NodeJS.Timeout {
  t.unref();
  return t;
}
