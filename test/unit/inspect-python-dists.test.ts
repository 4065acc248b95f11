import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePythonDists, pythonCandidates, readPythonDistributions } from '../../src/machine/python-dists.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { fakeDeps, ok } from '../fixtures/detect/fake-deps.js';

const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/detect/linux', name), 'utf8');

describe('parsePythonDists (captured output)', () => {
  it('reads the interpreter, its version and the installed names, leaving out what is not installed', () => {
    expect(parsePythonDists(fixture('python-dists-pyenv.txt'))).toEqual({
      python: '/root/.pyenv/versions/3.11.7/bin/python3',
      pythonVersion: '3.11.7',
      versions: { pip: '23.2.1', setuptools: '65.5.0' },
    });
    expect(parsePythonDists(fixture('python-dists-debian12.txt'))?.versions).toEqual({ pip: '23.0.1', Pip: '23.0.1' });
  });

  it('finds the answer line among other output, and refuses output that has none or a broken one', () => {
    expect(parsePythonDists(`sitecustomize says hi\n${fixture('python-dists-debian12.txt')}bye\n`)?.python).toBe('/usr/bin/python3');
    expect(parsePythonDists('')).toBeUndefined();
    expect(parsePythonDists('xpu-setup-dists {not json')).toBeUndefined();
    expect(parsePythonDists('xpu-setup-dists {"python": 3}')).toBeUndefined();
  });
});

describe('readPythonDistributions', () => {
  it('tries the venv, then the conda env, then PATH, and says what each gave', async () => {
    const answer = fixture('python-dists-debian12.txt');
    const deps = fakeDeps({
      env: { VIRTUAL_ENV: '/v', CONDA_PREFIX: '/c' },
      exists: (p) => p === '/c/bin/python3',
      exec: (file) => (file === '/c/bin/python3' ? { exitCode: 1, stdout: '', stderr: 'Traceback ...\nModuleNotFoundError: No module named importlib.metadata' } : file === 'python3' ? ok(answer) : undefined),
    });
    const r = await readPythonDistributions(deps, ['pip', 'triton']);
    expect(r.found?.versions).toEqual({ pip: '23.0.1', Pip: '23.0.1' });
    expect(r.tried).toEqual([
      '/v/bin/python3 (VIRTUAL_ENV): not there',
      '/v/bin/python (VIRTUAL_ENV): not there',
      '/c/bin/python3 (CONDA_PREFIX): exit 1: ModuleNotFoundError: No module named importlib.metadata',
      '/c/bin/python (CONDA_PREFIX): not there',
      'python3 (PATH): Python 3.11.2 at /usr/bin/python3; pip 23.0.1, triton not installed',
    ]);
  });

  it('uses only the interpreter it is given, and answers undefined with every attempt when nothing runs', async () => {
    const r = await readPythonDistributions(fakeDeps(), ['triton'], '/opt/py/bin/python');
    expect(r.found).toBeUndefined();
    expect(r.tried).toEqual(['/opt/py/bin/python (given): did not start (spawn /opt/py/bin/python ENOENT)']);
  });

  it('looks in Scripts\\python.exe of a Windows venv and python.exe of a conda env', () => {
    const c = pythonCandidates({ platform: 'win32', env: { VIRTUAL_ENV: 'C:\\v', CONDA_PREFIX: 'C:\\c' } });
    expect(c.map((x) => x.cmd)).toEqual(['C:\\v\\Scripts\\python.exe', 'C:\\c\\python.exe', 'python.exe', 'python3.exe']);
  });

  it('runs a real interpreter of this machine', async () => {
    const r = await readPythonDistributions(realDeps(), ['pip', 'no-such-dist-xpu-setup']);
    expect(r.found?.versions.pip).toMatch(/^\d+\./);
    expect(r.found?.versions['no-such-dist-xpu-setup']).toBeUndefined();
  });
});
