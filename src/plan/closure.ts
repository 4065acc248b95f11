// A component's packages and everything they depend on, resolved by its source's kind from the index they came from;
// and the conda `constrains` of a whole plan checked against each other.
import { XpuError } from '../base/errors.js';
import { kindOf, type ClosureResult, type Resolution, type SourceContext, type SourceSpec } from '../kinds/index.js';
import type { PlannedArchive } from '../records/archive.js';
import { matchesSpec, parseMatchSpec } from '../versions/match-spec.js';
import type { Requirement } from '../versions/resolve.js';

/**
 * The dependency closure of what a source chose: the chosen packages stay as chosen, and every package they need
 * (read from the index's own metadata) is added, the newest that fits every requirement on it and every pin (exact
 * versions that bind a package only where the closure has it). A kind without a closure (apt, a pinned URL) is
 * returned as it is.
 */
export async function closeOver(
  spec: SourceSpec,
  r: Resolution,
  ctx: SourceContext,
  component: string,
  pins: Requirement[] = [],
): Promise<ClosureResult> {
  const kind = kindOf(spec.kind);
  if (kind.closure) return kind.closure(spec, r, ctx, component, pins);
  return { archives: r.archives, notes: { runtime: [], skipped: [] } };
}

/**
 * conda `constrains` of every planned package against the packages other components planned (UR's
 * `level-zero >=1.20.2,<2.0a0` against the Level Zero the plan chose): a conflict is an error before any download.
 */
export function checkConstrains(components: { name: string; version?: string; archives: PlannedArchive[] }[]): void {
  for (const c of components) {
    for (const a of c.archives) {
      for (const text of a.constrains ?? []) {
        const spec = parseMatchSpec(text);
        const floor = />=\s*([^,|\s]+)/.exec(spec.version)?.[1];
        for (const other of components) {
          const hit = other.archives.find((x) => x.package === spec.name);
          if (!hit || matchesSpec(spec, { name: hit.package, version: hit.version, build: hit.build })) continue;
          throw new XpuError('RESOLUTION_CONFLICT', `${c.name}: ${a.package} ${a.version} constrains ${text}, but ${other.name} planned ${hit.package} ${hit.version}`, {
            details: { component: c.name, package: `${a.package} ${a.version}`, constrains: text, other: other.name, planned: `${hit.package} ${hit.version}` },
            hints: [
              floor ? `to keep ${a.package} ${a.version}, ask for a ${spec.name} that meets it: --require '${other.name}>=${floor}'` : `choose a ${spec.name} that meets ${spec.version}`,
              `or pin an older ${c.name} with --require '${c.name}<${c.version}'`,
              'nothing was downloaded',
            ],
          });
        }
      }
    }
  }
}
