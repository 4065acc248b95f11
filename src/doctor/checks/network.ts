// Check: the package indexes setup uses answer within a short time; failures get proxy and TLS-interception hints.
import type { Receipt } from '../../records/receipt.js';
import { findKind } from '../../kinds/index.js';
import type { Check, ReachAnswer } from '../types.js';

export const REACH_TIMEOUT_MS = 4000;

const TLS_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Pure: the hint that matches a failed reach, given whether a proxy is configured. */
export function reachHint(answer: ReachAnswer, hasProxy: boolean): string {
  const code = String(answer.error?.details?.code ?? answer.error?.code ?? '');
  const msg = answer.error?.message ?? '';
  if (TLS_CODES.has(code) || /certificate/i.test(msg)) {
    return 'a TLS-intercepting proxy or antivirus is re-signing HTTPS: export NODE_EXTRA_CA_CERTS=/path/to/your-company-ca.pem';
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return hasProxy ? 'DNS lookup failed: check the proxy settings (HTTPS_PROXY, NO_PROXY)' : 'DNS lookup failed: offline, or a network that only allows a proxy (set HTTPS_PROXY=http://host:port)';
  }
  if (/TIMEOUT|ETIMEDOUT|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH/.test(code) || /timed? ?out|abort/i.test(msg)) {
    return hasProxy ? 'the proxy did not get through: check HTTPS_PROXY and NO_PROXY' : 'a firewall blocks direct connections: if you have a proxy, set HTTPS_PROXY=http://host:port';
  }
  if (answer.status && answer.status >= 400) return `the server answered HTTP ${answer.status}: check the index URL`;
  return 'check your network, HTTPS_PROXY / NO_PROXY, and NODE_EXTRA_CA_CERTS behind a TLS-intercepting proxy';
}

/**
 * Pure: the index roots the prefix was installed from, as its receipt records them (a mirror, an air-gapped host):
 * those are what the next setup of this prefix needs, not the public defaults.
 */
export function receiptIndexes(receipt: Pick<Receipt, 'components'> | undefined): string[] {
  const urls = new Set<string>();
  for (const c of receipt?.components ?? []) {
    const [kind, ...rest] = c.source.split(' ');
    const origin = rest.join(' ');
    for (const u of findKind(kind ?? '')?.recordedIndexes(origin) ?? []) urls.add(u);
  }
  return [...urls];
}

function failureReason(a: ReachAnswer): string {
  const code = a.error?.details?.code ?? a.error?.code;
  // A dead proxy is named: the index itself was never asked.
  if (a.error?.code === 'PROXY') return `proxy ${String(a.error.details?.proxy)} ${String(code)}`;
  if (typeof code === 'string' && code !== 'NETWORK') return code;
  if (a.status) return `HTTP ${a.status}`;
  return a.error?.message ?? 'no answer';
}

export const networkCheck: Check = {
  id: 'network',
  title: 'Package indexes reachable',
  group: 'toolchain',
  async run(ctx) {
    const { indexes } = ctx;
    const reach = ctx.deps.reach;
    if (!reach || !indexes) return { status: 'skip', message: !indexes ? 'no index list was given to check' : 'no network client in these Deps' };
    const { receipt } = await ctx.facts.receipt();
    const recorded = receiptIndexes(receipt);
    const urls = recorded.length ? recorded : await indexes(ctx.deps);
    if (urls.length === 0) return { status: 'skip', message: 'no indexes configured' };
    const whose = recorded.length ? ' (the indexes the prefix was installed from)' : '';
    const answers = await Promise.all(urls.map(async (url) => ({ url, answer: await reach(url, REACH_TIMEOUT_MS, ctx.deps.env) })));
    const env = ctx.deps.env;
    const hasProxy = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((k) => env[k]);
    const details = {
      indexesFrom: recorded.length ? 'receipt' : 'setup defaults',
      proxy: hasProxy ? env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy : null,
      results: answers.map(({ url, answer }) => ({ url, ok: answer.ok, status: answer.status, error: answer.error?.message })),
    };
    const failed = answers.filter((a) => !a.answer.ok);
    if (failed.length === 0) return { status: 'ok', message: `${urls.length} reachable${whose}: ${urls.join(', ')}`, details };
    const hints = [...new Set(failed.map((f) => reachHint(f.answer, hasProxy)))];
    return {
      status: 'warn',
      message: `cannot reach ${failed.map((f) => `${f.url} (${failureReason(f.answer)})`).join(', ')}${whose}: setup cannot download from there`,
      fix: hints.join('; '),
      details,
    };
  },
};
