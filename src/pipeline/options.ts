// What a setup, plan or lock run is asked to do: the options every flow of the pipeline reads.
import type { TargetPlatform } from '../platform/types.js';
import type { UnpackLimits } from '../records/limits.js';
import type { PlanOptions } from '../plan/plan.js';
import type { RequestFlags } from '../plan/request.js';
import type { CachePolicy } from '../index/http-cache.js';

/** Where a run's plan goes, and who named its indexes (for errors about them); what is asked is in `flags`. */
export type PlanPlace = Pick<PlanOptions, 'prefix' | 'cacheDir' | 'namedBy'>;

export interface SetupOptions {
  plan: PlanPlace;
  /**
   * What this run's command line (or environment) said: the one request shape parsing makes. With a receipt in the
   * prefix, everything not said is repeated from its recorded request (plan/request.ts: mergeRequest).
   */
  flags: RequestFlags;
  /** Install exactly this lockfile's entry for the platform; no index is asked. */
  locked?: string;
  /** A bundle (directory or URL): its lockfile, with archives fetched from the bundle only. */
  from?: string;
  /**
   * How the run uses its caches (the gateway holds it): `cache-only` (`--offline`) asks no index and downloads nothing,
   * a missing archive is an error naming its URL and hash; `refresh` (`--refresh`) asks every index again.
   */
  cachePolicy?: CachePolicy;
  platform?: TargetPlatform;
  manifestsDir?: string;
  /** Build the CPU reference driver into the prefix and make the env files select it. */
  refdriver: boolean;
  /** Run the kernel after the probe. */
  smoke: boolean;
  /** "No device" fails the run instead of being reported. */
  requireDevice: boolean;
  /** false (`--no-probe`): install only; no addon build, probe or kernel (an image built without a GPU, say). */
  verify?: boolean;
  /** Hash every installed file (`--verify`) instead of trusting the ones whose size and mtime match the receipt. */
  rehash?: boolean;
  /** Build and probe again (`--probe`) even when the receipt holds the answer for the same inputs. */
  reprobe?: boolean;
  /** Run the kernel again (`--smoke`) even when the receipt says it passed under the same inputs. */
  resmoke?: boolean;
  /** How much one archive may unpack to (default DEFAULT_LIMITS). */
  limits?: UnpackLimits;
}

export type PlanSetupOptions = Pick<SetupOptions, 'plan' | 'flags' | 'platform' | 'manifestsDir'> &
  Partial<Pick<SetupOptions, 'locked' | 'from' | 'cachePolicy' | 'refdriver'>> & {
    /**
     * `lock` and `bundle` without `--prefix`: the request is the command line's alone. No prefix is read (its receipt,
     * its installed components) or refused.
     */
    standalone?: boolean;
  };
