// Human rendering of an InstallPlan.
import type { PlanChanges } from '../plan/diff.js';
import type { InstallPlan, PlannedComponent } from '../records/plan.js';

function size(n?: number): string {
  // A PEP 503 page gives no size; the download's Content-Length tells it later.
  if (n === undefined) return 'size not listed by the index';
  return n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(0)} KiB`;
}

type Archive = PlannedComponent['archives'][number];

/**
 * A component's archives as its dependency tree: the packages it names first, each dependency under the package that
 * first asked for it, with why. With `full`, each archive's URL and whole sha256 follow it on lines of their own;
 * without, its sha256 is cut to 16 hex digits on the archive's line.
 */
function archiveTree(c: PlannedComponent, full: boolean): string[] {
  const parentOf = (a: Archive): string | undefined => a.requiredBy?.[0]?.split(' ')[0];
  const lines: string[] = [];
  const push = (indent: string, line: string, a: Archive) => {
    lines.push(indent + line);
    if (full) lines.push(`${indent}    url    ${a.url}`, `${indent}    sha256 ${a.sha256}`);
  };
  const walk = (parent: string | undefined, depth: number, seen: Set<string>): void => {
    for (const a of c.archives.filter((x) => parentOf(x) === parent && !seen.has(x.package))) {
      seen.add(a.package);
      const line = `${a.filename}  ${size(a.size)}${full ? '' : `  sha256 ${a.sha256.slice(0, 16)}…`}${runtimeNote(a)}`;
      if (depth === 0) push('    ', line, a);
      else push(`    ${'  '.repeat(depth - 1)}`, `└ ${a.package} ${a.version}: ${line}  (required by ${a.requiredBy!.join('; ')})`, a);
      walk(a.package, depth + 1, seen);
    }
  };
  const seen = new Set<string>();
  walk(undefined, 0, seen);
  // A package whose asker is not in the tree (a cycle) is still listed.
  for (const a of c.archives.filter((x) => !seen.has(x.package))) push('    ', `${a.package} ${a.version}: ${a.filename}  (required by ${(a.requiredBy ?? []).join('; ')})`, a);
  return lines;
}

/** What was decided about a runtime library package, or that it is still to be decided. */
function runtimeNote(a: Archive): string {
  if (!a.runtime) return '';
  return a.runtime.install === undefined ? '  [runtime library: installed only if this machine lacks what the binaries need (decided once the other archives are fetched)]' : `  [runtime library: ${a.runtime.why}: installed]`;
}

/**
 * `standalone`: a plan for a lockfile or bundle that no prefix's request went into (no prefix is shown). `full`: each
 * archive's URL and whole sha256 (what `plan` and `--dry-run` show; setup shows them with --verbose).
 */
export function renderPlan(plan: InstallPlan, opts: { standalone?: boolean; full?: boolean } = {}): string {
  const lines = [`plan for ${plan.platform}${plan.host.native ? '' : ' (another platform: nothing is executed)'}${opts.standalone ? '' : ` -> ${plan.prefix}`}`];
  if (plan.extends) lines.push(`  extends the request recorded in ${plan.extends} (what this command line does not say is taken from there)`);
  if (plan.from) lines.push(`  from the ${plan.from.kind === 'receipt' ? 'plan recorded in' : plan.from.kind === 'lock' ? 'lockfile' : 'bundle lockfile'} ${plan.from.path}: no index asked`);
  for (const n of plan.request?.requires ?? []) lines.push(`  requires ${n}`);
  for (const n of plan.torch?.notes ?? []) lines.push(`  --match-torch: ${n}`);
  // A driver added or dropped for this host's GPU was said as the plan was made (a note, a warning): not again here.
  const gpu = plan.gpuDriver;
  const said = gpu && ['added', 'dropped'].includes(gpu.decision);
  if (gpu && !said && (opts.full || gpu.decision === 'not-asked')) lines.push(`  ${gpu.why}`);
  for (const c of plan.components) {
    if (c.status === 'planned') {
      lines.push(`  ${c.name} ${c.version} from ${c.source} ${c.origin}`);
      lines.push(...archiveTree(c, opts.full ?? false));
      for (const a of c.leftToHost ?? []) lines.push(`    runtime library ${a.package} ${a.version}: ${a.runtime?.why ?? 'satisfied by the host'}: not installed`);
      for (const r of c.runtime ?? []) lines.push(`    runtime library ${r}: left to this machine's own (checked against what the binaries need before the swap)`);
      for (const k of c.skipped ?? []) lines.push(`    not followed: ${k}`);
    } else {
      lines.push(`  ${c.name}: not available${c.explicit ? '' : ' (skipped)'}`);
    }
    for (const a of c.attempts.filter((x) => x.outcome !== 'chosen')) lines.push(`    tried ${a.reason}`);
    for (const n of c.notes) lines.push(`    note: ${n}`);
    if (c.belowFloor) {
      const floor = c.belowFloor.floor.join(', ');
      lines.push(`    note: below the recommended ${floor}, which no reachable source meets: the best reachable one (--require '${floor}' makes the floor a requirement)`);
    }
  }
  const e = plan.existing;
  if (e && (e.zeLoader || e.zeHeaders.length || e.urLoader)) {
    lines.push('  already on this machine:');
    if (e.zeLoader) lines.push(`    Level Zero loader ${e.zeLoader.path}${e.zeLoader.version ? ` (${e.zeLoader.version})` : ''}`);
    for (const h of e.zeHeaders) {
      lines.push(`    Level Zero headers ${h.includeDir} (API ${h.apiVersion ?? '?'}${h.version ? `, ${h.version}` : ''}${h.hasIpVersionExt ? '' : ', no ze_device_ip_version_ext_t'})`);
    }
    if (e.urLoader) lines.push(`    UR loader ${e.urLoader.path}`);
  }
  return lines.join('\n');
}

