// The GPU driver chosen by the GPU: this host's Intel GPUs (sysfs) and the Level Zero driver a program there gets
// (the library search), judged against data/compute-runtime-support.csv. A request naming no component gets the GPU
// driver component where that GPU has no usable driver; a planned driver must be new enough for every GPU here.
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { isInside, nodeLayout } from '../platform/index.js';
import type { Host } from '../platform/types.js';
import { driverBuild, familySupport, judgeDriver, LEGACY_SPLIT, type FamilySupport, type SupportVerdict } from '../machine/driver-support.js';
import { detectGpus } from '../machine/gpu.js';
import { describeIntelGpu, gpuIds, hex4, type GpuIdRow } from '../machine/gpu-ids.js';
import { readLdconfig } from '../machine/ldconfig.js';
import { resolveLibrary, versionFromFileName } from '../machine/loaders.js';
import { LINUX_UMD } from '../machine/user-driver.js';
import type { Reporter } from '../base/reporter.js';
import { hostGpuDriverOf, type HasRoles } from '../roles/index.js';
import { parseConstraint } from '../versions/order.js';
import type { GpuDriverChoice, HostGpu, HostGpus, PlannedComponent } from '../records/plan.js';

const RELEASES = 'https://github.com/intel/compute-runtime/releases';

/**
 * This host's Intel GPUs and the Level Zero GPU driver outside `prefix` (the prefix's own is what setup replaces), read
 * through `deps`; undefined where the GPU driver is the display driver's (Windows) or the plan is for another machine.
 */
export async function readHostGpus(deps: Deps, host: Host, prefix: string): Promise<HostGpus | undefined> {
  if (!host.native || nodeLayout(deps.platform).gpuDriver !== 'kernel-module') return undefined;
  const scan = await detectGpus(deps);
  const gpus: HostGpu[] = scan.found.intel.map((g) => ({
    name: g.name,
    pciId: g.pciId,
    ...(g.family ? { family: g.family } : {}),
    ...(g.driver ? { kernelDriver: g.driver } : {}),
  }));
  const tried = [...scan.tried];
  if (!gpus.length) return { gpus, tried };
  const ld = await readLdconfig(deps);
  const lib = await resolveLibrary(deps, LINUX_UMD, { ldcache: ld.found });
  tried.push(...lib.tried);
  const outside = [lib.chosen, ...lib.shadowed].find((c) => c && !isInside(prefix, c.path) && !isInside(prefix, c.realPath ?? c.path));
  if (!outside) return { gpus, tried };
  const file = outside.realPath ?? outside.path;
  const version = versionFromFileName(file);
  return { gpus, driver: { path: file, ...(version ? { version } : {}) }, tried };
}

/** The GPUs a request names (`--gpu`, as parseGpuName records them), to plan for in place of this machine's. */
export function namedGpus(names: readonly string[], table: Map<string, FamilySupport> = familySupport(), ids: Map<number, GpuIdRow> = gpuIds()): HostGpus {
  const gpus = names.map((n): HostGpu => {
    const id = /^8086:([0-9a-f]{4})$/.exec(n)?.[1];
    if (!id) return { name: table.get(n)?.generation ?? n, pciId: '', family: n };
    const deviceId = parseInt(id, 16);
    const row = ids.get(deviceId);
    return { name: describeIntelGpu(deviceId, ids), pciId: `8086:${hex4(deviceId)}`, ...(row ? { family: row.family } : {}) };
  });
  return { gpus, tried: [], named: true };
}

/** `Intel(R) Arc(tm) B580 Graphics (bmg, 8086:e20b)` as a person names it: `Arc B580 (BMG, 0xe20b)`; a family alone: `BMG (Xe2-HPG)`. */
export function gpuLabel(g: HostGpu): string {
  if (!g.pciId) return g.family ? `${g.family.toUpperCase()} (${g.name})` : g.name;
  const id = `0x${g.pciId.split(':')[1] ?? g.pciId}`;
  const bare = g.name.replace(/\s*\([^)]*\)\s*$/, '').replace(/^Intel(\(R\))?\s+/, '').replace(/\(tm\)/gi, '').replace(/\s+Graphics$/, '').trim();
  return g.family ? `${bare} (${g.family.toUpperCase()}, ${id})` : `${bare} (${id})`;
}

