// Plan stage: host + manifests + options -> InstallPlan (plain data). Unreachable or empty sources fall through to the next.
import type { Deps } from '../base/deps.js';
import { isUnreachable, XpuError } from '../base/errors.js';
import type { Host, TargetPlatform } from '../platform/types.js';
import { kindOf, NotAvailable, orderingOf, type Resolution, type SourceContext, type SourceKind, type SourceSpec } from '../kinds/index.js';
import { defaultComponents, type ComponentManifest } from '../manifest/schema.js';
import type { Reporter } from '../base/reporter.js';
import type { Gateway } from '../index/gateway.js';
import { flagOf } from '../kinds/names.js';
import { compareAcross, meetsAll, parseConstraint, unmetText, type Constraint } from '../versions/order.js';
import { belowFloorOf, featuresLacking, floorsFor } from './request.js';
import { checkConstrains, closeOver } from './closure.js';
import { pinAsker, pinRequirements } from './torch.js';
import { newInstallPlan } from './key.js';
import { chooseTogether } from './choose.js';
import { verdictHost, verdictOn, type Verdict } from '../cache/verdicts.js';
import { chooseGpuDriver, gpuRequires, settleGpuDriver } from './gpu.js';
import type { HostGpus, InstallPlan, PlannedComponent, SetupRequest, SourceAttempt, TorchMatch } from '../records/plan.js';

/** Failures whose own hints name the remedy (add the CA, fix the proxy, take another release): every error built from them keeps them. */
const OWN_HINTS = new Set(['TLS', 'PROXY', 'RESOLUTION_CONFLICT', 'HASH_MISMATCH']);

/** The planner's input: the request as asked (its components, sources, indexes, constraints), and what the run adds. */
export interface PlanOptions {
  request: SetupRequest;
  prefix: string;
  cacheDir: string;
  /** Installed components this run did not name, kept from the source kind they came from whatever `request.sources` says. */
  keptSources?: Record<string, SourceKind[]>;
  /** Components that must be planned although not named with --component (installed ones, constrained ones). */
  required?: string[];
  /** What named each kind's indexes, by the option's flag, for errors about them (default: the option). */
  namedBy?: NamedBy;
  /** What `--match-torch` read: exact versions of the runtime packages in a Python environment. */
  torch?: TorchMatch;
  /** This host's Intel GPUs and its own Level Zero driver (plan/gpu.ts: readHostGpus), when the plan is for this host. */
  hostGpus?: HostGpus;
  /** Candidates earlier downloads showed do not serve here (cache/verdicts.ts): not planned again. */
  verdicts?: Verdict[];
}

/** What a source's index did that stops the run at once, under its own code (a limit, a refused URL, a stall). */
const INDEX_REFUSALS = new Set(['URL_REFUSED', 'TOO_LARGE', 'TOO_SLOW', 'DEADLINE']);

function orderSources(specs: SourceSpec[], prefer: SourceKind[]): SourceSpec[] {
  if (!prefer.length) return specs;
  return prefer.flatMap((kind) => specs.filter((s) => s.kind === kind));
}

function resolveOne(spec: SourceSpec, ctx: SourceContext): Promise<Resolution> {
  return kindOf(spec.kind).resolve(spec, ctx);
}

/** How many versions of one source a run turns away on what earlier downloads showed before it asks the next source. */
const MAX_TURNED_AWAY = 10;

/**
 * The source's newest fitting version that no verdict turns away: a version an earlier download showed lacks the
 * component's files or does not load here gives way to the next older one of the same source.
 */
async function resolveUsable(spec: SourceSpec, ctx: SourceContext, component: string, verdicts: readonly Verdict[]): Promise<Resolution> {
  const host = verdictHost(ctx.host);
  const away: string[] = [];
  let constraints = ctx.constraints ?? [];
  for (let i = 0; i < MAX_TURNED_AWAY; i++) {
    let r: Resolution;
    try {
      r = await resolveOne(spec, { ...ctx, constraints });
    } catch (e) {
      if (e instanceof NotAvailable && away.length) throw new NotAvailable(`${away.join('; ')}; it has no other that fits`);
      throw e;
    }
    const v = verdictOn(verdicts, r.archives.map((a) => a.sha256), host);
    if (!v) return r;
    away.push(`${v.candidate}: ${v.why} (learned from an earlier download)`);
    constraints = [...constraints, parseConstraint(`${component}!=${r.version}`)];
  }
  throw new NotAvailable(away.join('; '));
}

