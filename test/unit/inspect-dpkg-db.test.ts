// dpkg's database read as files: the same installed versions and file owners dpkg-query -W and -S report.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/base/deps.js';
import { dpkgOwnerFromLists, installedOf, listHas, listPackage, parseDpkgStatus } from '../../src/machine/dpkg-db.js';
import { DPKG_FORMAT, GPU_STACK_PACKAGES, owningPackage, parseDpkgQuery, parseDpkgSearch, queryPackages } from '../../src/machine/packages.js';
import { realDeps } from '../../src/cli/real-deps.js';

const fx = (p: string): string => readFileSync(path.join(__dirname, '../fixtures/detect', p), 'utf8');
/** The oracle: the real dpkg-query -W (which expands the \t and \n escapes of the format itself). */
const dpkgQueryW = (names: string[]) => parseDpkgQuery(spawnSync('dpkg-query', ['-W', `-f=${DPKG_FORMAT}`, ...names], { encoding: 'utf8' }).stdout);

describe('the status file', () => {
  const status = fx('linux/dpkg-status-debian12.txt');

  it('reads the records of a real Debian 12 status excerpt', () => {
    const records = parseDpkgStatus(status);
    expect(records.map((r) => r.name)).toEqual(['libstdc++6', 'libze-dev', 'libze1', 'pocl-opencl-icd']);
    expect(records.find((r) => r.name === 'libze1')).toEqual({ name: 'libze1', architecture: 'amd64', version: '1.8.12-1', want: 'install', state: 'installed' });
  });

  it('lists installed packages as dpkg-query -W does (its captured answer for the same names)', () => {
    const names = ['libze-dev', 'libze1', 'pocl-opencl-icd', 'libze-intel-gpu1'];
    const fromFile = installedOf(parseDpkgStatus(status), names).map((p) => ({ name: p.name, version: p.version, manager: 'dpkg' }));
    expect(fromFile).toEqual(parseDpkgQuery(fx('linux/dpkg-query-debian12.txt')));
  });

  it('keeps held packages, drops removed ones that left config files, and sorts a second architecture after the first', () => {
    const edited = status
      .replace(/Package: libze-dev\nStatus: install ok installed/, 'Package: libze-dev\nStatus: deinstall ok config-files')
      .replace(/Package: libze1\nStatus: install ok installed/, 'Package: libze1\nStatus: hold ok installed')
      .concat('Package: libze1\nStatus: install ok installed\nArchitecture: i386\nVersion: 1.8.12-1\n');
    const found = installedOf(parseDpkgStatus(edited), ['libze1', 'libze-dev']);
    expect(found).toEqual([
      { name: 'libze1', version: '1.8.12-1', architecture: 'amd64' },
      { name: 'libze1', version: '1.8.12-1', architecture: 'i386' },
    ]);
  });

  it("gives this machine's dpkg-query -W answer, for the GPU stack and for every package", async () => {
    const deps = realDeps();
    expect((await queryPackages(deps)).found).toEqual(dpkgQueryW(GPU_STACK_PACKAGES));
    const every = [...new Set(parseDpkgStatus(readFileSync('/var/lib/dpkg/status', 'utf8')).map((r) => r.name))];
    expect((await queryPackages(deps, every)).found).toEqual(dpkgQueryW(every));
  });
});

describe('file lists', () => {
  const list = fx('linux/dpkg-info-libze1.list');

  it('matches whole lines only', () => {
    expect(listHas(list, '/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0')).toBe(true);
    expect(listHas(list, '/usr/lib/x86_64-linux-gnu/libze_validation_layer.so.1')).toBe(true);
    expect(listHas(list, '/usr/lib/x86_64-linux-gnu/libze_loader.so')).toBe(false);
    expect(listHas(list, '/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8')).toBe(false);
    expect(listHas('/only\n', '/only')).toBe(true);
  });

  it('names the package of a list file with or without its architecture', () => {
    expect(listPackage('libze1:amd64.list')).toBe('libze1');
    expect(listPackage('libze-dev.list')).toBe('libze-dev');
  });

  /** Test double: a dpkg info directory held in memory. */
  const infoDir = (lists: Record<string, string>): Deps => ({
    ...realDeps(),
    readDir: async (p) => (p === '/var/lib/dpkg/info' ? Object.keys(lists) : undefined),
    readFile: async (p) => lists[path.basename(p)],
  });

  it('looks in the likely packages first, then in every list, and says when none has the file', async () => {
    const deps = infoDir({ 'a.list': '/x\n', 'libze1:amd64.list': list, 'z.list': '/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0\n' });
    expect(await dpkgOwnerFromLists(deps, '/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0', ['libze1'])).toEqual({ name: 'libze1' });
    expect(await dpkgOwnerFromLists(deps, '/x', ['libze1'])).toEqual({ name: 'a' });
    expect(await dpkgOwnerFromLists(deps, '/nowhere', ['libze1'])).toEqual({ none: true });
    expect(await dpkgOwnerFromLists({ ...deps, readDir: async () => undefined }, '/x', [])).toBeUndefined();
  });

  it("gives this machine's dpkg-query -S owner for the loader, the headers and a file no package owns", async () => {
    const deps = realDeps();
    for (const file of ['/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0', '/usr/include/level_zero/ze_api.h', '/usr/bin/gcc-12', '/etc/hostname']) {
      const s = spawnSync('dpkg-query', ['-S', file], { encoding: 'utf8' });
      const owner = s.status === 0 ? parseDpkgSearch(s.stdout) : undefined;
      const expected = owner ? (await queryPackages(deps, [owner])).found[0] : undefined;
      expect(await owningPackage(deps, file)).toEqual(expected);
    }
    expect(await owningPackage(deps, '/usr/include/level_zero/ze_api.h')).toEqual({ name: 'libze-dev', version: '1.8.12-1', manager: 'dpkg' });
  });
});
