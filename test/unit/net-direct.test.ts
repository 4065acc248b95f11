// Direct requests (no proxy applies) through node:http: redirects, timeouts as typed errors, one kept-alive connection.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Http } from '../../src/net/http.js';
import { failure } from '../support/failure.js';

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
