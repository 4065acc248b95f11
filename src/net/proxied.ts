// Requests through a proxy (HTTPS_PROXY / HTTP_PROXY, NO_PROXY): undici's proxy agent behind the transport interface,
// loaded by the first such request only.
import type { SecureContext } from 'node:tls';
import type { buildConnector, Dispatcher } from 'undici';
import { piecesOf } from '../base/pieces.js';
import { proxySettings } from './proxy.js';
import type { RawResponse, Transport, TransportRequest } from './transport.js';
import { refusingLinkLocal } from './url-rule.js';

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

export class ProxiedTransport implements Transport {
  private dispatcher?: Dispatcher;

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly connectTimeoutMs: number,
    private readonly secureContext: () => SecureContext | undefined,
  ) {}

  async request(url: string, opts: TransportRequest): Promise<RawResponse> {
    const u = await undici();
    // The connect timeout is the dispatcher's own (one per client).
    const { method, headers, signal, headersTimeoutMs, idleTimeoutMs } = opts;
    const r = await u.request(url, { method, headers, signal, dispatcher: this.getDispatcher(u), headersTimeout: headersTimeoutMs, bodyTimeout: idleTimeoutMs });
    return {
      statusCode: r.statusCode,
      headers: flatHeaders(r.headers),
      pump: piecesOf(r.body),
      dump: () => r.body.dump(),
      cancel: () => r.body.destroy(),
    };
  }

  private getDispatcher({ Agent, buildConnector, EnvHttpProxyAgent }: Undici): Dispatcher {
    if (!this.dispatcher) {
      const context = this.secureContext();
      const tls = context ? { secureContext: context } : {};
      // The servers reached directly, and those reached through a CONNECT tunnel, never at a link-local address.
      const connect = { timeout: this.connectTimeoutMs, lookup: refusingLinkLocal(), ...tls };
      const p = proxySettings(this.env);
      // Empty strings, not undefined: undici would otherwise read process.env behind the injected environment.
      // proxyTunnel false: plain http goes to the proxy as a request for the absolute URI, https through CONNECT, as
      // curl and pip do (squid, by default, allows CONNECT to port 443 only). Redirects are followed by policy.ts.
      this.dispatcher =
        p.http || p.https
          ? new EnvHttpProxyAgent({ httpProxy: p.http?.url ?? '', httpsProxy: p.https?.url ?? '', noProxy: p.noProxy, connect, requestTls: tls, proxyTls: tls, proxyTunnel: false })
          : new Agent({ connect: connectThenKeepAlive(buildConnector, connect), connections: 8 });
    }
    return this.dispatcher;
  }
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
