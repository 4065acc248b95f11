// What a user's small mistakes get: a typo's "did you mean", an option left without its value, flags that contradict
// each other, a --from that names no bundle, and summaries that claim only what is there.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editDistance, nearest, parseCommandArgs } from '../../src/cli/options.js';
import { COMMANDS, findCommand } from '../../src/cli/registry.js';
import { bundleSummary } from '../../src/bundle/bundle.js';
import { pytorchSeesNothing } from '../../src/caps/format.js';
import type { ProbeReport } from '../../src/caps/model.js';
import { renderModulefile } from '../../src/shells/modulefile.js';
import { loadLockSource } from '../../src/plan/lockfile.js';
import { usage } from '../support/failure.js';
import { Http } from '../../src/net/http.js';

const spec = (name: string) => findCommand(name)!;

describe('typos', () => {
  it('two neighbouring letters swapped are one edit: `setpu` means setup, as `docter` means doctor', () => {
    expect(editDistance('setpu', 'setup')).toBe(1);
    expect(editDistance('docter', 'doctor')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'ab')).toBe(2);
    const names = COMMANDS.map((c) => c.name);
    expect(nearest('setpu', names)).toBe('setup');
    expect(nearest('docter', names)).toBe('doctor');
    expect(nearest('xyzzy', names)).toBeUndefined();
  });
});

describe('options', () => {
  it('an option left without its value says which and what it takes, not Node\'s parser text', () => {
    const e = usage(() => parseCommandArgs(spec('setup'), ['--prefix']));
    expect(e.message).toBe('--prefix needs a value: --prefix DIR');
    expect(e.message).not.toMatch(/argument missing|<value>/);
  });

  it('flags that contradict each other are refused, each pair saying why', () => {
    const pairs: [string[], RegExp][] = [
      [['--offline', '--refresh'], /--offline asks no index and --refresh asks every index again/],
      [['--from', './b', '--conda-channel', 'https://c.example/ch'], /--from installs from the bundle alone: drop --conda-channel/],
      [['--from', './b', '--index-url', 'https://i.example/simple'], /--from installs from the bundle alone: drop --index-url/],
      [['--no-probe', '--smoke'], /--no-probe runs no probe and so no kernel/],
    ];
    for (const [args, why] of pairs) {
      expect(usage(() => parseCommandArgs(spec('setup'), args)).message, args.join(' ')).toMatch(why);
      expect(usage(() => parseCommandArgs(spec('plan'), args)).message, `plan ${args.join(' ')}`).toMatch(why);
    }
    expect(() => parseCommandArgs(spec('setup'), ['--offline', '--locked'])).not.toThrow();
  });
});

describe('--from DIR', () => {
  it('a directory that is not there is a usage error about the bundle, not advice to write a lockfile', async () => {
    const e = await loadLockSource({ bundle: path.join(os.tmpdir(), 'no-such-bundle-xpu') }, new Http({})).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/^--from .*no-such-bundle-xpu: there is no directory /) });
    expect((e as { hints: string[] }).hints.join(' ')).not.toMatch(/xpu-setup lock|--locked/);
    expect((e as { hints: string[] }).hints).toEqual(['a bundle is a directory `xpu-setup bundle --platform ... --out DIR` wrote (or its URL)']);
  });

  it('a directory without a lockfile is not a bundle', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-empty-'));
    try {
      const e = await loadLockSource({ bundle: dir }, new Http({})).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'LOCKFILE', message: `${dir} is not a bundle: it has no xpu-setup.lock.json` });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what summaries claim', () => {
  it('a bundle of .deb archives claims no simple index and says where they are', () => {
    const debs = bundleSummary('/b', [{ path: 'files/libze1_1.8.12-1_amd64.deb' }, { path: 'files/libze-dev_1.8.12-1_amd64.deb' }], ['linux-64']);
    expect(debs).toBe('bundle /b: 2 archives: conda channel (linux-64: 0 packages), 2 other archives under files/, for the lockfile only (no index serves them), xpu-setup.lock.json');
    expect(debs).not.toMatch(/simple index/);
    const mixed = bundleSummary('/b', [{ path: 'linux-64/level-zero-1.29.0-h0_0.conda' }, { path: 'simple/umf/umf-1.0.2-py2.py3-none-manylinux_2_28_x86_64.whl' }], ['linux-64']);
    expect(mixed).toBe('bundle /b: 2 archives: conda channel (linux-64: 1 package), PEP 503 simple index (1 wheel), xpu-setup.lock.json');
  });

  it('a modulefile\'s header names the command that made it, with its prefix', () => {
    const info = { platform: 'linux-x64' as const, prefix: "/apps/xpu/it's 1.20", components: [{ name: 'level-zero', version: '1.20.6' }] };
    expect(renderModulefile([], 'lmod', info).split('\n')[0]).toBe("-- generated by xpu-setup; regenerate with: xpu-setup env --prefix '/apps/xpu/it'\\''s 1.20' --shell lmod");
    expect(renderModulefile([], 'tcl', info).split('\n')[1]).toBe("# generated by xpu-setup; regenerate with: xpu-setup env --prefix '/apps/xpu/it'\\''s 1.20' --shell tcl");
    expect(renderModulefile([], 'lmod', info)).not.toContain('<prefix>');
  });

  it('--format pytorch with no Unified Runtime says PyTorch would see no device', () => {
    const none = { ur: undefined } as unknown as ProbeReport;
    expect(pytorchSeesNothing(none)).toMatch(/^PyTorch XPU would see no device here: no Unified Runtime loader was found/);
    const noL0 = { ur: { loaderPath: '/p/lib/libur_loader.so.0', platforms: ['Portable Computing Language'] } } as unknown as ProbeReport;
    expect(pytorchSeesNothing(noL0)).toMatch(/the UR loader \/p\/lib\/libur_loader\.so\.0 reported no Level Zero platform/);
    const ok = { ur: { loaderPath: '/p/lib/libur_loader.so.0', platforms: ['Intel(R) oneAPI Unified Runtime over Level-Zero'] } } as unknown as ProbeReport;
    expect(pytorchSeesNothing(ok)).toBeUndefined();
  });
});
