// Fault matrix, Debian packages: a private apt repository (file:) serves Debian 12's real libze1 beside a damaged or
// hostile libze-dev; the CLI installs from apt as a process and must name the true cause: the archive cut short, the
// unpack limit and its variable, the hard link and where it points, a full disk.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, scrubbedEnv } from '../e2e/cli.js';
import { withFixtureRun } from '../support/fixture-run.js';
import { ensureDebs, type DebSet } from '../support/debs.js';
import { tarBuffer, type ArchiveEntry } from '../support/packages.js';
import { aptRepository, debBuffer, debStanza, debWithData, hardLinkHeader } from './hostile.js';
import { compareSnapshots, FaultTable, makeSentinel, snapshotTree } from './matrix.js';

const table = new FaultTable('fault matrix: Debian packages (setup --source apt from a private file: repository, CLI as a process)');
const fx = withFixtureRun('faults-deb', { noIndex: true });
let bookworm: DebSet;

beforeAll(async () => {
  bookworm = (await ensureDebs()).bookworm;
}, 300_000);

afterAll(async () => {
  table.print();
});

const DEV = { name: 'libze-dev', version: '1.8.12-1' };
const DEV_FILE = 'libze-dev_1.8.12-1_amd64.deb';
const header: ArchiveEntry = { path: './usr/include/level_zero/ze_api.h', type: 'file', data: Buffer.from('/* stand-in */\n') };
const END = Buffer.alloc(1024);

interface Case {
  name: string;
  /** The libze-dev the repository serves in place of the real one. */
  dev: () => Promise<Buffer>;
  /** The prefix's parent on a tmpfs of this size (needs root). */
  tmpfs?: string;
  code: string;
  says: RegExp;
  maxRssMb?: number;
}

const CASES: Case[] = [
  { name: 'libze-dev cut in half', code: 'BAD_ARCHIVE', says: /libze-dev_1\.8\.12-1_amd64\.deb \(apt:libze-dev=1\.8\.12-1\) is not a readable tar archive: it ends inside member/,
    dev: async () => {
      const whole = await debBuffer(DEV, [header, { path: './usr/lib/x86_64-linux-gnu/libze_big.so', type: 'file', data: randomBytes(400_000) }]);
      return whole.subarray(0, whole.length >> 1);
    } },
  { name: 'libze-dev a gzip bomb (1 GiB of zeros in 1 MB)', code: 'TOO_LARGE', maxRssMb: 300, says: /libze-dev_1\.8\.12-1_amd64\.deb .*unpacks to more than 200 times its size.*--max-ratio N or XPU_SETUP_MAX_RATIO=N/s,
    dev: async () => {
      const zeros = zlib.gzipSync(Buffer.alloc(64 << 20), { level: 9 });
      const head = tarBuffer([{ path: './usr/lib/x86_64-linux-gnu/zeros.bin', type: 'file', data: Buffer.alloc(0) }]).subarray(0, 512);
      head.write((1 << 30).toString(8).padStart(11, '0') + '\0', 124, 'latin1');
      head.fill(' ', 148, 156);
      let sum = 0;
      for (const b of head) sum += b;
      head.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');
      return debWithData(DEV, Buffer.concat([zlib.gzipSync(head), ...Array<Buffer>(16).fill(zeros), zlib.gzipSync(END)]));
    } },
  { name: 'libze-dev with a hard link to /etc/passwd', code: 'UNSAFE_PATH', says: /refusing archive member "\.\/usr\/lib\/x86_64-linux-gnu\/libze_pw\.so" in libze-dev_1\.8\.12-1_amd64\.deb \(apt:libze-dev=1\.8\.12-1\): hard link to "\/etc\/passwd" \(absolute path\)/,
    dev: async () => {
      const tar = tarBuffer([header]);
      return debWithData(DEV, zlib.gzipSync(Buffer.concat([tar.subarray(0, tar.length - 1024), hardLinkHeader('./usr/lib/x86_64-linux-gnu/libze_pw.so', '/etc/passwd'), END])));
    } },
  { name: 'libze-dev with a hard link to ../../../../etc/shadow', code: 'UNSAFE_PATH', says: /member "\.\/usr\/lib\/x86_64-linux-gnu\/libze_sh\.so" in libze-dev_1\.8\.12-1_amd64\.deb \(apt:libze-dev=1\.8\.12-1\): hard link to "\.\.\/\.\.\/\.\.\/\.\.\/etc\/shadow"/,
    dev: async () => {
      const tar = tarBuffer([header]);
      return debWithData(DEV, zlib.gzipSync(Buffer.concat([tar.subarray(0, tar.length - 1024), hardLinkHeader('./usr/lib/x86_64-linux-gnu/libze_sh.so', '../../../../etc/shadow'), END])));
    } },
  { name: 'full disk under the prefix (512 KiB tmpfs, a 2 MiB library)', tmpfs: '512k', code: 'NO_SPACE', says: /no space left on the device holding/,
    dev: async () => debBuffer(DEV, [header, { path: './usr/lib/x86_64-linux-gnu/libze_big.so', type: 'file', data: randomBytes(2 << 20) }]) },
];

