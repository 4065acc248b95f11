// The human report: checks grouped, a mark per status, the fix under each problem, and "N/M checks passed".
import { GROUP_TITLES, type CheckGroup, type CheckResult, type CheckStatus, type DoctorReport } from './types.js';

export interface RenderOptions {
  color: boolean;
  verbose: boolean;
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

function detailLines(r: CheckResult): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(r.details ?? {})) {
    if (Array.isArray(v)) {
      if (v.length === 0) continue;
      out.push(`${k}:`);
      for (const item of v) out.push(`  ${typeof item === 'string' ? item : JSON.stringify(item)}`);
    } else if (v !== undefined && v !== null) {
      out.push(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
    }
  }
  return out;
}

export function renderHuman(report: DoctorReport, opts: RenderOptions): string {
  const paint = (code: number, s: string): string => (opts.color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const lines: string[] = [`xpu-setup doctor (${report.platform}, prefix ${report.prefix})`];
  const groups = Object.keys(GROUP_TITLES) as CheckGroup[];
  for (const g of groups) {
    const rs = report.checks.filter((c) => c.group === g);
    if (rs.length === 0) continue;
    lines.push('', paint(1, GROUP_TITLES[g]));
    for (const r of rs) {
      const label = r.status === 'error' ? `${r.title} (check error)` : r.title;
      lines.push(`  ${paint(COLOR[r.status], MARK[r.status])} ${label}: ${r.message}`);
      if (r.fix && r.status !== 'ok' && r.status !== 'skip') lines.push(`      ${paint(36, 'fix:')} ${r.fix}`);
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
  lines.push('', `${s.ok}/${ran} checks passed${extra.length ? ` (${extra.join(', ')})` : ''}`);
  return lines.join('\n');
}
