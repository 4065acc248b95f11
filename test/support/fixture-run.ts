// The opening of a file that runs the CLI as a process: the local fixture index, a work directory, a scrubbed
// environment with its HOME in that directory, and their teardown, registered with vitest's hooks.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { REPO, runCli, scrubbedEnv, tempDir, type CliRun } from '../e2e/cli.js';
import { startFixtureIndex, type FixtureIndex } from './index-server.js';
import { buildFixturePackages, type FixtureArtifact } from './packages.js';

export interface FixtureRunOptions {
  /** No fixture index: the file runs the CLI against apt or a server of its own. */
  noIndex?: boolean;
  /** Packages built beside the base fixtures and served with them (the GPU driver's channels, the baked loader), given the work dir. */
  more?: (work: string) => Promise<FixtureArtifact[]>;
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
  /** `script` in a shell with nothing of this one's environment but HOME and `prefix`'s env.sh sourced: what a user who sourced it has. */
  inEnvFile(prefix: string, script: string, cwd?: string): Promise<{ stdout: string; stderr: string }>;
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
    work = await tempDir(name);
    const more = opts.more?.(work);
    const fixtures = more ? await Promise.all([buildFixturePackages(), more]).then(([base, added]) => ({ ...base, artifacts: [...base.artifacts, ...added] })) : undefined;
    index = opts.noIndex ? undefined : await startFixtureIndex({ fixtures });
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
      if (opts.noIndex) throw new Error(`withFixtureRun('${name}'): started with noIndex, so it serves no fixture index`);
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
    inEnvFile: (prefix, script, cwd) => {
      const dir = ready(work, 'the work dir');
      return promisify(execFile)('sh', ['-c', `. '${prefix}/env.sh' && ${script}`], { cwd: cwd ?? dir, env: { HOME: path.join(dir, 'home'), PATH: '/usr/bin:/bin' }, maxBuffer: 64 << 20 });
    },
  };
}

/** `dir`/zeinit: a program that prints what zeInit returns, built against this machine's Level Zero headers and loader. */
export async function buildZeInit(dir: string): Promise<void> {
  const src = path.join(dir, 'zeinit.c');
  await fs.writeFile(src, '#include <stdio.h>\n#include <level_zero/ze_api.h>\nint main(void) { printf("zeInit=0x%x\\n", (unsigned)zeInit(0)); return 0; }\n');
  await promisify(execFile)('gcc', [src, '-o', path.join(dir, 'zeinit'), '-lze_loader']);
}

/** A copy of the package as npm would install it (its bin, dist, data and manifests), without code caches, so the caches there are the test's own. */
export async function packageCopy(dir: string): Promise<void> {
  for (const d of ['bin', 'dist', 'data', 'manifests', 'native', 'package.json']) await fs.cp(path.join(REPO, d), path.join(dir, d), { recursive: true });
  for (const f of await fs.readdir(path.join(dir, 'dist'))) if (f.endsWith('.v8cache')) await fs.rm(path.join(dir, 'dist', f));
}
