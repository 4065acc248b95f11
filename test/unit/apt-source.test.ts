import { describe, expect, it } from 'vitest';
import type { Deps, ExecResult } from '../../src/base/deps.js';
import type { Host } from '../../src/platform/types.js';
import { silentReporter } from '../../src/base/reporter.js';
import { resolveApt } from '../../src/kinds/apt.js';
import { NotAvailable } from '../../src/kinds/kind.js';
import { absentFiles } from '../fixtures/detect/fake-deps.js';
import { openGateway } from '../../src/index/gateway.js';

const debian: Host = {
  platform: 'linux-x64', os: 'linux', arch: 'x64', native: true, glibc: '2.36',
  distro: { id: 'debian', versionId: '12', idLike: [], prettyName: 'Debian GNU/Linux 12 (bookworm)' },
};

const stanza = (pkg: string, sha: string) => `Package: ${pkg}
Source: level-zero
Version: 1.8.12-1
Architecture: amd64
Filename: pool/main/l/level-zero/${pkg}_1.8.12-1_amd64.deb
Size: 1000
SHA256: ${sha.repeat(64)}
`;

/** apt-cache over these stanzas: `show` gives them, `policy` names each one's version its candidate. */
function depsAnswering(stdout: string, calls: string[][]): Deps {
  const policy = [...stdout.matchAll(/^Package: (\S+)\nSource: .*\nVersion: (\S+)$/gm)].map((m) => `${m[1]}:\n  Installed: (none)\n  Candidate: ${m[2]}\n  Version table:\n`).join('');
  return {
    platform: 'linux', arch: 'x64', env: {},
    exec: async (file, args): Promise<ExecResult> => {
      calls.push([file, ...args]);
      return { exitCode: 0, stdout: args[0] === 'policy' ? policy : stdout, stderr: '' };
    },
    readFile: async () => undefined, readDir: async () => undefined, readLink: async () => undefined, exists: async () => false, now: () => 0,
    ...absentFiles,
  };
}

const spec = { kind: 'apt' as const, packages: ['libze1', 'libze-dev'], map: [{ from: 'usr/include/', to: 'include/' }] };

describe('apt source', () => {
  it("asks apt-cache for every package at once (policy for apt's candidate, show for its record) and plans apt: URLs with the listed SHA256", async () => {
    const calls: string[][] = [];
    const deps = depsAnswering(`${stanza('libze1', 'a')}\n${stanza('libze-dev', 'b')}`, calls);
    const r = await resolveApt(spec, { host: debian, deps, reporter: silentReporter, gateway: openGateway(deps), indexes: {} });
    expect(calls).toEqual([
      ['apt-cache', 'policy', 'libze1', 'libze-dev'],
      ['apt-cache', 'show', 'libze1', 'libze-dev'],
    ]);
    expect(r).toMatchObject({ source: 'apt', version: '1.8.12', origin: 'Debian GNU/Linux 12 (bookworm)' });
    expect(r.archives.map((a) => [a.url, a.sha256, a.filename])).toEqual([
      ['apt:libze1=1.8.12-1', 'a'.repeat(64), 'libze1_1.8.12-1_amd64.deb'],
      ['apt:libze-dev=1.8.12-1', 'b'.repeat(64), 'libze-dev_1.8.12-1_amd64.deb'],
    ]);
  });

  it('names the package apt does not know', async () => {
    const deps = depsAnswering(stanza('libze1', 'a'), []);
    const err = await resolveApt(spec, { host: debian, deps, reporter: silentReporter, gateway: openGateway(deps), indexes: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotAvailable);
    expect((err as NotAvailable).reason).toMatch(/this machine's apt lists no package libze-dev: not in this release, or its package lists are older than the package \(apt-get update\)/);
  });

  it('is not used for another platform or a non-Debian distro', async () => {
    const deps = depsAnswering('', []);
    await expect(resolveApt(spec, { host: { ...debian, native: false }, deps, reporter: silentReporter, gateway: openGateway(deps), indexes: {} })).rejects.toBeInstanceOf(NotAvailable);
    await expect(resolveApt(spec, { host: { ...debian, distro: { id: 'fedora', idLike: [] } }, deps, reporter: silentReporter, gateway: openGateway(deps), indexes: {} })).rejects.toBeInstanceOf(NotAvailable);
  });
});
