// Hints people paste: quoting that a real shell reads back, xpu-setup as their shell can run it, the right env file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { envCommandLine, envFileLine, recordedSourceArgs, selfCommand, setupLine } from '../../src/hints/index.js';
import { shq } from '../../src/base/shell-words.js';
import { loadLibrary } from '../../src/bindings/ffi.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-hints-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('hints', () => {
  it('shell-quotes only what needs it, and sh reads the quoted word back unchanged', () => {
    expect(shq('/opt/xpu')).toBe('/opt/xpu');
    const odd = "/tmp/sp ace/it's/$HOME";
    expect(shq(odd)).toBe(`'/tmp/sp ace/it'\\''s/$HOME'`);
    expect(execFileSync('sh', ['-c', `printf %s ${shq(odd)}`]).toString()).toBe(odd);
  });

  it('says `npx xpu-setup` unless xpu-setup is on the user\'s PATH (npx\'s own bin dirs do not count)', async () => {
    const global = path.join(tmp, 'global-bin');
    const npx = path.join(tmp, '_npx', 'abc', 'node_modules', '.bin');
    for (const d of [global, npx]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(path.join(d, 'xpu-setup'), '');
    }
    const deps = (PATH: string) => ({ ...realDeps(), env: { PATH }, started: undefined });
    expect(await selfCommand(deps(`/usr/bin:${npx}`))).toBe('npx xpu-setup');
    expect(await selfCommand(deps(`/usr/bin:${global}`))).toBe('xpu-setup');
  });

  it('names the program that started this process: xpu-setup only when PATH has this one, else its exact path', async () => {
    // A checkout's script, a global install's link to it, another xpu-setup elsewhere on PATH, and npx's copy.
    const script = path.join(tmp, 'check out', 'bin', 'xpu-setup.js');
    mkdirSync(path.dirname(script), { recursive: true });
    writeFileSync(script, '');
    const linked = path.join(tmp, 'linked-bin');
    mkdirSync(linked);
    symlinkSync(script, path.join(linked, 'xpu-setup'));
    const other = path.join(tmp, 'other-bin');
    mkdirSync(other);
    writeFileSync(path.join(other, 'xpu-setup'), '');
    const nodeDir = path.dirname(process.execPath);
    const deps = (PATH: string, started = script) => ({ ...realDeps(), env: { PATH }, started: { node: process.execPath, script: started } });
    expect(await selfCommand(deps(`${nodeDir}:${linked}`))).toBe('xpu-setup');
    expect(await selfCommand(deps(`${nodeDir}:${other}`))).toBe(`node '${script}'`);
    expect(await selfCommand(deps('/nonexistent'))).toBe(`${process.execPath} '${script}'`);
    const npxScript = path.join(tmp, '_npx', 'abc', 'node_modules', 'xpu-setup', 'bin', 'xpu-setup.js');
    mkdirSync(path.dirname(npxScript), { recursive: true });
    writeFileSync(npxScript, '');
    expect(await selfCommand(deps(nodeDir, npxScript))).toBe('npx xpu-setup');
    // `npx ./xpu-setup-0.1.0.tgz`: npx's install directory records the tarball, named again by its absolute file: path.
    writeFileSync(path.join(tmp, '_npx', 'abc', 'package.json'), JSON.stringify({ dependencies: { 'xpu-setup': 'file:../../my dir/xpu-setup-0.1.0.tgz' } }));
    expect(await selfCommand(deps(nodeDir, npxScript))).toBe(`npx 'file:${path.join(tmp, 'my dir', 'xpu-setup-0.1.0.tgz')}'`);
    // `npx xpu-setup` inside a clone: npx links the clone into its install directory and runs the script through that
    // link; the hint repeats npx of the clone, not node and the clone's script.
    const viaLink = path.join(tmp, '_npx', 'def', 'node_modules');
    mkdirSync(viaLink, { recursive: true });
    symlinkSync(path.join(tmp, 'check out'), path.join(viaLink, 'xpu-setup'));
    writeFileSync(path.join(tmp, '_npx', 'def', 'package.json'), JSON.stringify({ dependencies: { 'xpu-setup': 'file:../../check out' } }));
    expect(await selfCommand(deps(nodeDir, path.join(viaLink, 'xpu-setup', 'bin', 'xpu-setup.js')))).toBe(`npx 'file:${path.join(tmp, 'check out')}'`);
    // The line works when pasted: sh runs the quoted path.
    writeFileSync(script, 'console.log("ran " + process.argv.slice(2).join(" "))');
    const line = await selfCommand(deps(`${nodeDir}:${other}`));
    expect(execFileSync('/bin/sh', ['-c', `${line} --version`], { env: { PATH: nodeDir } }).toString()).toBe('ran --version\n');
  });

  it('repeats the non-public channels and indexes the receipt records', () => {
    const components = [
      { name: 'level-zero', version: '1', source: 'conda https://conda.anaconda.org/conda-forge', notes: [] },
      { name: 'unified-runtime', version: '2', source: 'pypi http://127.0.0.1:8080/simple/', notes: [] },
      { name: 'x', version: '3', source: 'apt Debian GNU/Linux 12 (bookworm)', notes: [] },
    ];
    expect(recordedSourceArgs({ components })).toEqual(['--index-url', 'http://127.0.0.1:8080/simple']);
    expect(setupLine('xpu-setup', '/a b', { components })).toBe("xpu-setup --prefix '/a b' --index-url http://127.0.0.1:8080/simple");
  });

  it('names the env file of the user\'s shell, and none that does not exist', async () => {
    const prefix = path.join(tmp, 'p q');
    mkdirSync(prefix);
    const deps = (SHELL: string) => ({ ...realDeps(), env: { SHELL } });
    expect(await envFileLine(deps('/bin/zsh'), prefix)).toBeUndefined();
    writeFileSync(path.join(prefix, 'env.sh'), '');
    writeFileSync(path.join(prefix, 'env.fish'), '');
    expect(await envFileLine(deps('/bin/zsh'), prefix)).toBe(`. '${prefix}/env.sh'`);
    expect(await envFileLine(deps('/usr/bin/fish'), prefix)).toBe(`source '${prefix}/env.fish'`);
    expect(envCommandLine('npx xpu-setup', prefix, 'sh')).toBe(`eval "$(npx xpu-setup env --prefix '${prefix}')"`);
    expect(envCommandLine('xpu-setup', prefix, 'fish')).toBe(`xpu-setup env fish --prefix '${prefix}' | source`);
  });

  it('a function missing from a library is named with the library', () => {
    const lib = loadLibrary('/usr/lib/x86_64-linux-gnu/libze_loader.so.1');
    expect(() => lib.func('int32_t urLoaderTearDown(void)')).toThrow("Cannot find function 'urLoaderTearDown' in /usr/lib/x86_64-linux-gnu/libze_loader.so.1");
  });
});