function describe(spec: SourceSpec, ctx: SourceContext): string {
  return kindOf(spec.kind).describe(spec, ctx.indexes);
}

export function missingFeatures(m: ComponentManifest, version: string, kind: SourceKind): string[] {
  return featuresLacking(m, version, kind).map((f) => `${m.name} ${version} lacks ${f.what} (since ${f.since})`);
}

/** A source the user named (a channel, an index URL): when it is unreachable or broken, nothing else is tried. */
function isNamed(spec: SourceSpec, opts: PlanOptions): boolean {
  return !!opts.request.indexes[spec.kind]?.length;
}

/**
 * Where a named source came from, as the user can change it, by the option that names it (`--conda-channel`): the
 * option itself, its variable, or the recorded request.
 */
export type NamedBy = Partial<Record<string, string>>;

export function namedSourceError(component: string, attempt: SourceAttempt, namedBy: NamedBy = {}): XpuError {
  const flag = flagOf(attempt.source) ?? attempt.source;
  const by = namedBy[flag] ?? flag;
  const drop = by.startsWith('--') ? `drop ${by}` : by.startsWith('the ') ? `name another with ${flag}` : `unset ${by}`;
  return new XpuError('SOURCE_FAILED', `${component}: the source you named failed: ${attempt.reason}`, {
    details: { component, source: attempt.source, outcome: attempt.outcome, reason: attempt.reason, namedBy: by },
    hints: [
      `xpu-setup never falls back from a source you named (${by}) that cannot be read; nothing was changed`,
      ...(attempt.hints ?? [`fix the URL or the network, or ${drop} to use the default sources`]),
    ],
  });
}

/** An answer below the manifest's recommended floor: used only when no source meets it. */
interface BelowFloorCandidate {
  index: number;
  spec: SourceSpec;
  label: string;
  r: Resolution;
}

/** The source's newest version within the hard constraints, when the preferred floor turned it away. */
async function belowFloorAnswer(spec: SourceSpec, ctx: SourceContext, hard: Constraint[]): Promise<Resolution | undefined> {
  try {
    const r = await resolveOne(spec, { ...ctx, constraints: hard });
    return meetsAll(r.version, hard, orderingOf(spec.kind)) ? r : undefined;
  } catch (e) {
    if (e instanceof NotAvailable || e instanceof XpuError) return undefined;
    throw e;
  }
}

