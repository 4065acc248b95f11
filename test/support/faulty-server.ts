// A misbehaving file server on 127.0.0.1 (HTTP or HTTPS) for network tests: each request of a path takes the next scripted behaviour.
import { createHash } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { closerOf, serveLocal } from './static-server.js';

export type Behaviour =
  /** The file, honouring Range and If-Range; `bare`: without ETag or Last-Modified. */
  | { kind: 'ok'; etag?: string; bare?: boolean }
  /** Full Content-Length announced, the first `bytes` sent (of the range asked for), then the connection dropped. */
  | { kind: 'cut'; bytes: number; etag?: string; bare?: boolean }
  /** No Content-Length and no chunks (HTTP/1.0 style): the first `bytes` of the file, then the connection closed cleanly. */
  | { kind: 'short'; bytes: number }
  /** A Content-Length of `bytes`, short of the file, and that many bytes: a whole-looking answer that is not the file. */
  | { kind: 'short-length'; bytes: number }
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  /** Headers at once, then one byte every intervalMs. */
  | { kind: 'drip'; intervalMs: number }
  /** No Content-Length, and bytes without end (up to `bytes`). */
  | { kind: 'flood'; bytes: number }
  /** Connection closed before any answer. */
  | { kind: 'reset' }
  /** The file (no Range), the first `bytes` at once, the rest once `release` resolves. */
  | { kind: 'hold'; bytes: number; release: Promise<void> };

export interface Served {
  method: string;
  path: string;
  range?: string;
  ifRange?: string;
  status?: number;
  sent: number;
}

