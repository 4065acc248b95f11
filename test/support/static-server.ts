// A plain static file server on 127.0.0.1 (what an object store or artifact repository does), recording requests.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';

export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  server: Server;
  /** Ends the connections still open, then the server. */
  close(): Promise<void>;
}

/** A close() for `server` that ends its open connections first (a client's keep-alive would hold it open). */
export function closerOf(server: Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

/** `handler` answering on a free port of 127.0.0.1. */
export async function serveLocal(handler: RequestListener): Promise<LocalServer> {
  const server = createServer(handler);
  const close = closerOf(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, close };
}

export interface StaticServer {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export async function serveDirectory(root: string): Promise<StaticServer> {
  const requests: string[] = [];
  const { url, close } = await serveLocal((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(rel);
    const file = path.join(root, ...rel.split('/').filter((p) => p && p !== '..'));
    void stat(file).then(
      (st) => {
        const target = st.isDirectory() ? path.join(file, 'index.html') : file;
        return stat(target).then((t) => {
          const type = target.endsWith('.json') ? 'application/json' : target.endsWith('.html') ? 'text/html' : 'application/octet-stream';
          res.writeHead(200, { 'content-type': type, 'content-length': t.size });
          createReadStream(target).pipe(res);
        });
      },
    ).catch(() => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    });
  });
  return { url, requests, close };
}
