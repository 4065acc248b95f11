// Requests that go to the server directly (no proxy applies): HTTP/1.1 over node:net and node:tls, each connection
// reading into two buffers of its own. node:http hands every socket read over in a freshly allocated buffer, and where
// touching new memory is slow (virtual machines) that costs more than the transfer: 24 MB over loopback took 90-130 ms
// read so, 12 ms into a kept buffer. One keep-alive pool per origin; timeouts as codes.
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { PieceSink } from '../base/pieces.js';
import type { RawResponse, Transport, TransportRequest } from './transport.js';
import { refusingLinkLocal } from './url-rule.js';

export type { RawResponse } from './transport.js';
/** What DirectTransport is asked (the transport interface's request). */
export type DirectOptions = TransportRequest;

/** An error with the code networkError() maps (the same words a timeout has in the rest of the code). */
function codeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR', cause: signal.reason as unknown });
}

/** Each connection reads into buffers this big, kept for its life. */
const READ_BYTES = 256 * 1024;
/** The most a response head (status line and headers) may take. */
const MAX_HEAD = 64 * 1024;
/** Connections open at once to one origin; more requests wait for one to come free. */
const MAX_CONNECTIONS = 8;
const LF = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n');

type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

interface Head {
  statusCode: number;
  headers: Record<string, string | undefined>;
  keepAlive: boolean;
}

