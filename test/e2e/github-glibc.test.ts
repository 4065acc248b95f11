// Intel's GitHub releases as they are now, through the built CLI on this Debian 12 host (glibc 2.36) against a local
// server shaped like the GitHub REST API (test/support/github-releases.ts, `modern`): 26.31 built for glibc 2.43 (a test
// double: sid's files with the control's libc6 floor and the driver's GLIBC_ need raised), 26.27 for 2.38 (Debian sid's
// real debs under Intel's names), and Debian 12's 22.43 repacked. What a release needs of glibc is read from its debs'
// control files by Range requests before anything is downloaded, so the newer releases are left without a download and
// the plan says why in one line; a server that ignores Range costs downloads, and the ELF needs turn them away instead.
import * as fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CR_TAG, IGC_VERSION, startGithubServer, type GithubServer, type GithubVariant } from '../support/github-releases.js';
import { MODERN } from '../support/github-modern.js';
import type { CliRun } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

let server: GithubServer;
const fx = withFixtureRun('github-glibc', { noIndex: true });

const args = (variant: GithubVariant, name: string): string[] => ['--component', 'gpu-driver', '--source', 'github', '--github-url', server.api(variant), '--prefix', fx.at(name), '--cache-dir', fx.at(`cache-${name}`)];
const cli = (a: string[]): Promise<CliRun> => fx.run(a);
const newer = (name: string): boolean => name.includes(MODERN.newest.tag) || name.includes(MODERN.older.tag) || name.includes(`_${MODERN.newest.igc}+`) || name.includes(`_${MODERN.older.igc}+`);

beforeAll(async () => {
  server = await startGithubServer({ modern: true });
}, 600_000);

afterAll(async () => {
  await server?.close();
});

describe("Intel's GitHub releases whose debs need a newer glibc than this host's", () => {
  it(`plans 22.43 without downloading 26.x: ${MODERN.newest.tag} needs glibc 2.43 and ${MODERN.older.tag} 2.38, said in one line`, async () => {
    const r = await cli(['plan', ...args('modern', 'plan'), '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    const c = (doc.components ?? doc.plan?.components).find((x: { name: string }) => x.name === 'gpu-driver');
    expect(c.version).toBe(CR_TAG);
    expect(c.choice.line).toBe(`gpu-driver ${CR_TAG} from github (${MODERN.newest.tag} needs glibc 2.43; ${MODERN.older.tag} needs glibc 2.38; this host has glibc 2.36)`);
    expect(c.choice.rejected.map((x: { candidate: string }) => x.candidate)).toEqual([`${MODERN.newest.tag} (github)`, `${MODERN.older.tag} (github)`]);
    // Only the head of one deb per newer release was read (and of each of the one taken); no package was downloaded, only the sum lists.
    expect(server.downloads.filter((n) => n.endsWith('.deb'))).toEqual([]);
    expect(server.ranges.filter(newer)).toEqual([`libze-intel-gpu1_${MODERN.newest.tag}-0_amd64.deb bytes=0-65535`, `libze-intel-gpu1_${MODERN.older.tag}-0_amd64.deb bytes=0-65535`]);
  });

  it("installs 22.43; its ww43.sum's stale IGC line is not used: IGC, from its own repository, is verified by GitHub's digest", async () => {
    const r = await cli([...args('modern', 'install'), '--no-probe', '--no-smoke']);
    expect(r.exitCode, r.stderr).toBe(0);
    const receipt = JSON.parse(await fs.readFile(fx.at('install', 'xpu-setup.receipt.json'), 'utf8'));
    const igc = receipt.archives.filter((a: { package: string }) => a.package.startsWith('intel-igc'));
    expect(igc.map((a: { version: string }) => a.version)).toEqual([`${IGC_VERSION}+12504`, `${IGC_VERSION}+12504`]);
    for (const a of igc) expect(a.sha256).toBe(server.debs.find((d) => d.package === a.package)!.sha256);
    expect(r.stderr).toContain(`${MODERN.newest.tag} needs glibc 2.43`);
  });

  it('from a server that ignores Range: the newer releases are downloaded, their ELF needs turn them away in the same run, and 22.43 is installed', async () => {
    const r = await cli([...args('modern-no-range', 'no-range'), '--no-probe', '--no-smoke']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/GLIBC_2\.43/);
    expect(r.stderr).toMatch(/GLIBC_2\.38/);
    const receipt = JSON.parse(await fs.readFile(fx.at('no-range', 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.components[0].version).toBe(CR_TAG);
  });
});
