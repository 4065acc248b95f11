// What one component's versions need of another's (a manifest's "needs"): UR 2026's adapters need a loader >= 1.25.
import { XpuError } from '../base/errors.js';
import type { ComponentNeed } from '../manifest/schema.js';
import { pinAsker } from './torch.js';
import type { PlannedComponent, TorchMatch } from '../records/plan.js';

/** A planned component whose version needs a version of another planned component that no candidate of it meets. */
export interface UnmetNeed {
  by: PlannedComponent;
  need: ComponentNeed;
  /** The component needed, as planned. */
  target: PlannedComponent;
  /** The constraint the target must meet (`level-zero>=1.25`). */
  constraint: string;
}

/** The version a need starts at (`>=2026` -> `2026`), when it reads that way: older ones do not need it. */
function startsAt(versions: string): string | undefined {
  return /^\s*>=\s*(\S+)\s*$/.exec(versions)?.[1];
}

/**
 * The need no reachable source can meet, said before anything is fetched: what needs what and why, the newest version
 * of the needed component the sources offered, and the ways out.
 */
export function unmetNeedError(u: UnmetNeed, tried: readonly string[], torch?: TorchMatch): XpuError {
  const { by, need, target } = u;
  const from = startsAt(need.versions);
  const pinned = torch?.pins.length ? torch : undefined;
  return new XpuError(
    'RESOLUTION_CONFLICT',
    `${by.name} ${by.version} needs ${need.component} ${need.version} (${need.why}); no reachable source has one: the ${need.component} the sources offer is ${target.version} (${target.source} ${target.origin ?? ''})`.replace(' )', ')'),
    {
      details: { component: by.name, version: by.version, needs: u.constraint, reachable: `${target.version} (${target.source})` },
      hints: [
        ...(pinned
          ? [`${pinAsker(pinned)} pins ${by.name} ${by.version}; plan without the match: --no-match-torch`]
          : from
            ? [`use a ${by.name} older than ${from}: --require '${by.name}<${from}'`]
            : []),
        `or a bundle made where a ${need.component} ${need.version} is reachable (xpu-setup bundle), or a channel that has one (--conda-channel)`,
        ...tried.map((t) => `tried ${t}`),
        'nothing was downloaded',
      ],
    },
  );
}