export interface FaultyServer {
  url: string;
  requests: Served[];
  /** path -> behaviours in order; the last one repeats. */
  script(path: string, file: Buffer, behaviours: Behaviour[]): void;
  close(): Promise<void>;
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

const LAST_MODIFIED = new Date(Date.UTC(2025, 0, 1)).toUTCString();

/**
 * Starts the server; it closes itself after lifetimeMs whatever happens, so a failing test cannot leave it
 * running. With tls, it speaks HTTPS with that key and certificate.
 */
export async function startFaultyServer(opts: { tls?: { key: string; cert: string }; lifetimeMs?: number } = {}): Promise<FaultyServer> {
  const routes = new Map<string, { file: Buffer; behaviours: Behaviour[]; next: number }>();
  const requests: Served[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const rec: Served = { method: req.method ?? 'GET', path: req.url ?? '/', range: req.headers.range, ifRange: req.headers['if-range'] as string | undefined, sent: 0 };
    requests.push(rec);
    const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!route) {
      rec.status = 404;
      res.writeHead(404, { 'Content-Length': 0 }).end();
      return;
    }
    const b = route.behaviours[Math.min(route.next++, route.behaviours.length - 1)]!;
    serve(b, route.file, req, res, rec);
  };
  const serve = (b: Behaviour, file: Buffer, req: IncomingMessage, res: ServerResponse, rec: Served) => {
    if (b.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (b.kind === 'status') {
      rec.status = b.status;
      res.writeHead(b.status, { 'Content-Length': 0, ...b.headers }).end();
      return;
    }
    if (b.kind === 'flood') {
      rec.status = 200;
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x5a);
      const pump = () => {
        while (rec.sent < b.bytes && !res.destroyed) {
          rec.sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    if (b.kind === 'drip') {
      rec.status = 200;
      res.writeHead(200, { 'Content-Length': file.length, 'Content-Type': 'application/octet-stream' });
      const t = setInterval(() => {
        if (res.destroyed || rec.sent >= file.length) {
          clearInterval(t);
          timers.delete(t);
          return void res.end();
        }
        res.write(file.subarray(rec.sent, rec.sent + 1));
        rec.sent++;
      }, b.intervalMs);
      timers.add(t);
      res.on('close', () => clearInterval(t));
      return;
    }
    if (b.kind === 'short') {
      rec.status = 200;
      rec.sent = Math.min(b.bytes, file.length);
      const etag = `"${sha256(file).slice(0, 16)}"`;
      req.socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nETag: ${etag}\r\nConnection: close\r\n\r\n`), file.subarray(0, b.bytes)]));
      return;
    }
    if (b.kind === 'short-length') {
      rec.status = 200;
      rec.sent = Math.min(b.bytes, file.length);
      res.writeHead(200, { 'Content-Length': rec.sent, 'Content-Type': 'application/octet-stream' }).end(file.subarray(0, rec.sent));
      return;
    }
    if (b.kind === 'hold') {
      rec.status = 200;
      res.writeHead(200, { 'Content-Length': file.length, 'Content-Type': 'application/octet-stream' });
      res.write(file.subarray(0, b.bytes));
      rec.sent = b.bytes;
      void b.release.then(() => {
        rec.sent = file.length;
        res.end(file.subarray(b.bytes));
      });
      return;
    }
    const etag = b.etag ?? `"${sha256(file).slice(0, 16)}"`;
    const headers: Record<string, string | number> = b.bare
      ? { 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' }
      : { ETag: etag, 'Last-Modified': LAST_MODIFIED, 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' };
    let body = file;
    let status = 200;
    const range = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
    const ifRange = req.headers['if-range'];
    if (range && (ifRange === undefined || ifRange === etag || ifRange === LAST_MODIFIED)) {
      const start = Number(range[1]);
      if (start >= file.length) {
        rec.status = 416;
        res.writeHead(416, { 'Content-Range': `bytes */${file.length}`, 'Content-Length': 0 }).end();
        return;
      }
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${file.length - 1}/${file.length}`;
      body = file.subarray(start);
    }
    rec.status = status;
    res.writeHead(status, { ...headers, 'Content-Length': body.length });
    if (req.method === 'HEAD') return void res.end();
    if (b.kind === 'cut') {
      const part = body.subarray(0, b.bytes);
      rec.sent = part.length;
      // A pause before the drop, as when a link dies mid-transfer: a drop in the same instant would also discard
      // what the client had received but not yet read, and the test would measure that race instead.
      res.write(part, () => {
        const t = setTimeout(() => res.socket?.destroy(), 150);
        timers.add(t);
      });
      return;
    }
    rec.sent = body.length;
    res.end(body);
  };
  const server: Server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : createHttpServer(handler);
  const closeServer = closerOf(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const t of timers) clearInterval(t);
    await closeServer();
  };
  setTimeout(() => void close(), opts.lifetimeMs ?? 120_000).unref();
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    script(path, file, behaviours) {
      routes.set(path, { file, behaviours, next: 0 });
    },
    close,
  };
}

/** A port on 127.0.0.1 that was free a moment ago and has nothing listening: a dead proxy or mirror. */
export async function deadPort(): Promise<number> {
  const s = createHttpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * A plain forward proxy for http:// URLs and CONNECT tunnels, counting what passed through it, so a test can tell a
 * proxied request from a direct one.
 */
export async function startForwardProxy(
  opts: { /** Like squid's default: CONNECT only to port 443, 403 otherwise. */ connectOnly443?: boolean; /** Answer every request and CONNECT with this status. */ answer?: number } = {},
): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const { url, server, close } = await serveLocal((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (opts.answer) return void res.writeHead(opts.answer, { 'content-length': 0 }).end();
    const target = new URL(req.url ?? '');
    const upstream = connect(Number(target.port) || 80, target.hostname, () => {
      const head = [`${req.method} ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`, 'Connection: close'];
      for (const [k, v] of Object.entries(req.headers)) if (!['host', 'connection', 'proxy-connection'].includes(k)) head.push(`${k}: ${String(v)}`);
      upstream.write(head.join('\r\n') + '\r\n\r\n');
      req.pipe(upstream);
      upstream.pipe(res.socket!);
    });
    upstream.on('error', () => res.destroy());
  });
  server.on('connect', (req: IncomingMessage, client: Socket) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = String(req.url).split(':');
    const refuse = opts.answer ?? (opts.connectOnly443 && port !== '443' ? 403 : undefined);
    if (refuse) return void client.end(`HTTP/1.1 ${refuse} Refused\r\nContent-Length: 0\r\n\r\n`);
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  setTimeout(() => void server.close(), 120_000).unref();
  return { url, seen, close };
}

/** A CA and a server certificate for 127.0.0.1 signed by it, made with openssl now, in dir. */
export async function makeTestCa(dir: string): Promise<{ caFile: string; key: string; cert: string }> {
  const { execa } = await import('execa');
  const { readFile, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const p = (n: string) => join(dir, n);
  const run = (args: string[]) => execa('openssl', args, { cwd: dir });
  await run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem'), '-days', '2', '-subj', '/CN=xpu-setup test CA']);
  await run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=127.0.0.1']);
  await writeFile(p('ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  await run(['x509', '-req', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('server.pem'), '-days', '2', '-extfile', p('ext.cnf')]);
  return { caFile: p('ca.pem'), key: await readFile(p('server.key'), 'utf8'), cert: await readFile(p('server.pem'), 'utf8') };
}
