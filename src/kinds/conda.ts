// conda channels: the platform's subdir and noarch read through the gateway (repodata.ts is the format), best builds chosen.
import { isUnreachable } from '../errors.js';
import { formatOf } from '../formats/index.js';
import { layoutFor } from '../host/index.js';
import type { CondaSourceSpec } from '../manifest/schema.js';
import type { Http } from '../net/http.js';
import { gatewayFor, scanBody, type Gateway } from '../sources/gateway.js';
import type { CondaCandidate, Repodata } from '../sources/repodata.js';
import { inRange } from '../versions/range.js';
import { compareConda, meetsAll, type Constraint } from '../versions/order.js';
import { NotAvailable, type PlannedArchive, type Resolution, type SourceContext } from '../sources/types.js';

/** `level-zero ==1.20.6 h84d6215_0` or `level-zero 1.20.6 h84d6215_0` -> pinned version and build. */
export function parsePin(dep: string): { name: string; version?: string; build?: string } {
  const [name = '', version, build] = dep.trim().split(/\s+/);
  return { name, version: version?.replace(/^==?/, ''), build };
}

export function better(a: CondaCandidate, b: CondaCandidate): number {
  // Higher build number first; at equal builds prefer .conda (smaller, faster to read).
  if (a.build_number !== b.build_number) return b.build_number - a.build_number;
  const ac = a.filename.endsWith('.conda') ? 0 : 1;
  const bc = b.filename.endsWith('.conda') ? 0 : 1;
  if (ac !== bc) return ac - bc;
  return (b.timestamp ?? 0) - (a.timestamp ?? 0);
}

/**
 * Picks one version that every requested package has (highest first, within the range), then per package the best
 * build, honouring exact pins between the requested packages (devel packages pin their runtime's build).
 */
export function selectCondaSet(
  candidates: CondaCandidate[],
  packages: string[],
  range?: string,
  constraints: readonly Constraint[] = [],
): CondaCandidate[] | undefined {
  const byName = new Map<string, CondaCandidate[]>();
  for (const c of candidates) {
    if (!packages.includes(c.name) || !c.sha256) continue;
    if (!byName.has(c.name)) byName.set(c.name, []);
    byName.get(c.name)!.push(c);
  }
  if (packages.some((p) => !byName.has(p))) return undefined;
  const versionSets = packages.map((p) => new Set(byName.get(p)!.map((c) => c.version)));
  const common = [...versionSets[0]!].filter((v) => versionSets.every((s) => s.has(v)) && inRange('conda', v, range) && meetsAll(v, constraints, 'conda'));
  common.sort((a, b) => compareConda(b, a));
  for (const version of common) {
    const chosen = new Map<string, CondaCandidate>();
    for (const p of packages) {
      const list = byName.get(p)!.filter((c) => c.version === version).sort(better);
      chosen.set(p, list[0]!);
    }
    // A pinned build wins over "highest build number" for the pinned package.
    for (const c of [...chosen.values()]) {
      for (const dep of c.depends ?? []) {
        const pin = parsePin(dep);
        if (!chosen.has(pin.name) || !pin.build || pin.version !== version) continue;
        const pinned = byName.get(pin.name)!.filter((x) => x.version === version && x.build === pin.build).sort(better)[0];
        if (pinned) chosen.set(pin.name, pinned);
      }
    }
    return packages.map((p) => chosen.get(p)!);
  }
  return undefined;
}

/** Streams one repodata document (zstd-compressed or plain) through the scanner, keeping only these packages' records. */
export async function scanRepodata(http: Http, url: string, names: readonly string[], zstd: boolean): Promise<Repodata> {
  return http.consumeStream(url, (body) => scanBody(body, url, names, zstd ? 'zstd' : 'identity'));
}

/** The records of `names` in one channel, the target's subdir and noarch, through the run's gateway: what the dependency closure reads. */
export async function condaRecords(ctx: SourceContext, channel: string, names: string[]): Promise<CondaCandidate[]> {
  const ch = channel.replace(/\/+$/, '');
  const gateway = ctx.gateway ?? gatewayFor(ctx.deps);
  const [arch, noarch] = await subdirAndNoarch(gateway, ch, layoutFor(ctx.host.platform).condaSubdir, names);
  return [...arch, ...noarch];
}

/**
 * The records of `names` in a channel's platform subdir and in its noarch, read at once. When both fail (an
 * unreachable channel), the platform subdir's failure is the one told, whichever came first.
 */
async function subdirAndNoarch(gateway: Gateway, ch: string, subdir: string, names: string[]): Promise<[CondaCandidate[], CondaCandidate[]]> {
  const [arch, noarch] = await Promise.allSettled([gateway.condaRecords(ch, subdir, names), gateway.condaRecords(ch, 'noarch', names, { optional: true })]);
  if (arch.status === 'rejected') throw arch.reason;
  if (noarch.status === 'rejected') throw noarch.reason;
  return [arch.value, noarch.value];
}

export async function resolveConda(spec: CondaSourceSpec, ctx: SourceContext): Promise<Resolution> {
  const channels = ctx.condaChannels?.length ? ctx.condaChannels : spec.channels;
  const subdir = layoutFor(ctx.host.platform).condaSubdir;
  const gateway = ctx.gateway ?? gatewayFor(ctx.deps);
  const misses: string[] = [];
  let unreachable: unknown;
  for (const channel of channels) {
    const ch = channel.replace(/\/+$/, '');
    let arch: CondaCandidate[];
    let noarch: CondaCandidate[];
    try {
      // Every name the run may ask for goes into the first read, so a channel without shards is scanned once.
      const names = [...new Set([...spec.packages, ...(ctx.condaPackages ?? [])])];
      [arch, noarch] = await subdirAndNoarch(gateway, ch, subdir, names);
    } catch (e) {
      // One unreachable channel is not the end: the next channel may answer.
      if (!isUnreachable(e)) throw e;
      unreachable ??= e;
      misses.push(`${ch} unreachable`);
      continue;
    }
    const set = selectCondaSet([...arch, ...noarch], spec.packages, spec.versions, ctx.constraints);
    if (!set) {
      const newest = ctx.constraints?.length ? selectCondaSet([...arch, ...noarch], spec.packages, spec.versions)?.[0]?.version : undefined;
      misses.push(
        newest
          ? `newest ${spec.packages[0]} in ${ch} (${subdir}) is ${newest}, which does not meet ${ctx.constraints!.map((c) => c.text).join(', ')}`
          : `${spec.packages.join(' + ')} not found in ${ch} (${subdir})`,
      );
      continue;
    }
    const archives: PlannedArchive[] = set.map((c) => ({
      package: c.name,
      version: c.version,
      build: c.build,
      filename: c.filename,
      url: c.url,
      sha256: c.sha256!,
      size: c.size,
      format: formatOf(c.filename)!,
      map: spec.map,
    }));
    return { source: 'conda', origin: ch, version: set[0]!.version, archives };
  }
  if (unreachable && misses.every((m) => m.endsWith('unreachable'))) throw unreachable;
  throw new NotAvailable(misses.join('; '));
}
