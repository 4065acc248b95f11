import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { validateManifest } from '../../src/manifest/schema.js';

describe('manifests', () => {
  it('the shipped manifests are valid and cover both platforms', async () => {
    const ms = await loadManifests();
    expect(ms.map((m) => m.name).sort()).toEqual(['level-zero', 'unified-runtime']);
    for (const m of ms) {
      expect(Object.keys(m.platforms).sort()).toEqual(['linux-x64', 'win-x64']);
    }
    expect(ms.filter((m) => m.zeLoader).map((m) => m.name)).toEqual(['level-zero']);
  });

  it('refuses a zeLoader that is not a boolean, and two manifests that both claim the loader', async () => {
    const doc = { schema: 1, name: 'x', zeLoader: 'yes', platforms: {} };
    expect(() => validateManifest('z.json', doc)).toThrow(/z\.json: "zeLoader" must be true or false/);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-manifests-'));
    try {
      for (const name of ['a', 'b']) await fs.writeFile(path.join(dir, `${name}.json`), JSON.stringify({ schema: 1, name, zeLoader: true, platforms: {} }));
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

  it('names the file and field of a bad manifest', () => {
    const doc = { schema: 1, name: 'x', platforms: { 'linux-x64': { sources: [{ kind: 'url', package: 'p', version: '1', url: 'https://x/y.zip', sha256: 'nope', map: [{ from: 'a/', to: 'a/' }] }] } } };
    expect(() => validateManifest('m.json', doc)).toThrow(/m\.json: linux-x64\.sources\[0\]: url sources need a pinned/);
    expect(() => validateManifest('m.json', { schema: 2 })).toThrow(/m\.json: expected "schema": 1/);
  });
});
