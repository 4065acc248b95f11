// Which proxy a URL goes through and which CA certificates TLS trusts, both from the injected environment.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { rootCertificates } from 'node:tls';
import { XpuError } from '../base/errors.js';

export interface ProxyChoice {
  url: string;
  /** The variable it came from, so messages can say what to change. */
  variable: string;
}

type Env = Record<string, string | undefined>;

function first(env: Env, names: string[]): ProxyChoice | undefined {
  for (const variable of names) {
    const url = env[variable];
    if (url) return { url, variable };
  }
  return undefined;
}

/** The proxy settings as undici's proxy agent takes them; lower-case names win, as curl does it. */
export function proxySettings(env: Env): { http?: ProxyChoice; https?: ProxyChoice; noProxy: string } {
  const http = first(env, ['http_proxy', 'HTTP_PROXY']);
  const https = first(env, ['https_proxy', 'HTTPS_PROXY']) ?? http;
  return { http, https, noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

/** NO_PROXY entries: host, .domain, *.domain, host:port, or `*` for everything. */
function bypassed(host: string, port: number, noProxy: string): boolean {
  const entries = noProxy.split(/[,\s]+/).filter(Boolean);
  if (entries.includes('*')) return true;
  for (const entry of entries) {
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (m && Number(m[2]) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy a request to url goes through, or undefined for a direct connection. */
export function proxyFor(url: string, env: Env): ProxyChoice | undefined {
  const u = new URL(url);
  const s = proxySettings(env);
  const choice = u.protocol === 'https:' ? s.https : s.http;
  if (!choice) return undefined;
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  const host = u.host.replace(/:\d*$/, '').toLowerCase();
  return bypassed(host, port, s.noProxy) ? undefined : choice;
}

function readCa(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new XpuError('TLS', `cannot read the CA certificates in ${file} (${variable})`, {
      cause: e,
      details: { file, variable },
      hints: [`point ${variable} at a readable PEM file, or unset it`],
    });
  }
}

/**
 * The certificates TLS trusts, or undefined for Node's own list. SSL_CERT_FILE replaces the list (as OpenSSL
 * does); NODE_EXTRA_CA_CERTS adds to it. Both are read here because Node reads its own variable only from the
 * environment it was started with, not from the one a caller injects.
 */
export function trustedCas(env: Env): string[] | undefined {
  const replace = env.SSL_CERT_FILE;
  const extra = env.NODE_EXTRA_CA_CERTS;
  if (!replace && !extra) return undefined;
  const base = replace ? [readCa(replace, 'SSL_CERT_FILE')] : [...rootCertificates];
  // Both often name the system bundle: its certificates once are enough.
  const same = replace && extra && path.resolve(replace) === path.resolve(extra);
  return extra && !same ? [...base, readCa(extra, 'NODE_EXTRA_CA_CERTS')] : base;
}
