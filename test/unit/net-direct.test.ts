// Direct requests (no proxy applies) through the HTTP/1.1 wire: redirects, timeouts as typed errors, kept-alive
// connections, and the wire's own parsing of what servers send.
import { createHash, randomBytes } from 'node:crypto';
import { getEventListeners } from 'node:events';
import * as fs from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Http } from '../../src/net/http.js';
import type { Pump } from '../../src/base/pieces.js';
import { failure } from '../support/failure.js';
import { makeTestCa } from '../support/faulty-server.js';

let server: Server;
let base: string;
const sockets = new Set<Socket>();
let connections = 0;
const seen: string[] = [];
const BODY = Buffer.from('payload '.repeat(4096));

beforeAll(async () => {
  server = createServer((req, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    const hop = /^\/hop\/(\d+)$/.exec(req.url ?? '');
    if (hop) {
      const n = Number(hop[1]);
      res.writeHead(n % 2 ? 301 : 302, { location: n > 0 ? `/hop/${n - 1}` : '/file' }).end();
      return;
    }
    if (req.url === '/see-other') return void res.writeHead(303, { location: '/file' }).end();
    if (req.url === '/file') return void res.writeHead(200, { 'content-length': BODY.length }).end(req.method === 'HEAD' ? undefined : BODY);
    if (req.url === '/silent') return; // never answers
    if (req.url === '/stall') {
      res.writeHead(200, { 'content-length': BODY.length });
      res.write(BODY.subarray(0, 1000));
      return; // and nothing more
    }
    res.writeHead(404).end();
  });
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

describe('direct requests', () => {
  it('follows up to five redirects, 301 and 302 alike, and keeps HEAD a HEAD', async () => {
    const from = seen.length;
    const got = await new Http({}).getText(`${base}/hop/4`);
    expect(got.body).toBe(BODY.toString());
    expect(seen.slice(from)).toEqual(['GET /hop/4', 'GET /hop/3', 'GET /hop/2', 'GET /hop/1', 'GET /hop/0', 'GET /file']);
    const head = await new Http({}).reach(`${base}/see-other`);
    expect(head).toEqual({ ok: true, status: 200, size: BODY.length });
    expect(seen.slice(-2)).toEqual(['HEAD /see-other', 'HEAD /file']);
  });

  it('a sixth redirect is an error that says so', async () => {
    const e = await failure(new Http({}, { attempts: 1 }).getText(`${base}/hop/5`));
    expect(e).toMatchObject({ code: 'NETWORK', details: { code: 'TOO_MANY_REDIRECTS' } });
  });

  it('a server that never answers ends in a headers timeout', async () => {
    const e = await failure(new Http({}, { attempts: 1 }).open(`${base}/silent`, { headersTimeoutMs: 200 }));
    expect(e).toMatchObject({ code: 'NETWORK', details: { code: 'HEADERS_TIMEOUT', unreachable: false } });
  });

  it('a body that stops arriving ends in an idle timeout, with the bytes that came', async () => {
    const res = await new Http({}, { attempts: 1, idleTimeoutMs: 300 }).open(`${base}/stall`);
    const e = await failure((async () => {
      for await (const _ of res.body) {
        // read until it fails
      }
    })());
    expect(e).toMatchObject({ code: 'NETWORK', details: { code: 'BODY_TIMEOUT', received: 1000 } });
    expect(e.message).toMatch(/broke after 1000 bytes \(BODY_TIMEOUT\)/);
  });

  it('requests one after another share one kept-alive connection', async () => {
    const http = new Http({});
    const before = connections;
    for (let i = 0; i < 3; i++) expect((await http.getText(`${base}/file`)).body.length).toBe(BODY.length);
    expect(connections - before).toBe(1);
  });
});

/** A server that answers each request on a plain TCP socket with whatever `answer` writes: responses node:http would not send. */
async function rawServer(answer: (socket: Socket, request: string, n: number) => void): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  const open = new Set<Socket>();
  let count = 0;
  const srv = createNetServer((s) => {
    count++;
    open.add(s);
    s.on('close', () => open.delete(s));
    let pending = '';
    let n = 0;
    s.on('data', (d) => {
      pending += d.toString('latin1');
      for (let i = pending.indexOf('\r\n\r\n'); i !== -1; i = pending.indexOf('\r\n\r\n')) {
        const request = pending.slice(0, i);
        pending = pending.slice(i + 4);
        answer(s, request, n++);
      }
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    connections: () => count,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise((r) => srv.close(r));
    },
  };
}

const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const BIG = randomBytes(3 * 1024 * 1024 + 17);

/** Reads a body as pieces the way a download does, holding each for a while: every byte must come through intact. */
async function slowPieces(res: { pump: Pump }): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  await res.pump(async (piece) => {
    const copy = Buffer.from(piece);
    if (n++ % 7 === 0) await new Promise((r) => setTimeout(r, 2));
    // The piece must still hold the same bytes after the wait: the connection does not read over it.
    expect(piece.equals(copy)).toBe(true);
    parts.push(copy);
  });
  return Buffer.concat(parts);
}

describe('the HTTP/1.1 wire (own parser, reads into kept buffers)', () => {
  it('hands a large body over as pieces a slow reader holds, intact, over plain TCP and over TLS', async () => {
    const plain = await rawServer((s) => s.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${BIG.length}\r\n\r\n`), BIG])));
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-wire-'));
    const ca = await makeTestCa(dir);
    const tlsServer = createHttpsServer({ key: ca.key, cert: ca.cert }, (_req, res) => res.writeHead(200, { 'content-length': BIG.length }).end(BIG));
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    try {
      const http = new Http({ NODE_EXTRA_CA_CERTS: ca.caFile }, { attempts: 1 });
      expect(digest(await slowPieces(await http.open(`${plain.url}/big`)))).toBe(digest(BIG));
      expect(digest(await slowPieces(await http.open(`https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}/big`)))).toBe(digest(BIG));
    } finally {
      await plain.close();
      tlsServer.closeAllConnections();
      await new Promise((r) => tlsServer.close(r));
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reads a body whose reader holds each piece into the connection\'s two kept buffers, not into a fresh one per read', async () => {
    const plain = await rawServer((s) => s.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${BIG.length}\r\n\r\n`), BIG])));
    try {
      const res = await new Http({}, { attempts: 1 }).open(`${plain.url}/big`);
      const allocations = vi.spyOn(Buffer, 'allocUnsafe');
      const sizes: number[] = [];
      let bytes = 0;
      try {
        await res.pump(async (piece) => {
          bytes += piece.length;
          // Held past the moment Node asks for the next read's buffer.
          await new Promise((r) => setImmediate(r));
        });
        sizes.push(...allocations.mock.calls.map(([size]) => size));
      } finally {
        allocations.mockRestore();
      }
      expect(bytes).toBe(BIG.length);
      expect(sizes.filter((size) => size >= 64 * 1024)).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('reads chunked bodies (extensions, trailers), skips an interim 103, and reads a body that ends with the connection', async () => {
    const srv = await rawServer((s, req) => {
      if (req.startsWith('GET /chunked')) {
        s.write('HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
        s.write('5;name=value\r\nhello\r\n1');
        setTimeout(() => s.write('\r\n \r\n0\r\nX-Trailer: 1\r\n\r\n'), 20);
      } else {
        s.end('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end');
      }
    });
    try {
      const http = new Http({}, { attempts: 1 });
      expect((await http.getText(`${srv.url}/chunked`)).body).toBe('hello ');
      expect((await http.getText(`${srv.url}/close`)).body).toBe('until the end');
    } finally {
      await srv.close();
    }
  });

  it('asks again on a new connection when the kept one was closed by the server while idle, and leaves no abort listener behind', async () => {
    const srv = await rawServer((s, _req, n) => {
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      // The server closes a kept connection after its first answer, as servers do after an idle time.
      if (n === 0) setTimeout(() => s.destroy(), 10);
    });
    try {
      const http = new Http({}, { attempts: 1 });
      const stop = new AbortController();
      expect((await http.getText(`${srv.url}/a`, { signal: stop.signal })).body).toBe('ok');
      await new Promise((r) => setTimeout(r, 50));
      expect((await http.getText(`${srv.url}/b`, { signal: stop.signal })).body).toBe('ok');
      expect(srv.connections()).toBe(2);
      expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    } finally {
      await srv.close();
    }
  });

  it('keeps the bytes that arrived before the server dropped the connection, even when the body is asked for after the drop', async () => {
    const srv = await rawServer((s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(3000)}`);
      setTimeout(() => s.destroy(), 10);
    });
    try {
      const res = await new Http({}, { attempts: 1 }).open(`${srv.url}/cut`);
      await new Promise((r) => setTimeout(r, 100));
      let got = 0;
      const e = await failure(res.pump((p) => void (got += p.length)));
      expect(got).toBe(3000);
      expect(e).toMatchObject({ code: 'NETWORK', details: { received: 3000 } });
    } finally {
      await srv.close();
    }
  });

  it('a malformed answer is a protocol error naming what was wrong', async () => {
    const srv = await rawServer((s, req) => s.end(req.startsWith('GET /status') ? 'SPDY/9 200 OK\r\n\r\n' : 'HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello'));
    try {
      const http = new Http({}, { attempts: 1 });
      const status = await failure(http.getText(`${srv.url}/status`));
      expect(status).toMatchObject({ code: 'NETWORK', details: { code: 'HPE_INVALID_CONSTANT' } });
      expect(status.message).toMatch(/HPE_INVALID_CONSTANT/);
      expect(await failure(http.getText(`${srv.url}/length`))).toMatchObject({ details: { code: 'HPE_INVALID_CONTENT_LENGTH' } });
    } finally {
      await srv.close();
    }
  });
});