function gpusLabel(gpus: HostGpu[]): string {
  return gpus.map(gpuLabel).join(' and ');
}

/** Whose GPUs these are, in words: `this host's Arc B580 (BMG, 0xe20b)`, or `BMG (Xe2-HPG), named with --gpu`. */
function theirs(host: Pick<HostGpus, 'named'>, gpus: HostGpu[]): string {
  return host.named ? `${gpusLabel(gpus)}, named with --gpu` : `this host's ${gpusLabel(gpus)}`;
}

interface Needs {
  /** Constraints on the driver's version without the component's name (`>=24.31.30508.5`). */
  constraints: string[];
  /** Each constraint in words, by the GPU that sets it. */
  said: string[];
}

/** The releases that drive every Level Zero GPU of `gpus`: the newest (exact) first release, the oldest last one (legacy). */
function needsOf(gpus: HostGpu[], table: Map<string, FamilySupport>): Needs {
  let first: { support: FamilySupport; gpu: HostGpu } | undefined;
  let last: { support: FamilySupport; gpu: HostGpu } | undefined;
  for (const gpu of gpus) {
    const s = gpu.family ? table.get(gpu.family) : undefined;
    if (!s?.levelZero) continue;
    // A first release that is only the oldest tag read (older ones may drive it too) sets no floor.
    if (s.firstReleaseExact && (!first || driverBuild(s.firstRelease)! > driverBuild(first.support.firstRelease)!)) first = { support: s, gpu };
    if (s.lastRelease && (!last || driverBuild(s.lastRelease)! < driverBuild(last.support.lastRelease!)!)) last = { support: s, gpu };
  }
  const out: Needs = { constraints: [], said: [] };
  if (first) {
    out.constraints.push(`>=${first.support.firstRelease}`);
    out.said.push(`compute-runtime drives ${gpuLabel(first.gpu)} from ${first.support.firstRelease}`);
  }
  if (last) {
    out.constraints.push(`<=${last.support.lastRelease}`);
    out.said.push(
      `${gpuLabel(last.gpu)} is ${last.support.generation}, which left the regular packages at ${LEGACY_SPLIT}: only the frozen -legacy1 packages of the 24.35 line (intel-level-zero-gpu-legacy1, intel-opencl-icd-legacy1, up to ${last.support.lastRelease}) or an older release drive it`,
    );
  }
  return out;
}

/** How the host's own driver fares with each Level Zero GPU here: undefined when it drives them all. */
function hostDriverProblem(host: HostGpus, table: Map<string, FamilySupport>): string | undefined {
  const l0 = host.gpus.filter((g) => !g.family || table.get(g.family)?.levelZero !== false);
  const labels = gpusLabel(l0);
  if (!host.driver) return `this host's ${labels} ${l0.length === 1 ? 'has' : 'have'} no Level Zero driver`;
  const build = host.driver.version ? driverBuild(host.driver.version) : undefined;
  if (build === undefined) return undefined;
  const u = undriven(build, l0, table);
  if (!u) return undefined;
  const mine = `this host's Level Zero driver ${host.driver.path} (build ${build})`;
  return u.verdict.kind === 'too-old'
    ? `${mine} predates ${gpuLabel(u.gpu)}, which compute-runtime drives from ${u.verdict.needs}`
    : `${mine} no longer drives ${gpuLabel(u.gpu)} (${u.verdict.support.generation} left the regular packages at ${LEGACY_SPLIT})`;
}

type Undriven = { gpu: HostGpu; verdict: Extract<SupportVerdict, { kind: 'too-old' | 'needs-legacy' }> };