async function planComponent(
  m: ComponentManifest,
  explicit: boolean,
  host: Host,
  opts: PlanOptions,
  ctx: SourceContext,
  request: Pick<SetupRequest, 'requires'>,
): Promise<PlannedComponent> {
  const floors = floorsFor(m, request);
  const spec = m.platforms[host.platform];
  const pc: PlannedComponent = { name: m.name, explicit, status: 'unavailable', archives: [], provides: spec?.provides ?? [], notes: [], attempts: [] };
  if (m.roles?.length) pc.roles = [...m.roles];
  // A pinned package that a source of this component chooses pins the component's own version too.
  const pinned = opts.torch?.pins.find((p) => spec?.sources.some((s) => 'packages' in s && s.packages.includes(p.name)));
  if (pinned) floors.hard.push(parseConstraint(`${m.name}==${pinned.version}`));
  const pins = opts.torch ? pinRequirements(opts.torch) : [];
  const constraints = [...floors.hard, ...floors.preferred];
  if (constraints.length) pc.constraints = constraints.map((c) => c.text);
  if (!spec) {
    pc.notes.push(`${m.name} has no source for ${host.platform}`);
    return pc;
  }
  const choose = async (r: Resolution, s: SourceSpec, label: string, index: number): Promise<PlannedComponent> => {
    // Everything the chosen packages need, from the same index.
    const closed = await closeOver(s, r, cctx, m.name, pins);
    pc.attempts.push({ source: r.source, outcome: 'chosen', reason: `${label}: ${r.archives.map((a) => `${a.package} ${a.version}`).join(', ')}` });
    const version = closed.olderRoot?.version ?? r.version;
    Object.assign(pc, { status: 'planned', source: r.source, origin: r.origin, version, archives: closed.archives });
    if (closed.olderRoot) pc.notes.push(`${closed.olderRoot.why}: using ${version}`);
    if (closed.notes.runtime.length) pc.runtime = closed.notes.runtime;
    if (closed.notes.skipped.length) pc.skipped = closed.notes.skipped;
    pc.notes.push(...missingFeatures(m, version, r.source));
    // A fallback is another source than one that failed before it: apt's other package names, tried first in the
    // same apt, are not one (`--source apt` asked for apt, and got it).
    const before = pc.attempts
      .slice(0, index)
      .map((a, i) => ({ a, i }))
      .filter(({ a }) => a.outcome !== 'chosen' && !a.reason.startsWith(`${label}: `));
    const away = closed.turnedAway ?? r.turnedAway;
    if (away?.length && !before.length) {
      // Newer versions of the same source its metadata said cannot load here: left before anything was downloaded.
      const line = `${m.name} ${version} from ${r.source} (${away.join('; ')})`;
      pc.choice = { line, rejected: away.slice(0, -1).map((t) => ({ candidate: `${t.split(' ')[0]!} (${r.source})`, why: `${t.slice(t.indexOf(' ') + 1)}; ${away.at(-1)!}` })) };
      pc.notes.push(line);
    }
    if (before.length) {
      pc.fallbackFrom = before.map(({ a }) => a.reason);
      pc.choice = { line: `${m.name} ${version} from ${label} (${pc.fallbackFrom.join('; ')})`, rejected: before.map(({ a, i }) => ({ candidate: describe(sources[i]!, ctx), why: a.reason })) };
      ctx.reporter.note(`${m.name}: falling back to ${label} ${r.version} because ${pc.fallbackFrom.join('; ')}`);
    }
    return pc;
  };
  const below: BelowFloorCandidate[] = [];
  const cctx: SourceContext = { ...ctx, constraints };
  const kinds = opts.keptSources?.[m.name] ?? opts.request.sources;
  const sources = orderSources(spec.sources, kinds);
  for (const [index, s] of sources.entries()) {
    const label = describe(s, ctx);
    try {
      const r = opts.verdicts?.length ? await resolveUsable(s, cctx, m.name, opts.verdicts) : await resolveOne(s, cctx);
      if (!meetsAll(r.version, constraints, orderingOf(s.kind))) {
        throw new NotAvailable(`${r.version} does not meet ${unmetText(r.version, constraints, orderingOf(s.kind))}`);
      }
      return await choose(r, s, label, index);
    } catch (e) {
      if (e instanceof NotAvailable) {
        pc.attempts.push({ source: s.kind, outcome: 'not-found', reason: `${label}: ${e.reason}` });
        const older = floors.preferred.length ? await belowFloorAnswer(s, ctx, floors.hard) : undefined;
        if (older) below.push({ index, spec: s, label, r: older });
      } else if (e instanceof XpuError) {
        // The source answered, but its packages do not fit together: the conflict is the error, not the source. The
        // versions --match-torch read hold for every source, so another one cannot make them fit either.
        if (e.code === 'RESOLUTION_CONFLICT' && opts.torch) {
          throw new XpuError(e.code, e.message, {
            details: { ...e.details, matchTorch: opts.torch.python },
            hints: [...e.hints.filter((h) => !h.includes('--source')), `${pinAsker(opts.torch)} read these versions: reinstall what its torch pins there, or plan without the match: --no-match-torch`],
            cause: e.cause,
          });
        }
        if (e.code === 'RESOLUTION_CONFLICT' && isNamed(s, opts)) throw e;
        // A named index that points somewhere refused, sends a bomb or stalls: that is the error, said as it is.
        if (INDEX_REFUSALS.has(e.code) && isNamed(s, opts)) throw e;
        const a: SourceAttempt = { source: s.kind, outcome: isUnreachable(e) ? 'unreachable' : 'error', reason: `${label}: ${e.message}` };
        if (OWN_HINTS.has(e.code) && e.hints.length) a.hints = e.hints;
        pc.attempts.push(a);
      } else {
        throw e;
      }
      const attempt = pc.attempts.at(-1)!;
      // A named source that answered "not here" lets the next allowed source answer; one that could not be read stops.
      if (attempt.outcome !== 'not-found' && isNamed(s, opts)) throw namedSourceError(m.name, attempt, opts.namedBy);
      ctx.reporter.debug(`${m.name}: ${attempt.reason}`);
    }
  }
  if (below.length) {
    // No reachable source meets the recommended floor: the newest answer below it (the first source on a tie), each
    // challenger's version judged in its own source's ordering.
    const best = below.reduce((a, b) => (compareAcross({ ordering: orderingOf(b.spec.kind), version: b.r.version }, { ordering: orderingOf(a.spec.kind), version: a.r.version }) > 0 ? b : a));
    // The planned version meets only the hard constraints: the recommended floor is recorded as what it is below.
    if (floors.hard.length) pc.constraints = floors.hard.map((c) => c.text);
    else delete pc.constraints;
    await choose(best.r, best.spec, best.label, best.index);
    const unreached = pc.attempts.filter((a) => a.outcome === 'unreachable').map((a) => a.reason);
    pc.belowFloor = belowFloorOf(m, best.r.version, best.r.source, request, unreached);
    ctx.reporter.note(`${m.name}: no reachable source has a version that meets the recommended ${floors.preferred.map((c) => c.text).join(', ')}: using ${best.label} ${best.r.version}`);
    return pc;
  }
  if (pc.attempts.length === 0) pc.notes.push(`no source of the kinds ${kinds.join(', ')} provides ${m.name} for ${host.platform}`);
  return pc;
}

