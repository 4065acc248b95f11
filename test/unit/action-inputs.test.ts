// The action's inputs: read as the runner passes them, a wrong boolean refused by name, cache keys, fixes in its terms.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_INPUTS, actionInputs, cacheKey, downloadsRestoreKey, inActionTerms, inputVar, prefixCacheKey } from '../../src/cli/action-inputs.js';
import { isXpuError } from '../../src/base/errors.js';

describe('action inputs', () => {
  it('reads lists, strings and booleans from INPUT_* variables, blanks as unset', () => {
    const i = actionInputs({ INPUT_COMPONENTS: 'level-zero, unified-runtime', INPUT_REQUIRE: 'level-zero>=1.9\n', INPUT_GPU: 'bmg, 0xe20b', INPUT_REFDRIVER: 'true', INPUT_PREFIX: ' ', 'INPUT_CACHE-DIR': '/c', INPUT_SMOKE: 'FALSE' });
    expect(i.values).toMatchObject({ component: ['level-zero', 'unified-runtime'], require: ['level-zero>=1.9'], gpu: ['bmg', '0xe20b'], refdriver: true, 'cache-dir': '/c' });
    expect(i.values.prefix).toBeUndefined();
    expect(i).toMatchObject({ refdriver: true, smoke: false, cache: true, cachePrefix: false, requireDevice: false, verbose: false });
  });

  it('match-torch: true asks for the job\'s python, a path names the interpreter, false forgets a recorded match', () => {
    expect(actionInputs({ 'INPUT_MATCH-TORCH': 'true' }).values['match-torch']).toBe('');
    expect(actionInputs({ 'INPUT_MATCH-TORCH': '/opt/venv/bin/python' }).values['match-torch']).toBe('/opt/venv/bin/python');
    expect(actionInputs({ 'INPUT_MATCH-TORCH': 'false' }).values).toMatchObject({ 'no-match-torch': true });
    expect(actionInputs({}).values['match-torch']).toBeUndefined();
    expect(inActionTerms('name it: --match-torch=/opt/venv/bin/python')).toBe('name it: match-torch: /opt/venv/bin/python');
  });

  it('include-loader-dll: true asks for ze_loader.dll, false drops one asked for before, unset leaves the recorded request', () => {
    expect(actionInputs({ 'INPUT_INCLUDE-LOADER-DLL': 'true' }).values).toMatchObject({ 'include-loader-dll': true });
    expect(actionInputs({ 'INPUT_INCLUDE-LOADER-DLL': 'false' }).values).toMatchObject({ 'no-include-loader-dll': true });
    const unset = actionInputs({ 'INPUT_INCLUDE-LOADER-DLL': '' }).values;
    expect([unset['include-loader-dll'], unset['no-include-loader-dll']]).toEqual([undefined, undefined]);
    expect(() => actionInputs({ 'INPUT_INCLUDE-LOADER-DLL': 'yes' })).toThrow('input `include-loader-dll` is "yes": it takes true or false');
    expect(inActionTerms('--include-loader-dll adds the package\'s copy')).toBe('include-loader-dll: true adds the package\'s copy');
  });

  it('a boolean that is not true or false is an error naming the input', () => {
    let err: unknown;
    try {
      actionInputs({ INPUT_REFDRIVER: 'maybe' });
    } catch (e) {
      err = e;
    }
    expect(isXpuError(err, 'USAGE')).toBe(true);
    expect((err as Error).message).toBe('input `refdriver` is "maybe": it takes true or false');
    expect(() => actionInputs({ 'INPUT_REQUIRE-DEVICE': 'yes' })).toThrow('input `require-device` is "yes"');
  });

  it('declares in action.yml exactly the inputs it reads, with the runner\'s variable names', () => {
    const yml = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
    const declared = [...yml.slice(yml.indexOf('\ninputs:'), yml.indexOf('\noutputs:')).matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]);
    expect(declared.sort()).toEqual(Object.keys(ACTION_INPUTS).sort());
    expect(inputVar('conda-channel')).toBe('INPUT_CONDA-CHANNEL');
  });

  it('keys the download cache by OS family, arch, plan and version, restoring any older one of the same OS and arch', () => {
    const key = cacheKey('win32', 'x64', 'plan-a');
    expect(key).toMatch(/^xpu-setup-windows-x64-[0-9a-f]{16}-\d+\.\d+\.\d+/);
    expect(key.startsWith(downloadsRestoreKey('win32', 'x64'))).toBe(true);
    expect(cacheKey('win32', 'x64', 'plan-b')).not.toBe(key);
    expect(cacheKey('linux', 'x64', 'plan-a').startsWith(downloadsRestoreKey('win32', 'x64'))).toBe(false);
  });

  it('keys a prefix by plan, path and reference driver: any change is another key, and no download key matches it', () => {
    const k = prefixCacheKey('linux', 'x64', 'plan-a', '/p', false);
    expect(new Set([k, prefixCacheKey('linux', 'x64', 'plan-b', '/p', false), prefixCacheKey('linux', 'x64', 'plan-a', '/q', false), prefixCacheKey('linux', 'x64', 'plan-a', '/p', true)]).size).toBe(4);
    expect(k.startsWith(downloadsRestoreKey('linux', 'x64'))).toBe(false);
  });

  it('save-cache, cache-suffix and github-token: defaults, values, and a suffix a cache key cannot hold', () => {
    expect(actionInputs({})).toMatchObject({ saveCache: true, cacheSuffix: undefined, githubToken: undefined });
    expect(actionInputs({ 'INPUT_SAVE-CACHE': 'false', 'INPUT_CACHE-SUFFIX': 'py3.12', 'INPUT_GITHUB-TOKEN': 'ghs_x' })).toMatchObject({ saveCache: false, cacheSuffix: 'py3.12', githubToken: 'ghs_x' });
    expect(() => actionInputs({ 'INPUT_CACHE-SUFFIX': 'a,b' })).toThrow('input `cache-suffix` is "a,b": it takes up to 64 letters, digits, dots, dashes or underscores');
  });

  it('a cache suffix is in every key and in the restore key, so suffixed jobs restore only their own kind', () => {
    const key = cacheKey('linux', 'x64', 'plan-a', 'job1');
    expect(key).toMatch(/^xpu-setup-linux-x64-job1-[0-9a-f]{16}-\d+\.\d+\.\d+$/);
    expect(key.startsWith(downloadsRestoreKey('linux', 'x64', 'job1'))).toBe(true);
    expect(cacheKey('linux', 'x64', 'plan-a', 'job2').startsWith(downloadsRestoreKey('linux', 'x64', 'job1'))).toBe(false);
    expect(prefixCacheKey('linux', 'x64', 'plan-a', '/p', false, 'job1')).toMatch(/^xpu-setup-prefix-linux-x64-job1-/);
  });

  it('says fixes in the action\'s terms: inputs for the flags it has, other flags as they are', () => {
    expect(inActionTerms('run `xpu-setup --prefix /tmp/p` to install it')).toBe('run `xpu-setup prefix: /tmp/p` to install it');
    expect(inActionTerms('or leave out --refdriver')).toBe('or leave out refdriver: true');
    expect(inActionTerms('name it with --conda-channel URL, or drop --no-smoke')).toBe('name it with conda-channel: URL, or drop smoke: false');
    expect(inActionTerms('pass --offline to use the cache')).toBe('pass --offline to use the cache');
    // The step's own bundle is no command to run by hand: the CLI through npx is.
    expect(inActionTerms('(`node /home/runner/work/_actions/xpu-setup/xpu-setup/v0/dist/xpu-setup-action-main.cjs doctor` says why)')).toBe('(`npx xpu-setup doctor` says why)');
    expect(inActionTerms('`/opt/node24/bin/node /a/dist/xpu-setup-action-main.cjs doctor`')).toBe('`npx xpu-setup doctor`');
    expect(inActionTerms("--require 'level-zero>=0' accepts it")).toBe("require: 'level-zero>=0' accepts it");
  });
});
