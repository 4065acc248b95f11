// The one transport interface: a request sent and its response's head, the body handed on piece by piece. Two stand
// behind it (the connection code of direct.ts, undici through a proxy in proxied.ts); Http picks one per URL.
import type { Pump } from '../base/pieces.js';

export interface RawResponse {
  statusCode: number;
  headers: Record<string, string | undefined>;
  /** Hands the body to `each` piece by piece; settles when the body has ended, or with the error that cut it. */
  pump: Pump;
  /** Reads the rest of the body and throws it away, so the connection can serve the next request. */
  dump(): Promise<void>;
  /** Stops the body where it is (the connection is closed, not reused). */
  cancel(): void;
}

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** The longest silence while the body arrives. */
  idleTimeoutMs: number;
}

export interface Transport {
  /** One request to `url` (no credentials in it, no redirect followed). */
  request(url: string, opts: TransportRequest): Promise<RawResponse>;
}