/**
 * The plan as one line, for a terminal: each component with its version, source and what its archives weigh, or why it
 * is not there; the archives themselves, their URLs and hashes are for --verbose and `plan`.
 */
export function renderPlanLine(plan: InstallPlan): string {
  const parts = plan.components.map((c) => {
    if (c.status !== 'planned') {
      const unreached = c.attempts.filter((a) => a.outcome === 'unreachable').length;
      return `${c.name} not available${unreached ? ` (${unreached === c.attempts.length ? 'no' : 'not every'} source reached)` : ''}`;
    }
    const sizes = c.archives.map((a) => a.size);
    const weight = sizes.every((n) => n !== undefined) ? `, ${size(sizes.reduce((a: number, b) => a + b!, 0))}` : '';
    return `${c.name} ${c.version} from ${c.source}${c.fallbackFrom ? ', a fallback' : ''} (${c.archives.length} archive${c.archives.length === 1 ? '' : 's'}${weight})`;
  });
  const from = plan.from ? `; ${plan.from.kind === 'receipt' ? 'the plan recorded in the prefix' : plan.from.kind === 'lock' ? `lockfile ${plan.from.path}` : `bundle ${plan.from.path}`}, no index asked` : '';
  return `plan: ${parts.join('; ') || 'nothing to install'}${from}`;
}

/** The verdict `plan` ends with: nothing to do, or what setup would add, remove and restore. */
export function renderChanges(plan: InstallPlan, c: PlanChanges): string {
  if (c.upToDate) return `nothing to do: ${plan.prefix} is up to date (${c.keep.map((k) => `${k.name} ${k.version}`).join(', ')})`;
  const lines = [`setup would change ${plan.prefix}:`];
  for (const r of c.remove) lines.push(`  - ${r.name} ${r.version} (${r.source})`);
  for (const a of c.add) lines.push(`  + ${a.name} ${a.version} (${a.source})`);
  if (c.damaged.length) {
    const shown = c.damaged.slice(0, 5).map((d) => `${d.path} (${d.problem})`).join(', ');
    lines.push(`  ~ restore ${c.damaged.length} file${c.damaged.length === 1 ? '' : 's'}: ${shown}${c.damaged.length > 5 ? ', ...' : ''}`);
  }
  if (lines.length === 1) lines.push('  ~ rewrite the prefix with the same components (the install layout changed)');
  return lines.join('\n');
}

/** What `lock` and `bundle` say first: whose request they resolve. */
export function requestLine(prefix: string, extend: boolean, plans: Pick<InstallPlan, 'extends'>[]): string {
  if (!extend) return 'request: this command line only, no prefix\'s recorded request (--prefix DIR extends the one recorded there)';
  const from = plans.find((p) => p.extends)?.extends;
  return from ? `request: this command line, extending the one recorded in ${from}` : `request: this command line only (${prefix} records no request)`;
}