/** The first of `gpus` a driver of this build cannot drive (too old for it, or it needs the legacy line). */
function undriven(build: number, gpus: HostGpu[], table?: Map<string, FamilySupport>): Undriven | undefined {
  for (const gpu of gpus) {
    const verdict = judgeDriver(build, gpu.family, table);
    if (verdict.kind === 'too-old' || verdict.kind === 'needs-legacy') return { gpu, verdict };
  }
  return undefined;
}

export interface GpuAsk {
  /** Components the request names (empty: the default set). */
  components: string[];
  /** Components that must be planned (named, installed, constrained). */
  required: ReadonlySet<string>;
  /** The request's own version constraints (`gpu-driver>=0` replaces what the GPU needs). */
  requires: readonly string[];
}

/** Pure: what the plan does about the GPU driver component on a host with these GPUs. */
export function chooseGpuDriver<M extends HasRoles & { name: string }>(
  host: HostGpus | undefined,
  manifests: readonly M[],
  ask: GpuAsk,
  table: Map<string, FamilySupport> = familySupport(),
): GpuDriverChoice | undefined {
  const m = host && hostGpuDriverOf(manifests);
  if (!host || !m) return undefined;
  const component = m.name;
  const asked = ask.components.includes(component) || ask.required.has(component);
  const own = ask.requires.some((r) => parseConstraint(r).component === component);
  const needs = own ? { constraints: [], said: [] } : needsOf(host.gpus, table);
  const withNeeds = (c: GpuDriverChoice): GpuDriverChoice => (needs.constraints.length ? { ...c, needs: needs.constraints, said: needs.said } : c);
  if (!host.gpus.length) {
    const why = asked ? `${component}: no Intel GPU on this host: installed as asked (its compiler, ocloc, works without one)` : `${component}: no Intel GPU on this host: installed only when asked (--component ${component})`;
    return { component, decision: asked ? 'asked' : 'not-needed', why, host };
  }
  const l0 = host.gpus.filter((g) => !g.family || table.get(g.family)?.levelZero !== false);
  if (!l0.length) {
    const gens = [...new Set(host.gpus.map((g) => table.get(g.family!)!.generation))].join(', ');
    const why = `${component}: compute-runtime drives ${theirs(host, host.gpus)} (${gens}) through OpenCL only, never through Level Zero: ${asked ? 'installed as asked, for OpenCL and ocloc' : `installed only when asked (--component ${component})`}`;
    return { component, decision: asked ? 'asked' : 'not-needed', why, host };
  }
  const said = needs.said.length ? `; ${needs.said.join('; ')}` : '';
  if (host.named) {
    // The named GPUs are another machine's: its own driver is not known here, so the prefix brings one.
    const forThem = `for ${theirs(host, l0)}`;
    if (asked) return withNeeds({ component, decision: 'asked', why: `${component}: as asked, ${forThem}${said}`, host });
    if (ask.components.length) return withNeeds({ component, decision: 'not-asked', why: `${component}: not added ${forThem}, as components were named (add --component ${component})${said}`, host });
    return withNeeds({ component, decision: 'added', why: `${component}: adding it ${forThem}${said}`, host });
  }
  const problem = hostDriverProblem(host, table);
  if (asked) return withNeeds({ component, decision: 'asked', why: `${component}: as asked${problem ? ` (${problem})` : ''}${said}`, host });
  if (!problem) {
    const build = host.driver!.version ? driverBuild(host.driver!.version) : undefined;
    const judged = build === undefined ? 'its file name carries no version to judge' : `build ${build} drives it`;
    return {
      component,
      decision: 'left-alone',
      why: `${component}: this host's ${gpusLabel(l0)} ${l0.length === 1 ? 'has' : 'have'} a Level Zero driver, ${host.driver!.path} (${judged}): leaving it alone (--component ${component} puts one in the prefix anyway)`,
      host,
    };
  }
  if (ask.components.length) return withNeeds({ component, decision: 'not-asked', why: `${component}: ${problem}: not added, as components were named (add --component ${component})${said}`, host });
  return withNeeds({ component, decision: 'added', why: `${component}: ${problem}: adding it${said}`, host });
}