/** The release after `v` at its last place: 1.20 -> 1.21. */
const nextRelease = (v: string): string => v.replace(/(\d+)(?!.*\d)/, (n) => String(Number(n) + 1));

/** Names what was missing and every source tried for it, then the remedy (and the pins `--match-torch` set). */
export function noSourceError(missing: PlannedComponent[], platform: TargetPlatform, torch?: TorchMatch): XpuError {
  const tried = missing.flatMap((c) => c.attempts.map((a) => `${c.name}: ${a.reason}`));
  const unreachable = missing.some((c) => c.attempts.some((a) => a.outcome === 'unreachable'));
  // A source had the package, only older than the floor the user set: say how to accept it on purpose.
  const notMet = missing.filter((c) => c.attempts.some((a) => / does not meet /.test(a.reason)));
  // A pin is no floor: `level-zero==1.20` (or `=1.20`) asks for exactly 1.20, which is 1.20.0, not any 1.20.x.
  const pins = notMet.flatMap((c) => (c.constraints ?? []).filter((t) => t.startsWith(`${c.name}==`)).map((t) => ({ c, v: t.slice(c.name.length + 2) })));
  const belowFloor = notMet.filter((c) => (c.constraints ?? []).some((t) => /^[^<>=!]+>/.test(t)));
  return new XpuError('NO_SOURCE', `no source could provide ${missing.map((c) => c.name).join(', ')} for ${platform}`, {
    details: { attempts: tried, unreachable },
    hints: [
      ...tried.map((t) => `tried ${t}`),
      ...missing.flatMap((c) => (c.attempts.length ? [] : c.notes.map((n) => `${c.name}: ${n}`))),
      ...belowFloor.map((c) => `to accept an older ${c.name}, lower the floor you set (--require, XPU_SETUP_REQUIRE): --require '${c.name}>=0'`),
      ...pins.map(({ c, v }) => `${c.name}==${v} asks for exactly ${v}; for any ${v}.x: --require '${c.name}>=${v}' --require '${c.name}<${nextRelease(v)}'`),
      ...(torch ? [`${pinAsker(torch)} pins ${torch.pins.map((p) => `${p.name} ${p.version}`).join(', ')}; without the match: --no-match-torch`] : []),
      ...new Set(missing.flatMap((c) => c.attempts.flatMap((a) => a.hints ?? []))),
      'check the index URLs (--conda-channel, --index-url), your network and proxy, or allow more sources with --source',
    ],
  });
}


