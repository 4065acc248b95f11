// Fault matrix, addresses: a name that resolves to a link-local address (where cloud metadata services answer) is never
// connected to, whatever spelling the resolver gives; the transport run against a server on 127.0.0.1 with a resolver
// double (the CLI through a real /etc/hosts is in index-faults.test.ts).
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectTransport } from '../../src/net/direct.js';
import { networkError } from '../../src/net/errors.js';
import { refusingLinkLocal } from '../../src/net/url-rule.js';
import { serveLocal, type LocalServer } from '../support/static-server.js';
import { FaultTable } from './matrix.js';

const table = new FaultTable('fault matrix: addresses (the direct transport, a resolver double, a server on 127.0.0.1)');
let server: LocalServer;
let port: number;
let connections = 0;

/** A resolver double: answers each name from this table, as getaddrinfo would (one address, or all with `all`). */
const TABLE: Record<string, LookupAddress[]> = {
  'mirror.test': [{ address: '127.0.0.1', family: 4 }],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'ecs.test': [{ address: '169.254.170.2', family: 4 }],
  'mapped.test': [{ address: '::ffff:169.254.169.254', family: 6 }],
  'mapped-hex.test': [{ address: '::ffff:a9fe:a9fe', family: 6 }],
  'v6-link.test': [{ address: 'fe80::1', family: 6 }],
  'rebind.test': [{ address: '127.0.0.1', family: 4 }, { address: '169.254.169.254', family: 4 }],
};
const resolverDouble: LookupFunction = (hostname, options, callback) => {
  const found = TABLE[hostname];
  if (!found) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
  if (options.all) return callback(null, found);
  callback(null, found[0]!.address, found[0]!.family);
};

beforeAll(async () => {
  server = await serveLocal((_req, res) => res.end('mirror\n'));
  server.server.on('connection', () => connections++);
  port = Number(new URL(server.url).port);
});

afterAll(async () => {
  table.print();
  await server?.close();
});

const REQUEST = { method: 'GET', headers: {}, connectTimeoutMs: 2000, headersTimeoutMs: 2000, idleTimeoutMs: 2000 };

describe('fault matrix: addresses', () => {
  it('a name resolving to 127.0.0.1 is reached (the guard lets ordinary answers through)', async () => {
    const t = new DirectTransport(undefined, refusingLinkLocal(resolverDouble));
    const r = await t.request(`http://mirror.test:${port}/x`, { ...REQUEST, signal: new AbortController().signal });
    let body = '';
    await r.pump((p) => void (body += p.toString()));
    expect([r.statusCode, body]).toEqual([200, 'mirror\n']);
  });

  it.for(['metadata.test', 'ecs.test', 'mapped.test', 'mapped-hex.test', 'v6-link.test', 'rebind.test'])('%s: refused before connecting, said with the address', async (name) => {
    const t = new DirectTransport(undefined, refusingLinkLocal(resolverDouble));
    const before = connections;
    const url = `http://${name}:${port}/latest/meta-data/`;
    const t0 = Date.now();
    const e = await t.request(url, { ...REQUEST, signal: new AbortController().signal }).then(() => undefined, (err: unknown) => networkError(url, err));
    table.add({ case: `${name} -> ${TABLE[name]!.map((a) => a.address).join(', ')}`, exit: e ? 1 : 0, code: e ? `${e.code} (${String(e.details.code)})` : '-', ms: Date.now() - t0, outside: `${connections - before} connections` });
    expect(e?.code).toBe('NETWORK');
    expect(e?.details).toMatchObject({ code: 'LINK_LOCAL', retryable: false });
    expect(e?.message).toMatch(new RegExp(`${name.replace('.', '\\.')} resolves to [^ ]+, a link-local address; not connected`));
    expect(connections).toBe(before);
  });
});
