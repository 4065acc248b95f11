import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { validateManifest } from '../../src/manifest/schema.js';

describe('manifests', () => {
  it('the shipped manifests are valid and cover both platforms (the GPU driver only Linux: on Windows the display driver carries it)', async () => {
    const ms = await loadManifests();
    expect(ms.map((m) => m.name).sort()).toEqual(['gpu-driver', 'level-zero', 'unified-runtime']);
    for (const m of ms) {
      const want = { 'gpu-driver': ['linux-x64'], 'level-zero': ['linux-aarch64', 'linux-x64', 'win-x64'], 'unified-runtime': ['linux-x64', 'win-x64'] }[m.name];
      expect(Object.keys(m.platforms).sort()).toEqual(want);
    }
    // A bare run plans every component but the GPU driver, which is planned when asked for.
    expect(ms.filter((m) => m.byDefault === false).map((m) => m.name)).toEqual(['gpu-driver']);
    expect(ms.filter((m) => m.roles?.includes('ze-loader')).map((m) => m.name)).toEqual(['level-zero']);
  });

  it('refuses an unknown role, the old zeLoader flag, and two manifests that both claim the loader', async () => {
    expect(() => validateManifest('z.json', { schema: 1, name: 'x', roles: ['ze-loadr'], platforms: {} })).toThrow(/z\.json: unknown role "ze-loadr" \(roles: ze-loader, /);
    expect(() => validateManifest('z.json', { schema: 1, name: 'x', roles: 'ze-loader', platforms: {} })).toThrow(/z\.json: "roles" must be a list/);
    expect(() => validateManifest('z.json', { schema: 1, name: 'x', zeLoader: true, platforms: {} })).toThrow(/z\.json: "zeLoader" is no longer read: .*"roles": \["ze-loader"\]/);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-manifests-'));
    try {
      for (const name of ['a', 'b']) await fs.writeFile(path.join(dir, `${name}.json`), JSON.stringify({ schema: 1, name, roles: ['ze-loader'], platforms: {} }));
      await expect(loadManifests(dir)).rejects.toThrow(/more than one manifest .* Level Zero loader: a, b/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('never resolves Level Zero from PyPI by the name level-zero', () => {
    const doc = {
      schema: 1, name: 'x', summary: '', features: [],
      platforms: { 'linux-x64': { provides: [], sources: [{ kind: 'pypi', packages: ['Level_Zero'], map: [{ from: 'lib/', to: 'lib/' }] }] } },
    };
    expect(() => validateManifest('bad.json', doc)).toThrow(/bad\.json.*unrelated project/);
  });

  it('reads each source\'s "versions" range in that source\'s ordering, and names the manifest and the range it cannot read', async () => {
    const map = [{ from: 'lib/', to: 'lib/' }];
    const withRanges = (conda: string, pypi: string, apt: string) => ({
      schema: 1, name: 'x', summary: '', features: [],
      platforms: {
        'linux-x64': {
          provides: [],
          sources: [
            { kind: 'conda', channels: ['https://conda.example/c'], packages: ['level-zero'], map, versions: conda },
            { kind: 'pypi', packages: ['umf'], map, versions: pypi },
            { kind: 'apt', packages: ['libze1'], map, versions: apt },
          ],
        },
      },
    });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-manifests-'));
    const file = path.join(dir, 'x.json');
    const load = async (doc: unknown) => {
      await fs.writeFile(file, JSON.stringify(doc));
      return loadManifests(dir);
    };
    try {
      const [m] = await load(withRanges('>=1.20.2,<2.0a0', '>=1.0,<2', '>= 1.9, << 2'));
      expect(m!.platforms['linux-x64']!.sources.map((s) => s.versions)).toEqual(['>=1.20.2,<2.0a0', '>=1.0,<2', '>= 1.9, << 2']);
      await expect(load(withRanges('^1.20', '>=1.0,<2', '>= 1.9'))).rejects.toMatchObject({
        code: 'BAD_MANIFEST',
        message: `manifest ${file}: linux-x64.sources[0]: cannot read "versions": "^1.20" as a conda version spec, e.g. ">=1.9,<2" or "1.9.*"`,
      });
      await expect(load(withRanges('>=1.20', '>=1.0 <2', '>= 1.9'))).rejects.toThrow(/sources\[1\]: cannot read "versions": ">=1\.0 <2" as a PEP 440 specifier set/);
      // dpkg spells "less than" <<; its old `<` meant <=, so it is not taken.
      await expect(load(withRanges('>=1.20', '>=1.0', '<2'))).rejects.toThrow(/sources\[2\]: cannot read "versions": "<2" as Debian relations, e\.g\. ">= 1\.9, << 2"/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('fills in each arch\'s words per platform, and gives a "like" platform the sources of the one it names', async () => {
    const ms = await loadManifests();
    const l0 = ms.find((m) => m.name === 'level-zero')!;
    const aptFrom = (p: 'linux-x64' | 'linux-aarch64') => l0.platforms[p]!.sources.find((s) => s.kind === 'apt')!.map.map((r) => r.from);
    expect(aptFrom('linux-x64')).toEqual(['usr/include/', 'usr/lib/x86_64-linux-gnu/']);
    expect(aptFrom('linux-aarch64')).toEqual(['usr/include/', 'usr/lib/aarch64-linux-gnu/']);
    const driver = ms.find((m) => m.name === 'gpu-driver')!.platforms['linux-x64']!.sources.find((s) => s.kind === 'github') as unknown as { assets: string[] };
    expect(driver.assets).toContain('libze-intel-gpu1_{tag}-0_amd64.deb');
    // The GPU driver's sources, given to Arm in one line, ask for Intel's arm64 .debs and read their multiarch directory.
    const raw = JSON.parse(await fs.readFile(path.join(__dirname, '../../manifests/gpu-driver.json'), 'utf8'));
    raw.platforms['linux-aarch64'] = { like: 'linux-x64' };
    const arm = validateManifest('gpu-driver.json', raw).platforms['linux-aarch64']!.sources.find((s) => s.kind === 'github') as unknown as { assets: string[]; map: { from: string }[]; with: { assets: string[] }[] };
    expect(arm.assets).toEqual(['libze-intel-gpu1_{tag}-0_arm64.deb', 'intel-opencl-icd_{tag}-0_arm64.deb', 'intel-ocloc_{tag}-0_arm64.deb', 'libigdgmm12_{gmmlib}_arm64.deb']);
    expect(arm.with[0]!.assets).toEqual(['intel-igc-core-2_{version}+*_arm64.deb', 'intel-igc-opencl-2_{version}+*_arm64.deb']);
    expect(arm.map[0]!.from).toBe('usr/lib/aarch64-linux-gnu/');
    const doc = (platforms: unknown) => ({ schema: 1, name: 'x', platforms });
    const src = { kind: 'apt', packages: ['libze1'], map: [{ from: 'usr/lib/{multiarch}/', to: 'lib/' }] };
    const m = validateManifest('m.json', doc({ 'linux-x64': { sources: [src] }, 'linux-aarch64': { like: 'linux-x64' } }));
    expect(m.platforms['linux-aarch64']!.sources[0]!.map[0]!.from).toBe('usr/lib/aarch64-linux-gnu/');
    expect(() => validateManifest('m.json', doc({ 'win-x64': { sources: [] }, 'linux-aarch64': { like: 'win-x64' } }))).toThrow(/m\.json: linux-aarch64: "like" must name another platform of the same OS/);
    expect(() => validateManifest('m.json', doc({ 'linux-aarch64': { like: 'linux-x64' } }))).toThrow(/"like" must name another platform/);
    expect(() => validateManifest('m.json', doc({ 'linux-arm64': { sources: [] } }))).toThrow(/unknown platform "linux-arm64" \(platforms: linux-x64, win-x64, linux-aarch64\)/);
  });

  it('names the file and field of a bad manifest', () => {
    const doc = { schema: 1, name: 'x', platforms: { 'linux-x64': { sources: [{ kind: 'url', package: 'p', version: '1', url: 'https://x/y.zip', sha256: 'nope', map: [{ from: 'a/', to: 'a/' }] }] } } };
    expect(() => validateManifest('m.json', doc)).toThrow(/m\.json: linux-x64\.sources\[0\]: url sources need a pinned/);
    expect(() => validateManifest('m.json', { schema: 2 })).toThrow(/m\.json: expected "schema": 1/);
  });
});