/** A response head, or why it is not one (said as node:http's parser would: a malformed answer is a protocol error). */
function parseHead(text: string): Head {
  const lines = text.split('\r\n');
  const status = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
  if (!status) throw codeError('HPE_INVALID_CONSTANT', `not an HTTP/1.x response: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
  const headers: Record<string, string | undefined> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0 || /[\s]/.test(line.slice(0, colon))) throw codeError('HPE_INVALID_HEADER_TOKEN', `a malformed header line in the response: ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const connection = headers.connection?.toLowerCase() ?? '';
  const keepAlive = status[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
  return { statusCode: Number(status[2]), headers, keepAlive };
}

function framingOf(method: string, head: Head): Framing {
  const s = head.statusCode;
  if (method === 'HEAD' || s === 204 || s === 304 || (s >= 100 && s < 200)) return { kind: 'none' };
  if (/\bchunked\b/i.test(head.headers['transfer-encoding'] ?? '')) return { kind: 'chunked' };
  const length = head.headers['content-length'];
  if (length !== undefined) {
    const values = new Set(length.split(',').map((v) => v.trim()));
    const [only] = values;
    if (values.size !== 1 || !/^\d+$/.test(only!)) throw codeError('HPE_INVALID_CONTENT_LENGTH', `the response's Content-Length is not one number: ${JSON.stringify(length)}`);
    return { kind: 'length', left: Number(only) };
  }
  return { kind: 'close' };
}

/**
 * One connection and the response it is reading. Bytes are taken from the read buffers in place: a body piece goes to
 * the reader as a view of one, and the socket waits (paused) while the reader holds one.
 */
class Connection {
  readonly socket: net.Socket;
  /**
   * The connection's own read buffers, two: Node asks for the next read's buffer as soon as a read is handed over, while
   * the reader still holds a piece of it, so the next read goes into the other one (a fresh buffer per read faulted in
   * new memory for every 256 KiB of a body).
   */
  private readonly own = [Buffer.allocUnsafe(READ_BYTES), Buffer.allocUnsafe(READ_BYTES)];
  /** The bytes being taken: buf[at, end), one of `own` or a read that came while both were in use. */
  private buf: Buffer = this.own[0]!;
  /**
   * Reads that came while `buf` still held bytes not taken, or a piece the reader held: a TLS socket goes on handing
   * over what it has decrypted after being asked to pause, so those get buffers of their own when both of `own` are
   * in use, taken in order.
   */
  private readonly later: Buffer[] = [];
  /** Unprocessed bytes of the last read: [at, end) of buf. */
  private at = 0;
  private end = 0;
  private head: Buffer[] = [];
  private headBytes = 0;
  private line = '';
  private state: 'idle' | 'head' | 'wait' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'done' = 'idle';
  private framing: Framing = { kind: 'none' };
  private method = 'GET';
  private chunkLeft = 0;
  private sink?: PieceSink;
  private holding = false;
  private paused = false;
  private ended = false;
  /** Why the connection failed, for a body asked for after it did. */
  private error?: Error;
  /** Bytes of the current response seen so far (0: a reused connection the server may have closed meanwhile). */
  seen = 0;
  keepAlive = false;
  used = 0;
  onHead?: (head: Head | Error) => void;
  onBodyEnd?: (err?: Error) => void;
  /** Called once the socket is gone (closed, failed or destroyed). */
  onGone?: () => void;
  private idle?: NodeJS.Timeout;
  idleTimeoutMs = 0;

  constructor(url: URL, connectTimeoutMs: number, secureContext: tls.SecureContext | undefined, lookup: net.LookupFunction) {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const https = url.protocol === 'https:';
    const port = Number(url.port || (https ? 443 : 80));
    const onread = { buffer: () => this.readTarget(), callback: (n: number, into: Buffer) => this.read(into.subarray(0, n)) };
    this.socket = https
      ? // onread works on TLS sockets as on plain ones; @types/node leaves it out of tls's options.
        tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'], onread, lookup, ...(secureContext ? { secureContext } : {}) } as tls.ConnectionOptions)
      : net.connect({ host, port, onread, lookup });
    this.socket.setNoDelay(true);
    const connected = https ? 'secureConnect' : 'connect';
    const timer = setTimeout(() => this.socket.destroy(codeError('CONNECT_TIMEOUT', `no connection to ${url.host} within ${connectTimeoutMs} ms`)), connectTimeoutMs);
    this.socket.once(connected, () => {
      clearTimeout(timer);
      try {
        // Keep-alive probes only spare reconnects; Wine's sockets refuse the option before they are connected.
        this.socket.setKeepAlive(true, 60_000);
      } catch {
        // a socket without it still works
      }
    });
    this.socket.on('error', (e) => {
      clearTimeout(timer);
      this.lost(e);
    });
    this.socket.on('end', () => {
      this.ended = true;
      this.lost();
    });
    this.socket.on('close', () => {
      clearTimeout(timer);
      this.ended = true;
      this.lost(codeError('ECONNRESET', 'socket hang up'));
      this.onGone?.();
    });
  }

  /** Sends one request; `onHead` hears the response head (or the error before it). */
  send(url: URL, method: string, headers: Record<string, string>): void {
    this.method = method;
    this.state = 'head';
    this.head = [];
    this.headBytes = 0;
    this.seen = 0;
    this.used++;
    const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (this.paused) this.resume();
  }

  /** The body, to `sink`, from where the head ended. */
  startBody(sink: PieceSink): void {
    this.sink = sink;
    this.state = 'body';
    this.startIdle();
    if (this.framing.kind === 'none' || (this.framing.kind === 'length' && this.framing.left === 0)) return this.finish();
    if (this.framing.kind === 'chunked') this.state = 'chunk-size';
    this.process();
  }

  private startIdle(): void {
    if (!this.idleTimeoutMs) return;
    this.idle = setTimeout(() => this.socket.destroy(codeError('BODY_TIMEOUT', `the server sent nothing for ${this.idleTimeoutMs} ms`)), this.idleTimeoutMs);
  }

  private stopIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
  }

  /** Where the next read goes: one of the connection's own buffers that no bytes still to be taken or held are in. */
  private readTarget(): Buffer {
    return this.own.find((b) => !this.uses(b)) ?? Buffer.allocUnsafe(READ_BYTES);
  }

  private uses(b: Buffer): boolean {
    return (b.buffer === this.buf.buffer && this.inUse) || this.later.some((l) => l.buffer === b.buffer);
  }

  /** Bytes of `buf` are still to be taken, or the reader holds a piece of it. */
  private get inUse(): boolean {
    return this.holding || this.at < this.end;
  }

  private get busy(): boolean {
    return this.inUse || this.later.length > 0;
  }

  private read(bytes: Buffer): boolean {
    if (!bytes.length) return true;
    this.seen += bytes.length;
    this.idle?.refresh();
    if (this.busy) this.later.push(bytes);
    else {
      this.buf = this.own.find((b) => b.buffer === bytes.buffer) ?? bytes;
      this.at = bytes.byteOffset - this.buf.byteOffset;
      this.end = this.at + bytes.length;
    }
    this.process();
    // Bytes still to be taken (a head waiting for its reader) or a piece still held keep the socket paused.
    this.paused = this.busy;
    return !this.paused;
  }

  private resume(): void {
    this.paused = false;
    this.socket.resume();
  }

  /** Takes what it can of buf[at, end) and what came later; stops where it must wait (the head's reader, a held piece). */
  private process(): void {
    for (;;) {
      if (this.at >= this.end && !this.holding && this.later.length) {
        this.buf = this.later.shift()!;
        this.at = 0;
        this.end = this.buf.length;
      }
      if (this.at >= this.end || this.holding) break;
      switch (this.state) {
        case 'idle':
        case 'done':
          // Bytes nobody asked for: the connection cannot be trusted with another request.
          this.keepAlive = false;
          this.at = this.end;
          return;
        case 'head':
          this.takeHead();
          break;
        case 'wait':
          return;
        case 'body': {
          const f = this.framing;
          const n = f.kind === 'length' ? Math.min(f.left, this.end - this.at) : this.end - this.at;
          if (f.kind === 'length') f.left -= n;
          this.give(n, () => {
            if (f.kind === 'length' && f.left === 0) this.finish();
          });
          break;
        }
        case 'chunk-size':
        case 'chunk-end':
        case 'trailers':
          this.takeLine();
          break;
        case 'chunk-data': {
          const n = Math.min(this.chunkLeft, this.end - this.at);
          this.chunkLeft -= n;
          this.give(n, () => {
            if (this.chunkLeft === 0) this.state = 'chunk-end';
          });
          break;
        }
      }
    }
    if (this.settled()) return;
    if (!this.busy && this.paused) this.resume();
  }

  private takeHead(): void {
    const piece = this.buf.subarray(this.at, this.end);
    // The end may straddle two reads: look from three bytes back into what came before.
    const prev = this.head.length ? Buffer.concat(this.head).subarray(-3) : Buffer.alloc(0);
    const joined = prev.length ? Buffer.concat([prev, piece]) : piece;
    const i = joined.indexOf(HEAD_END);
    const take = i === -1 ? piece.length : i + 4 - prev.length;
    if (this.headBytes + take > MAX_HEAD) return this.destroy(codeError('HPE_HEADER_OVERFLOW', `the response head is larger than ${MAX_HEAD} bytes`));
    this.head.push(Buffer.from(piece.subarray(0, take)));
    this.headBytes += take;
    this.at += take;
    if (i === -1) return;
    let head: Head;
    try {
      head = parseHead(Buffer.concat(this.head).toString('latin1', 0, this.headBytes - 4));
      this.framing = framingOf(this.method, head);
    } catch (e) {
      return this.destroy(e as Error);
    }
    this.head = [];
    this.headBytes = 0;
    // An interim answer (100 Continue, 103 Early Hints) is followed by the real one.
    if (head.statusCode >= 100 && head.statusCode < 200) return;
    this.keepAlive = head.keepAlive && this.framing.kind !== 'close';
    this.state = 'wait';
    this.onHead?.(head);
  }

  private takeLine(): void {
    const nl = this.buf.subarray(this.at, this.end).indexOf(LF);
    const stop = nl === -1 ? this.end : this.at + nl + 1;
    this.line += this.buf.toString('latin1', this.at, stop);
    this.at = stop;
    if (this.line.length > 8192) return this.destroy(codeError('HPE_CHUNK_EXTENSIONS_OVERFLOW', 'a chunk line of the response is longer than 8 KiB'));
    if (!this.line.endsWith('\n')) return;
    const line = this.line.replace(/\r?\n$/, '');
    this.line = '';
    if (this.state === 'chunk-end') {
      if (line !== '') return this.destroy(codeError('HPE_STRICT', 'a chunk of the response does not end where its size says'));
      this.state = 'chunk-size';
    } else if (this.state === 'trailers') {
      if (line === '') this.finish();
    } else {
      const size = /^([0-9a-fA-F]{1,15})[ \t]*(;.*)?$/.exec(line);
      if (!size) return this.destroy(codeError('HPE_INVALID_CHUNK_SIZE', `a malformed chunk size in the response: ${JSON.stringify(line.slice(0, 40))}`));
      this.chunkLeft = parseInt(size[1]!, 16);
      this.state = this.chunkLeft === 0 ? 'trailers' : 'chunk-data';
    }
  }

  /** buf[at, at+n) to the reader; `then` runs once the reader is done with it. */
  private give(n: number, then: () => void): void {
    const piece = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    let held: void | Promise<void>;
    try {
      held = n > 0 ? this.sink!(piece) : undefined;
    } catch (e) {
      return this.destroy(e as Error);
    }
    if (!(held instanceof Promise)) return then();
    this.holding = true;
    held.then(
      () => {
        this.holding = false;
        // Silence while the reader held the piece is the reader's, not the server's.
        this.idle?.refresh();
        then();
        this.process();
      },
      (e: unknown) => {
        this.holding = false;
        this.destroy(e as Error);
      },
    );
  }

  private finish(): void {
    this.state = 'done';
    this.stopIdle();
    this.sink = undefined;
    const done = this.onBodyEnd;
    this.onBodyEnd = undefined;
    done?.();
  }

  /**
   * The connection ended (`why` undefined: the server closed its side) or failed. Bytes already read are still taken
   * first: the response settles once they are (settled()).
   */
  private lost(why?: Error): void {
    this.keepAlive = false;
    if (why) this.error ??= why;
    if (this.state === 'head') return this.fail(this.error ?? codeError('ECONNRESET', 'socket hang up'));
    if (this.state !== 'wait') this.settled();
  }

  /**
   * Once every byte at hand is taken: a body framed by the connection's end ends with it; any other body, if the
   * connection is gone, fails with how it went. True when the response settled.
   */
  private settled(): boolean {
    const reading = this.state === 'body' || this.state.startsWith('chunk') || this.state === 'trailers';
    if (!reading || this.inUse || !this.ended) return false;
    if (this.framing.kind === 'close') this.finish();
    else this.fail(this.error ?? codeError('ECONNRESET', 'aborted'));
    return true;
  }

  /**
   * The response under way fails with `e` now (its head's reader, or its body's); later calls do nothing. A head
   * whose body is not asked for yet keeps its state: the body, when asked, fails with this error.
   */
  private fail(e: Error): void {
    this.stopIdle();
    this.keepAlive = false;
    if (this.state === 'idle' || this.state === 'done') return;
    this.error ??= e;
    if (this.state === 'head') {
      this.state = 'done';
      const h = this.onHead;
      this.onHead = undefined;
      h?.(e);
    } else if (this.state !== 'wait') {
      this.state = 'done';
      const b = this.onBodyEnd;
      this.onBodyEnd = undefined;
      b?.(e);
    }
  }

  destroy(e?: Error): void {
    if (e) this.fail(e);
    else this.keepAlive = false;
    this.socket.destroy();
  }

  /** Whether a kept connection can still be used: neither side has closed it. */
  get alive(): boolean {
    return !this.ended && !this.socket.destroyed;
  }

  /** Whether the connection can take another request: the last response read whole, and neither side closing. */
  get reusable(): boolean {
    return this.state === 'done' && this.keepAlive && this.alive && this.at >= this.end;
  }

  park(): void {
    this.state = 'idle';
    this.onHead = undefined;
    this.onBodyEnd = undefined;
    this.socket.unref();
  }
}

interface Pool {
  idle: Connection[];
  open: number;
  waiting: (() => void)[];
}

export class DirectTransport implements Transport {
  private readonly pools = new Map<string, Pool>();

  /**
   * `secureContext` is asked for by the first https connection only: building one from a CA list costs ~25 ms. `lookup`
   * resolves names for net.connect (never to a link-local address).
   */
  constructor(
    private readonly secureContext: () => tls.SecureContext | undefined = () => undefined,
    private readonly lookup: net.LookupFunction = refusingLinkLocal(),
  ) {}

  /** One request; a redirect is answered as it came (Http.open follows it, under one policy for every transport). */
  async request(href: string, opts: DirectOptions): Promise<RawResponse> {
    const url = new URL(href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw codeError('UNSUPPORTED_SCHEME', `cannot fetch ${url.href}: only http and https`);
    if (opts.signal.aborted) throw abortError(opts.signal);
    const pool = this.poolFor(url.origin);
    // A kept connection the server closed meanwhile fails before any byte of the answer: asked again on a new one.
    for (let tries = 0; ; tries++) {
      const conn = await this.take(pool, url, opts);
      try {
        return await this.exchange(pool, conn, url, opts);
      } catch (e) {
        if (!(conn.used > 1 && conn.seen === 0 && tries === 0 && !opts.signal.aborted)) throw e;
      }
    }
  }

  private poolFor(origin: string): Pool {
    let p = this.pools.get(origin);
    if (!p) this.pools.set(origin, (p = { idle: [], open: 0, waiting: [] }));
    return p;
  }

  private async take(pool: Pool, url: URL, opts: DirectOptions): Promise<Connection> {
    for (;;) {
      const kept = pool.idle.pop();
      if (kept && !kept.alive) {
        kept.destroy();
        continue;
      }
      if (kept) {
        kept.socket.ref();
        return kept;
      }
      if (pool.open < MAX_CONNECTIONS) break;
      await new Promise<void>((resolve) => pool.waiting.push(resolve));
      if (opts.signal.aborted) throw abortError(opts.signal);
    }
    pool.open++;
    const conn = new Connection(url, opts.connectTimeoutMs, url.protocol === 'https:' ? this.secureContext() : undefined, this.lookup);
    conn.onGone = () => {
      pool.open--;
      const i = pool.idle.indexOf(conn);
      if (i !== -1) pool.idle.splice(i, 1);
      pool.waiting.shift()?.();
    };
    return conn;
  }

  /** Gives a connection back: kept for the next request when it can serve one, else closed. */
  private release(pool: Pool, conn: Connection): void {
    if (!conn.reusable) return conn.destroy();
    conn.park();
    pool.idle.push(conn);
    pool.waiting.shift()?.();
  }

  private exchange(pool: Pool, conn: Connection, url: URL, opts: DirectOptions): Promise<RawResponse> {
    conn.idleTimeoutMs = opts.idleTimeoutMs;
    return new Promise<RawResponse>((resolve, reject) => {
      const onAbort = () => conn.destroy(abortError(opts.signal));
      opts.signal.addEventListener('abort', onAbort, { once: true });
      const unlisten = () => opts.signal.removeEventListener('abort', onAbort);
      const headTimer = setTimeout(() => conn.destroy(codeError('HEADERS_TIMEOUT', `no answer from ${url.host} within ${opts.headersTimeoutMs} ms`)), opts.headersTimeoutMs);
      conn.onHead = (head) => {
        clearTimeout(headTimer);
        if (head instanceof Error) {
          unlisten();
          return reject(head);
        }
        let body: Promise<void> | undefined;
        let over = false;
        const pump = (each: PieceSink): Promise<void> => {
          if (body) return Promise.reject(new Error('the body is being read already'));
          body = new Promise<void>((done, failed) => {
            conn.onBodyEnd = (err) => {
              over = true;
              unlisten();
              if (err) failed(err);
              else {
                this.release(pool, conn);
                done();
              }
            };
            conn.startBody(each);
          });
          return body;
        };
        resolve({
          statusCode: head.statusCode,
          headers: head.headers,
          pump,
          dump: () => (body ? body.then(() => undefined, () => undefined) : pump(() => undefined).catch(() => undefined)),
          cancel: () => {
            if (over) return;
            over = true;
            unlisten();
            conn.destroy(codeError('ECONNRESET', 'aborted'));
          },
        });
      };
      conn.send(url, opts.method, opts.headers);
    });
  }
}
