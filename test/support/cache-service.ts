// A stand-in for GitHub's cache service (v2: Twirp JSON calls plus signed blob URLs) on 127.0.0.1, for @actions/cache in tests.
// Test double: it keeps entries in memory, matches keys the way the service documents (exact key, then restore-key
// prefixes, newest first, same version) and records every call.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const SERVICE = '/twirp/github.actions.results.api.v1.CacheService/';

export interface CacheCall {
  method: string;
  key?: string;
  restoreKeys?: string[];
  matched?: string;
}

interface Entry {
  key: string;
  version: string;
  data?: Buffer;
  created: number;
}

export interface FakeCacheService {
  /** ACTIONS_RESULTS_URL for the action's environment. */
  url: string;
  calls: CacheCall[];
  /** Keys of the entries whose upload was finalized. */
  keys(): string[];
  close(): Promise<void>;
}

const body = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

export async function startFakeCacheService(): Promise<FakeCacheService> {
  const entries: Entry[] = [];
  const calls: CacheCall[] = [];
  const sockets = new Set<Socket>();
  let url = '';
  let seq = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const data = await body(req);
      const json = (status: number, doc: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(doc));
      };
      if (req.method === 'POST' && path.startsWith(SERVICE)) {
        const method = path.slice(SERVICE.length);
        const q = JSON.parse(data.toString('utf8') || '{}') as { key?: string; restore_keys?: string[]; version?: string };
        const call: CacheCall = { method, key: q.key, ...(q.restore_keys ? { restoreKeys: q.restore_keys } : {}) };
        calls.push(call);
        const done = entries.filter((e) => e.data && e.version === q.version);
        if (method === 'GetCacheEntryDownloadURL') {
          const exact = done.find((e) => e.key === q.key);
          const prefixed = (q.restore_keys ?? []).map((k) => done.filter((e) => e.key.startsWith(k)).sort((a, b) => b.created - a.created)[0]).find(Boolean);
          const hit = exact ?? prefixed;
          if (!hit) return json(200, { ok: false });
          call.matched = hit.key;
          return json(200, { ok: true, signed_download_url: `${url}blob/${entries.indexOf(hit)}?sig=fake`, matched_key: hit.key });
        }
        if (method === 'CreateCacheEntry') {
          if (entries.some((e) => e.key === q.key && e.version === q.version)) return json(200, { ok: false, message: 'cache entry already exists' });
          entries.push({ key: q.key!, version: q.version!, created: ++seq });
          return json(200, { ok: true, signed_upload_url: `${url}devstoreaccount1/cache/${entries.length - 1}?sig=fake` });
        }
        if (method === 'FinalizeCacheEntryUpload') {
          const e = entries.find((x) => x.key === q.key && x.version === q.version);
          return json(200, e?.data ? { ok: true, entry_id: String(entries.indexOf(e) + 1) } : { ok: false, message: 'nothing uploaded' });
        }
        return json(404, { code: 'bad_route', msg: `no method ${method}` });
      }
      const upload = /^\/devstoreaccount1\/cache\/(\d+)$/.exec(path);
      if (req.method === 'PUT' && upload) {
        // Azure's single-shot block blob upload, as the storage SDK sends it for an archive under 128 MiB.
        entries[Number(upload[1])]!.data = data;
        res.writeHead(201, { etag: `"${seq}"`, 'last-modified': new Date().toUTCString(), 'x-ms-request-server-encrypted': 'true' });
        return res.end();
      }
      const blob = /^\/blob\/(\d+)$/.exec(path);
      if (req.method === 'GET' && blob) {
        const e = entries[Number(blob[1])]!;
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': e.data!.length });
        return res.end(e.data);
      }
      res.writeHead(404);
      res.end();
    })().catch((e: Error) => {
      res.writeHead(500);
      res.end(e.message);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    calls,
    keys: () => entries.filter((e) => e.data).map((e) => e.key),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
