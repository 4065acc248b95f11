// Requests that go to the server directly (no proxy applies) through node:http and node:https, which load in ~15 ms
// where undici takes ~120 ms: one keep-alive pool per client and scheme, timeouts as codes.
import * as http from 'node:http';
import * as https from 'node:https';
import type { Readable } from 'node:stream';
import type { SecureContext } from 'node:tls';

export interface RawResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
  /** Reads the rest of the body and throws it away, so the connection can serve the next request. */
  dump(): Promise<void>;
}

export interface DirectOptions {
  method: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** The longest silence while the body arrives. */
  idleTimeoutMs: number;
}

/** An error with the code networkError() maps (the same words a timeout has in the rest of the code). */
function codeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export class DirectTransport {
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly secureContext?: SecureContext) {}

  private agentFor(protocol: string): http.Agent {
    let a = this.agents.get(protocol);
    if (!a) {
      a = protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 8, ...(this.secureContext ? { secureContext: this.secureContext } : {}) }) : new http.Agent({ keepAlive: true, maxSockets: 8 });
      this.agents.set(protocol, a);
    }
    return a;
  }

  /** One request; a redirect is answered as it came (Http.open follows it, under one policy for every transport). */
  request(url: string, opts: DirectOptions): Promise<RawResponse> {
    return this.once(new URL(url), opts.method, opts);
  }

  private once(url: URL, method: string, opts: DirectOptions): Promise<RawResponse> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(codeError('UNSUPPORTED_SCHEME', `cannot fetch ${url.href}: only http and https`));
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise<RawResponse>((resolve, reject) => {
      const timers: NodeJS.Timeout[] = [];
      const clear = () => timers.forEach((t) => clearTimeout(t));
      const req = mod.request(url, { method, headers: opts.headers, agent: this.agentFor(url.protocol), signal: opts.signal });
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        const t = setTimeout(() => req.destroy(codeError('CONNECT_TIMEOUT', `no connection to ${url.host} within ${opts.connectTimeoutMs} ms`)), opts.connectTimeoutMs);
        timers.push(t);
        socket.once('connect', () => clearTimeout(t));
      });
      timers.push(setTimeout(() => req.destroy(codeError('HEADERS_TIMEOUT', `no answer from ${url.host} within ${opts.headersTimeoutMs} ms`)), opts.headersTimeoutMs));
      req.on('error', (e) => {
        clear();
        reject(e);
      });
      req.on('response', (res) => {
        clear();
        res.setTimeout(opts.idleTimeoutMs, () => res.destroy(codeError('BODY_TIMEOUT', `${url.host} sent nothing for ${opts.idleTimeoutMs} ms`)));
        // An error while the body streams reaches its reader; this listener only keeps it from being unhandled.
        req.on('error', () => undefined);
        resolve({
          statusCode: res.statusCode ?? 0,
          headers: res.headers,
          body: res,
          dump: () =>
            new Promise<void>((done) => {
              if (res.readableEnded || res.destroyed) return done();
              res.on('end', done).on('close', done).on('error', done);
              res.resume();
            }),
        });
      });
      req.end();
    });
  }
}
