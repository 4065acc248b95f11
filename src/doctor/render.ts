// The human report: checks grouped, a mark per status, the fix under each problem, and "N/M checks passed".
import { LINE_WIDTH, wrapText } from '../base/wrap.js';
import { GROUP_TITLES, type CheckGroup, type CheckResult, type CheckStatus, type DoctorReport } from './types.js';

export interface RenderOptions {
  color: boolean;
  verbose: boolean;
  /** Only the checks that fail the run (with --strict, warnings too) and the summary line. */
  quiet?: boolean;
  strict?: boolean;
}

/** The one pair of marks every part of the CLI prints. */
export const MARK_OK = '✓';
export const MARK_FAIL = '✗';
const MARK: Record<CheckStatus, string> = { ok: MARK_OK, warn: '!', fail: MARK_FAIL, error: MARK_FAIL, skip: '-' };
const COLOR: Record<CheckStatus, number> = { ok: 32, warn: 33, fail: 31, error: 31, skip: 2 };

/** Colour on a terminal unless NO_COLOR or TERM=dumb; FORCE_COLOR (as Node and most tools read it) decides first. */
export function shouldColor(isTTY: boolean | undefined, env: Record<string, string | undefined>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.toLowerCase());
  return !!isTTY && !env.NO_COLOR && env.TERM !== 'dumb';
}

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/** Facts as indented `key: value` lines (lists as `- item`), never inline JSON; repeated list items shown once. */
function factLines(value: unknown, indent: string): string[] {
  if (Array.isArray(value)) {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const item of value) {
      const key = JSON.stringify(item);
      if (seen.has(key) || isEmpty(item)) continue;
      seen.add(key);
      if (item === null || typeof item !== 'object') {
        out.push(`${indent}- ${String(item)}`);
      } else {
        const inner = factLines(item, `${indent}  `);
        if (inner.length) out.push(`${indent}- ${inner[0]!.trimStart()}`, ...inner.slice(1));
      }
    }
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (isEmpty(v)) continue;
      if (typeof v === 'object') out.push(`${indent}${k}:`, ...factLines(v, `${indent}  `));
      else out.push(`${indent}${k}: ${String(v)}`);
    }
    return out;
  }
  return [`${indent}${String(value)}`];
}

function detailLines(r: CheckResult): string[] {
  return factLines(r.details ?? {}, '');
}

export function renderHuman(report: DoctorReport, opts: RenderOptions): string {
  const paint = (code: number, s: string): string => (opts.color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const lines: string[] = opts.quiet ? [] : [`xpu-setup doctor (${report.platform}, prefix ${report.prefix})`];
  const groups = Object.keys(GROUP_TITLES) as CheckGroup[];
  const failing: CheckStatus[] = opts.strict ? ['fail', 'error', 'warn'] : ['fail', 'error'];
  const fixed = new Map<string, string>();
  for (const g of groups) {
    const rs = report.checks.filter((c) => c.group === g && (!opts.quiet || failing.includes(c.status)));
    if (rs.length === 0) continue;
    if (lines.length || !opts.quiet) lines.push('');
    lines.push(paint(1, GROUP_TITLES[g]));
    for (const r of rs) {
      const label = r.status === 'error' ? `${r.title} (check error)` : r.title;
      lines.push(`  ${paint(COLOR[r.status], MARK[r.status])} ${label}: ${r.message}`);
      if (r.fix && r.status !== 'ok' && r.status !== 'skip') {
        // A fix said for an earlier check is not said again: two problems with one remedy point to it.
        const first = fixed.get(r.fix);
        if (first && !opts.verbose) lines.push(`      ${paint(36, 'fix:')} as for ${first} above`);
        else lines.push(...fixLines(r.fix, opts.verbose).map((l, i) => (i ? `          ${l}` : `      ${paint(36, 'fix:')} ${l}`)));
        if (!first) fixed.set(r.fix, r.title);
      }
      if (opts.verbose) for (const d of detailLines(r)) lines.push(`      ${paint(2, d)}`);
    }
  }
  const s = report.summary;
  const ran = s.total - s.skip;
  const extra = [
    s.warn ? `${s.warn} warning${s.warn === 1 ? '' : 's'}` : '',
    s.fail ? `${s.fail} failed` : '',
    s.error ? `${s.error} could not run` : '',
    s.skip ? `${s.skip} skipped` : '',
  ].filter(Boolean);
  if (lines.length) lines.push('');
  lines.push(`${s.ok}/${ran} checks passed${extra.length ? ` (${extra.join(', ')})` : ''}`);
  return opts.verbose ? lines.join('\n') : wrapText(lines.join('\n'));
}

/**
 * A fix of several sentences or ways, too long for one line outside --verbose: one sentence, and one way, a line
 * (`or ...`), so that a command in it is broken only when it is itself that long.
 */
function fixLines(fix: string, verbose: boolean): string[] {
  if (verbose || fix.length <= LINE_WIDTH - 12) return [fix];
  return fix.split(/(?<=[a-z)]\.) (?=[A-Z])/).flatMap((sentence) => {
    const [first, ...rest] = sentence.split(/(?<=[;,]) or /);
    return [first!, ...rest.map((r) => `or ${r}`)];
  });
}
