// The committed action bundle is the build of the committed sources: the runner runs dist/ as committed, with no build.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
const inGit = (() => {
  try {
    return git('rev-parse', '--is-inside-work-tree').toString().trim() === 'true';
  } catch {
    return false;
  }
})();

async function files(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await files(dir, r)));
    else out.push(r);
  }
  return out.sort();
}

let out: string | undefined;
afterAll(() => (out ? fs.rm(out, { recursive: true, force: true }) : undefined));

describe.skipIf(!inGit)('the committed action bundle', () => {
  it('is byte for byte what scripts/bundle-action.mjs builds from the sources, and nothing else is committed beside it', async () => {
    out = await fs.mkdtemp(path.join(tmpdir(), 'xpu-action-build-'));
    execFileSync(process.execPath, [path.join(REPO, 'scripts', 'bundle-action.mjs'), out], { cwd: REPO });
    const built = await files(out);
    const committed = git('ls-tree', '-r', '--name-only', 'HEAD', 'dist/')
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((f) => f.slice('dist/'.length));
    expect(committed, 'the files committed under dist/ (rebuild with `node scripts/bundle.mjs` and commit dist/)').toEqual(built);
    const stale = [];
    for (const f of built) {
      if (!(await fs.readFile(path.join(out, f))).equals(git('show', `HEAD:dist/${f}`))) stale.push(f);
    }
    expect(stale, 'files that differ from a fresh build: run `node scripts/bundle.mjs` and commit dist/').toEqual([]);
  }, 120_000);
});
