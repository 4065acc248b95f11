// A plain static file server on 127.0.0.1 (what an object store or artifact repository does), recording requests.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';

export interface StaticServer {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export async function serveDirectory(root: string): Promise<StaticServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
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
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