export async function makePlan(
  host: Host,
  manifests: ComponentManifest[],
  opts: PlanOptions,
  deps: Deps,
  reporter: Reporter,
  gateway: Gateway,
): Promise<InstallPlan> {
  const { components: named, sources, requires: asked } = opts.request;
  const known = manifests.map((m) => m.name);
  const unknown = named.filter((c) => !known.includes(c));
  if (unknown.length) {
    throw new XpuError('USAGE', `unknown component ${unknown.map((u) => `"${u}"`).join(', ')}`, { hints: [`components: ${known.join(', ')}`] });
  }
  const required = new Set([...named, ...(opts.required ?? [])]);
  const unknownRequired = [...required].filter((c) => !known.includes(c));
  if (unknownRequired.length) {
    throw new XpuError('USAGE', `unknown component ${unknownRequired.map((u) => `"${u}"`).join(', ')} in a version constraint or the receipt`, {
      hints: [`components: ${known.join(', ')}`],
    });
  }
  // A platform whose GPU driver comes with the display driver (Windows) has no driver component to choose.
  const gpu = chooseGpuDriver(opts.hostGpus, manifests.filter((m) => m.platforms[host.platform]), { components: named, required, requires: asked });
  const byDefault = [...defaultComponents(manifests), ...(gpu?.decision === 'added' ? [gpu.component] : [])];
  const chosen = manifests.filter((m) => (named.length ? required.has(m.name) : byDefault.includes(m.name) || required.has(m.name)));
  // Every package any chosen component may ask of a kind, so an index read whole is read once for all of them.
  const runNames = new Map<SourceKind, string[]>();
  for (const s of chosen.flatMap((m) => m.platforms[host.platform]?.sources ?? [])) {
    const names = kindOf(s.kind).runNames?.(s);
    if (names) runNames.set(s.kind, [...new Set([...(runNames.get(s.kind) ?? []), ...names])]);
  }
  const ctx: SourceContext = {
    host,
    deps,
    reporter,
    indexes: opts.request.indexes,
    gateway,
    runNames,
  };
  const requires = { requires: gpuRequires(gpu, asked) };
  const components = await Promise.all(
    chosen.map((m) => planComponent(m, required.has(m.name), host, opts, ctx, requires)),
  );
  const s = gateway.stats;
  reporter.debug(`index: ${s.requests} requests, ${s.downloadedBytes} bytes downloaded, ${s.notModified} answered 304, ${s.fresh} from the cache without asking`);
  components.splice(0, components.length, ...settleGpuDriver(components, gpu, reporter));
  // --source names the kinds to use, a constraint names the versions: a component none of them could provide was
  // asked for and not delivered.
  const missing = components.filter(
    (c) => c.status === 'unavailable' && (c.explicit || (c.attempts.length > 0 && (sources.length > 0 || !!c.constraints))),
  );
  if (missing.length) throw noSourceError(missing, host.platform, opts.torch);
  // What one component's versions need of another (UR 2026's adapters: a loader >= 1.25) settles them together.
  const settled = await chooseTogether(chosen, components, (m, extra) => planComponent(m, required.has(m.name), host, opts, ctx, { requires: [...requires.requires, ...extra] }), opts.torch);
  components.splice(0, components.length, ...settled);
  checkConstrains(components.filter((c) => c.status === 'planned'));
  // Map rules left to an opt-in (the Windows loader DLL) are taken only when the request opted in.
  for (const c of components) c.archives = c.archives.map((a) => ({ ...a, map: a.map.filter((r) => !r.optIn || (r.optIn === 'include-loader-dll' && !!opts.request.includeLoaderDll)) }));
  return { ...newInstallPlan(host, opts, components), ...(opts.torch ? { torch: opts.torch } : {}), ...(gpu ? { gpuDriver: gpu } : {}) };
}
