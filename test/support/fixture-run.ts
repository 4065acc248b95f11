// The opening of a file that runs the CLI as a process: the local fixture index, a work directory, a scrubbed
// environment with its HOME in that directory, and their teardown, registered with vitest's hooks.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { REPO, runCli, scrubbedEnv, tempDir, type CliRun } from '../e2e/cli.js';
import { startFixtureIndex, type FixtureIndex } from './index-server.js';
import { buildFixturePackages, type FixtureArtifact } from './packages.js';

export interface FixtureRunOptions {
  /** No fixture index: the file runs the CLI against apt or a server of its own. */
  noIndex?: boolean;
  /** Packages built beside the base fixtures and served with them (the GPU driver's channels, the baked loader). */
  more?: () => Promise<FixtureArtifact[]>;
  /**
   * The env runs against the index: its PyPI pages as `XPU_SETUP_INDEX_URL`, and this `XPU_SETUP_REQUIRE` (the
   * fixture loaders are below the shipped floor, so these runs lower it).
   */
  require?: string;
  /** Further variables of the env. */
  extraEnv?: Record<string, string>;
}

export interface FixtureRun {
  /** Valid from the file's first hook on, as are the others. */
  readonly index: FixtureIndex;
  readonly work: string;
  /** `<work>/home`, the env's HOME. */
  readonly home: string;
  readonly env: Record<string, string>;
  /** A path in the work directory. */
  at(...parts: string[]): string;
  /** The CLI as a process with this env (`opts.env` adds to it). */
  run(args: string[], opts?: Parameters<typeof runCli>[2] & { env?: Record<string, string> }): Promise<CliRun>;
}

/** Registers the hooks that start the index and make the work dir (`name` in its name) before the file's tests, and end both after. */
export function withFixtureRun(name: string, opts: FixtureRunOptions = {}): FixtureRun {
  let index: FixtureIndex | undefined;
  let work: string | undefined;
  let env: Record<string, string> | undefined;
  const ready = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`withFixtureRun('${name}'): ${what} is set up in beforeAll; read it from a hook or a test`);
    return v;
  };
  beforeAll(async () => {
    const fixtures = opts.more ? await Promise.all([buildFixturePackages(), opts.more()]).then(([base, more]) => ({ ...base, artifacts: [...base.artifacts, ...more] })) : undefined;
    [index, work] = await Promise.all([opts.noIndex ? undefined : startFixtureIndex({ fixtures }), tempDir(name)]);
    const required: Record<string, string> = opts.require && index ? { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: opts.require } : {};
    await fs.mkdir(path.join(work, 'home'));
    env = scrubbedEnv(path.join(work, 'home'), { ...required, ...opts.extraEnv });
  }, 600_000);
  afterAll(async () => {
    await index?.close();
    if (work) await fs.rm(work, { recursive: true, force: true });
  });
  return {
    get index() {
      return ready(index, 'the fixture index');
    },
    get work() {
      return ready(work, 'the work dir');
    },
    get home() {
      return path.join(ready(work, 'the work dir'), 'home');
    },
    get env() {
      return ready(env, 'the env');
    },
    at: (...parts) => path.join(ready(work, 'the work dir'), ...parts),
    run: (args, { env: extra, ...rest } = {}) => runCli(args, { ...ready(env, 'the env'), ...extra }, rest),
  };
}

/** A copy of the package as npm would install it (its bin, dist, data and manifests), without code caches, so the caches there are the test's own. */
export async function packageCopy(dir: string): Promise<void> {
  for (const d of ['bin', 'dist', 'data', 'manifests', 'native', 'package.json']) await fs.cp(path.join(REPO, d), path.join(dir, d), { recursive: true });
  for (const f of await fs.readdir(path.join(dir, 'dist'))) if (f.endsWith('.v8cache')) await fs.rm(path.join(dir, 'dist', f));
}
