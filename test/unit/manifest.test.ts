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