/** The request's constraints plus what the GPU needs of the driver component's version. */
export function gpuRequires(choice: GpuDriverChoice | undefined, requires: readonly string[]): string[] {
  return [...requires, ...(choice?.needs ?? []).map((n) => `${choice!.component}${n}`)];
}

/**
 * After the sources answered: a driver component planned under what the GPU needs says so; one no source could give in
 * such a version is dropped when only the GPU added it (said loudly), and stops the plan when it was asked for.
 */
export function settleGpuDriver(components: PlannedComponent[], choice: GpuDriverChoice | undefined, reporter: Reporter): PlannedComponent[] {
  if (!choice) return components;
  const pc = components.find((c) => c.name === choice.component);
  if (!pc) return components;
  const gpus = theirs(choice.host, choice.host.gpus);
  if (pc.status === 'planned') {
    const short = pc.version ? shortOf(pc.version, choice.host) : undefined;
    if (short) {
      pc.notes.push(`${pc.name} ${pc.version} ${short}: installed because the request's own constraint allows it`);
      reporter.warn(`${pc.name} ${pc.version} ${short}; installed because the request's own constraint (--require) allows it`);
    }
    if (choice.needs) pc.notes.push(`${pc.name} ${pc.version} drives ${gpus} (${choice.needs.map((n) => pc.name + n).join(', ')})`);
    if (choice.decision === 'added') reporter.info(choice.why);
    else reporter.debug(choice.why);
    return components;
  }
  if (!choice.needs) return components;
  const tried = pc.attempts.map((a) => a.reason);
  // A GPU named with --gpu was asked for: no driver for it stops the plan, as a named component would.
  if (choice.decision === 'added' && !choice.host.named) {
    choice.decision = 'dropped';
    choice.why = `${pc.name}: no source has a version that drives ${gpus} (${choice.needs.map((n) => pc.name + n).join(', ')}): not installed (${tried.join('; ')})`;
    reporter.warn(`${choice.why}; ${fixFor(choice).join('; ')}`);
    return components.filter((c) => c !== pc);
  }
  throw new XpuError('NO_SOURCE', `${pc.name}: no source has a version that drives ${gpus}: ${choice.needs.map((n) => pc.name + n).join(', ')} is needed${choice.said?.length ? ` (${choice.said.join('; ')})` : ''}`, {
    details: { component: pc.name, gpus: choice.host.gpus, needs: choice.needs, attempts: tried },
    hints: [...tried.map((t) => `tried ${t}`), ...fixFor(choice)],
  });
}

/** What a driver of this version cannot drive among the host's GPUs, in words; undefined when it drives them all. */
function shortOf(version: string, host: HostGpus): string | undefined {
  const build = driverBuild(version);
  const u = build === undefined ? undefined : undriven(build, host.gpus);
  if (!u) return undefined;
  const gpu = theirs(host, [u.gpu]);
  return u.verdict.kind === 'too-old'
    ? `predates ${gpu}, which compute-runtime drives from ${u.verdict.needs}`
    : `no longer drives ${gpu} (${u.verdict.support.generation}: the -legacy1 packages of the 24.35 line do)`;
}

function fixFor(choice: GpuDriverChoice): string[] {
  const legacy = choice.needs?.some((n) => n.startsWith('<='));
  return [
    legacy
      ? `install the frozen -legacy1 packages of the 24.35 line (intel-level-zero-gpu-legacy1, intel-opencl-icd-legacy1) from ${RELEASES}/tag/24.35.30872.45`
      : `a release that drives it from a source this run did not reach or allow (--source github: Intel's packages from ${RELEASES}, whose IGC 2.x needs glibc 2.38 or newer), or a distribution that has one (conda-forge's intel-compute-runtime carries no Level Zero driver)`,
    `to install an older driver anyway (its ocloc compiles without a GPU): --require '${choice.component}>=0'`,
  ];
}
