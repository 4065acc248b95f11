// What a pipe or CI log gets: a re-run that changes nothing in at most 5 lines, the plan in full only when something
// changes (or with --verbose), no line over 200 characters outside --verbose, and a `schema` in every --json document.
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LINE_WIDTH } from '../../src/base/wrap.js';
import { BIN, DEBIAN_12_STACK, type CliRun } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('quiet', { require: DEBIAN_12_STACK, extraEnv: { XPU_SETUP_CODE_CACHE: '0' } });
let args: string[];
let prefix: string;
let first: CliRun;

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
/** Lines longer than the width, but for one that is long only because it holds one `command` that must paste whole. */
const tooLong = (text: string) => lines(text).filter((l) => l.length > LINE_WIDTH && !/`[^`]{100,}`/.test(l));

beforeAll(async () => {
  prefix = fx.at('prefix');
  args = ['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm')];
  first = await fx.run(args);
  expect(first.exitCode, first.stderr).toBe(0);
}, 600_000);

describe('a re-run in a pipe (CI=true)', () => {
  it('that changes nothing says so in at most 5 lines: the plan as one line, the recorded probe, the verdict', async () => {
    const r = await fx.run(args);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(r.stderr).length, r.stderr).toBeLessThanOrEqual(5);
    expect(r.stderr).toMatch(/^plan: level-zero 1\.8\.12 from conda \(2 archives, [^)]+\); unified-runtime /m);
    expect(r.stderr).toMatch(/is up to date \(\d+ files match the receipt\)/);
    // A time people read, not an ISO string.
    expect(r.stderr).toMatch(/nothing they depend on changed since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC;/);
    expect(r.stderr).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/);
  });

  it('with --verbose prints the plan in full, each archive with its URL and sha256', async () => {
    const r = await fx.run([...args, '--verbose']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^plan for linux-x64 -> /m);
    expect(r.stderr).toMatch(/^ +sha256 [0-9a-f]{64}$/m);
  });

  it('that changes something prints the plan in full', async () => {
    const r = await fx.run([...args, '--remove', 'unified-runtime']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^plan for linux-x64 -> /m);
    const back = await fx.run([...args, '--component', 'unified-runtime']);
    expect(back.exitCode, back.stderr).toBe(0);
  });
});

describe('no line over 200 characters outside --verbose', () => {
  it('in the first install, a no-op, plan and doctor', async () => {
    expect(tooLong(first.stderr)).toEqual([]);
    const noop = await fx.run(args);
    expect(tooLong(noop.stderr)).toEqual([]);
    const plan = await fx.run(['plan', ...args]);
    expect(tooLong(plan.stdout + plan.stderr)).toEqual([]);
    const doctor = await fx.run(['doctor', '--prefix', prefix, '--check', 'platform,gpu,user-driver,ze-loader,headers,sdk-path,ur,env,compiler,prefix']);
    expect(tooLong(doctor.stdout + doctor.stderr)).toEqual([]);
    // A long fix line goes on under its own indentation (6), 4 further in.
    expect(doctor.stdout).toMatch(/^ {6}fix: .*\n {10}\S/m);
  });
});

describe('--json', () => {
  it('every command prints one document with a schema, errors too', async () => {
    const docs: [string, string[], number[]][] = [
      ['setup', [...args, '--json'], [0]],
      ['plan', ['plan', ...args, '--json'], [0]],
      ['doctor', ['doctor', '--prefix', prefix, '--check', 'platform,prefix', '--json'], [0, 1]],
      ['probe', ['probe', '--prefix', prefix, '--json'], [0, 1]],
      ['cache size', ['cache', 'size', '--cache-dir', fx.at('cache'), '--json'], [0]],
      ['--version', ['--version', '--json', '--prefix', prefix], [0]],
      ['an error', ['--prefix', prefix, '--source', 'nope', '--json'], [2]],
    ];
    for (const [name, argv, codes] of docs) {
      const r = await fx.run(argv);
      expect(codes, `${name}: ${r.stderr}`).toContain(r.exitCode);
      const doc = JSON.parse(r.stdout) as { schema?: unknown };
      expect(typeof doc.schema, name).toBe('number');
    }
  });
});

describe('words that are true', () => {
  it('level-zero=1.8 is read as the pin it is, and the hint says so instead of calling it a floor', async () => {
    const r = await fx.run(['plan', ...args, '--component', 'level-zero', '--require', 'level-zero=1.8']);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain("hint: level-zero==1.8 asks for exactly 1.8; for any 1.8.x: --require 'level-zero>=1.8' --require 'level-zero<1.9'");
    expect(r.stderr).not.toContain('lower the floor you set');
  });

  it("pkg-config says the version the tool says, not the one Debian's .pc lags at", async () => {
    const { execa } = await import('execa');
    const r = await execa('pkg-config', ['--modversion', 'level-zero', 'libze_loader'], { env: { ...fx.env, PKG_CONFIG_PATH: path.join(prefix, 'lib', 'pkgconfig') }, extendEnv: false });
    expect(r.stdout.split('\n')).toEqual(['1.8.12', '1.8.12']);
  });

  it('a range written as pip writes it is told that each part names its component', async () => {
    const r = await fx.run(['plan', '--prefix', prefix, '--require', 'level-zero>=1.9,<2']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`hint: each constraint names its component; a comma starts another constraint, not a range as in pip: --require 'level-zero>=1.9' --require 'level-zero<2'`);
  });

  it('a prefix under /proc or /sys is refused before any index is asked, naming the directory, why, and what to do', async () => {
    const before = fx.index.requests.length;
    for (const [prefix, dir, kind] of [['/proc/xpu', '/proc', 'proc'], ['/sys/class/xpu/p', '/sys/class', 'sysfs']] as const) {
      for (const argv of [['--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm')], ['plan', '--prefix', prefix]]) {
        const r = await fx.run(argv);
        expect(r.exitCode, r.stderr).toBe(1);
        expect(r.stderr).toContain(`error: ${prefix} cannot be made: ${dir} is on ${kind}, a file system the kernel makes up, where no directory can be made\n`);
        expect(r.stderr).toContain(`hint: choose a --prefix (or XPU_SETUP_PREFIX) in a directory this user can write, e.g. under ${fx.env.HOME}`);
        expect(r.stderr).not.toMatch(/^plan/m);
      }
    }
    expect(fx.index.requests.slice(before)).toEqual([]);
  });

  it('a prefix in a directory this user may not write is refused before any index is asked', async () => {
    // As root every directory is writable: the run is made as nobody (setpriv), as a user's would be.
    const { execa } = await import('execa');
    const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const [file, ...argv] = [...asUser, process.execPath, BIN, 'plan', '--prefix', '/usr/xpu/p'];
    const before = fx.index.requests.length;
    const r = await execa(file!, argv, { env: { ...fx.env, HOME: '/tmp' }, extendEnv: false, reject: false, cwd: '/tmp' });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain('error: /usr/xpu/p cannot be made: /usr is not writable by this user\n');
    expect(fx.index.requests.slice(before)).toEqual([]);
  });

  it('--remove of the last component names uninstall, not removing a directory by hand', async () => {
    const r = await fx.run([...args, '--remove', 'level-zero,unified-runtime']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error: that would remove every component');
    expect(r.stderr).toContain('hint: to delete the prefix and all it holds: xpu-setup uninstall (with the same --prefix)');
    expect(r.stderr).not.toContain('remove its directory');
  });
});
