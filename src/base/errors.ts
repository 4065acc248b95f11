// Typed errors: a stable code, the operation that failed, hints for the user, and the cause. Only the CLI renders them.

export type ErrorCode =
  | 'USAGE'
  | 'NETWORK'
  | 'PROXY'
  | 'TLS'
  | 'TOO_LARGE'
  | 'TOO_SLOW'
  | 'DEADLINE'
  | 'HTTP_STATUS'
  | 'HASH_MISMATCH'
  | 'SIZE_MISMATCH'
  | 'NOT_FOUND'
  | 'NO_SOURCE'
  | 'SOURCE_FAILED'
  | 'RESOLUTION_CONFLICT'
  /** `--match-torch` found nothing to match: no interpreter answered, or it has no torch and no runtime packages. */
  | 'MATCH_TORCH'
  | 'INCOMPLETE'
  | 'REMOVAL'
  | 'LOCKFILE'
  | 'OFFLINE'
  | 'BAD_INDEX'
  /** A URL an index hands out that xpu-setup does not follow (a local path, another scheme, a step down from https). */
  | 'URL_REFUSED'
  | 'BAD_ARCHIVE'
  /** A library file that cannot be read as what its name says (a damaged DLL). */
  | 'BAD_LIBRARY'
  | 'UNSAFE_PATH'
  | 'DUPLICATE_MEMBER'
  | 'TOO_LARGE'
  | 'NO_SPACE'
  | 'NAME_TOO_LONG'
  | 'PREFIX_CHECK'
  | 'BAD_MANIFEST'
  | 'INSTALL'
  /** A directory xpu-setup did not make: it refuses to remove it. */
  | 'NOT_OURS'
  | 'LOCKED'
  | 'COMPILER'
  | 'BUILD'
  | 'RUNTIME'
  | 'NO_DEVICE'
  | 'SMOKE'
  | 'INTERNAL';

export interface XpuErrorInit {
  hints?: string[];
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class XpuError extends Error {
  readonly code: ErrorCode;
  readonly hints: string[];
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, init: XpuErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'XpuError';
    this.code = code;
    this.hints = init.hints ?? [];
    this.details = init.details ?? {};
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      hints: this.hints,
      details: this.details,
      cause: causeChain(this.cause),
    };
  }
}

export function isXpuError(e: unknown, code?: ErrorCode): e is XpuError {
  return e instanceof XpuError && (code === undefined || e.code === code);
}

/** True when the server (or the proxy) could not be reached at all: the planner then tries the next source. */
export function isUnreachable(e: unknown): boolean {
  return e instanceof XpuError && (e.code === 'NETWORK' || e.code === 'PROXY') && e.details.unreachable === true;
}

/** The messages of an error's causes, outermost first. */
/** The causes of `e` that say something its message does not already say: what a `caused by:` line is for. */
export function newCauses(e: XpuError): string[] {
  const said = [e.message];
  return causeChain(e.cause).filter((c) => {
    const repeat = said.some((s) => s.includes(c) || s.includes(c.replace(/ \([A-Z0-9_]+\)$/, '')));
    said.push(c);
    return !repeat;
  });
}

export function causeChain(e: unknown): string[] {
  const out: string[] = [];
  let cur = e;
  for (let i = 0; cur !== undefined && cur !== null && i < 8; i++) {
    if (cur instanceof Error) {
      const code = (cur as NodeJS.ErrnoException).code;
      out.push(code && !cur.message.includes(code) ? `${cur.message} (${code})` : cur.message);
      cur = cur.cause;
    } else {
      out.push(String(cur));
      break;
    }
  }
  return out;
}
