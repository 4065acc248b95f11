// The one rule for a URL that an index hands out (a repodata or shard index base_url, a PyPI file URL): resolved
// against the document that names it, http(s) only, never a step down from https, no link-local host the user did
// not name; a local path only from an index the user named as local (a bundle, a file: channel).
import * as dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { XpuError } from '../base/errors.js';
import { redactUrl, rememberCredentials } from './credentials.js';

/**
 * 169.254.0.0/16 and fe80::/10: where cloud metadata services answer; nothing an index should send anyone to. An
 * IPv4 address inside IPv6 (mapped `::ffff:169.254.169.254`, as URL parsing writes it `::ffff:a9fe:a9fe`; NAT64
 * `64:ff9b::`; the old compatible `::`) is the IPv4 address it carries. `hostname` may be a URL's or a socket's.
 */
export function isLinkLocal(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (/^169\.254\.\d{1,3}\.\d{1,3}$/.test(h) || /^fe[89ab][0-9a-f]?:/.test(h)) return true;
  const inside = /^(?:::ffff:|::ffff:0:|64:ff9b::|::)(?:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(h);
  if (!inside) return false;
  if (inside[1]) return inside[1].startsWith('169.254.');
  return parseInt(inside[2]!, 16) === 0xa9fe;
}

/**
 * net.connect's `lookup`, refusing a name that resolves to a link-local address (any of its addresses, in any spelling):
 * the URL rule sees names, the connection the address. An address written as such in the URL is never looked up, so a
 * link-local host the user names as an address is still reached.
 */
export function refusingLinkLocal(lookup: LookupFunction = dns.lookup as LookupFunction): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const found = (Array.isArray(address) ? address.map((a) => a.address) : [address]).find(isLinkLocal);
      if (found === undefined) return callback(null, address, family);
      callback(Object.assign(new Error(`${hostname} resolves to ${found}, a link-local address; not connected`), { code: 'LINK_LOCAL', hostname, address: found }), address, family);
    });
}

export function urlRefused(document: string, field: string, value: string, why: string): XpuError {
  return new XpuError('URL_REFUSED', `${field} of ${document} names ${value}: ${why}; refused`, {
    details: { url: document, field, value, retryable: false },
    hints: ['the index points somewhere xpu-setup does not follow from it; nothing was read from there. Use another index or mirror, or tell who runs it'],
  });
}

/**
 * `value` resolved against `document` (the URL the index was read from), or URL_REFUSED saying which field of which
 * document named what. `field` is the place in the document (`info.base_url`, `files[3].url`).
 */
export function urlFromIndex(value: string, document: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value, document);
  } catch {
    throw urlRefused(document, field, JSON.stringify(redactUrl(value)), 'not a URL');
  }
  const from = new URL(document);
  if (url.protocol === 'file:') {
    if (from.protocol === 'file:') return url.href;
    throw urlRefused(document, field, redactUrl(url.href), 'a remote index may not name a local path (local files are read only from a source named as local: --from DIR, a file: channel)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw urlRefused(document, field, redactUrl(url.href), 'only http and https URLs are followed');
  if (from.protocol === 'https:' && url.protocol === 'http:') throw urlRefused(document, field, redactUrl(url.href), 'a step down from https to plain http');
  if (isLinkLocal(url.hostname) && url.host !== from.host) throw urlRefused(document, field, redactUrl(url.href), 'a link-local address, which only the user may name');
  // Credentials an index writes into a URL go to that URL's host alone, and are not written anywhere either.
  return rememberCredentials(url.href);
}