describe('fault matrix: Debian packages', () => {
  it.for(CASES)('$name', async (c, ctx) => {
    if (c.tmpfs && process.getuid?.() !== 0) ctx.skip('mounting a tmpfs needs root');
    const dir = await fs.mkdtemp(fx.at('case-'));
    const libze1 = await fs.readFile(bookworm.debs.libze1);
    const dev = await c.dev();
    const conf = await aptRepository(path.join(dir, 'apt'), debStanza('libze1', '1.8.12-1', 'libze1_1.8.12-1_amd64.deb', libze1) + debStanza('libze-dev', '1.8.12-1', DEV_FILE, dev, 'libze1 (= 1.8.12-1)'), { 'libze1_1.8.12-1_amd64.deb': libze1, [DEV_FILE]: dev });
    const parent = path.join(dir, 'p');
    await fs.mkdir(parent);
    if (c.tmpfs) execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${c.tmpfs}`, 'tmpfs', parent]);
    try {
      await makeSentinel(path.join(parent, 'sentinel'));
      const before = await snapshotTree(parent);
      const t0 = Date.now();
      const r = await runCli(
        ['setup', '--component', 'level-zero', '--source', 'apt', '--prefix', path.join(parent, 'prefix'), '--cache-dir', path.join(dir, 'cache'), '--no-smoke', '--no-probe', '--json'],
        scrubbedEnv(path.join(dir, 'home'), { APT_CONFIG: conf }),
        { peakRss: true, timeoutMs: 120_000 },
      );
      const ms = Date.now() - t0;
      const outside = compareSnapshots(before, await snapshotTree(parent));
      const doc = JSON.parse(r.stdout || '{}') as { ok?: boolean; error?: { code?: string; message?: string } };
      const peak = Math.round((r.peakRssKb ?? 0) / 1024);
      table.add({ case: c.name, exit: r.exitCode, code: doc.ok ? '-' : (doc.error?.code ?? '?'), ms, outside: `${outside}, peak ${peak} MiB` });
      expect({ exit: r.exitCode, code: doc.error?.code }, r.stderr).toEqual({ exit: 1, code: c.code });
      expect(r.stderr.replace(/\n\s+/g, ' ')).toMatch(c.says);
      // The archive is named by its own name, never by where the cache keeps it.
      expect(r.stderr).not.toContain(path.join(dir, 'cache'));
      expect(r.stderr).not.toMatch(/Broken pipe|internal error|\n\s+at .*:\d+:\d+\)/);
      expect(outside).toBe('unchanged');
      if (c.maxRssMb) expect(peak).toBeLessThan(c.maxRssMb);
    } finally {
      if (c.tmpfs) execFileSync('umount', ['-l', parent]);
    }
  });
});
