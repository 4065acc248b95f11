// The real program runner behind Deps.exec: output, exit codes, input, environment, and every way a run can fail.
import * as os from 'node:os';
import { describe, expect, it } from 'vitest';
import { realExec } from '../../src/cli/real-deps.js';

const node = process.execPath;

describe('realExec', () => {
  it('returns the exit code and both outputs as text, final newlines kept', async () => {
    const r = await realExec(node, ['-e', 'process.stdout.write("out\\n"); process.stderr.write("err\\n"); process.exit(3)']);
    expect(r).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
  });

  it('feeds input on stdin and closes it', async () => {
    const r = await realExec(node, ['-e', 'let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => console.log(s.toUpperCase()))'], { input: 'abc' });
    expect(r).toEqual({ exitCode: 0, stdout: 'ABC\n', stderr: '' });
  });

  it('gives a program without input an empty stdin rather than one that never ends', async () => {
    const r = await realExec(node, ['-e', 'process.stdin.resume().on("end", () => console.log("eof"))'], { timeoutMs: 10_000 });
    expect(r).toEqual({ exitCode: 0, stdout: 'eof\n', stderr: '' });
  });

  it('takes a program that exits without reading its input', async () => {
    const r = await realExec(node, ['-e', 'process.exit(0)'], { input: 'x'.repeat(4 << 20) });
    expect(r.exitCode).toBe(0);
  });

  it('passes exactly the environment given, or this process own one', async () => {
    const print = ['-e', 'console.log(JSON.stringify([process.env.XPU_T, process.env.HOME ?? null]))'];
    expect(JSON.parse((await realExec(node, print, { env: { XPU_T: 'given' } })).stdout)).toEqual(['given', null]);
    process.env.XPU_T = 'inherited';
    try {
      expect(JSON.parse((await realExec(node, print)).stdout)).toEqual(['inherited', process.env.HOME ?? null]);
    } finally {
      delete process.env.XPU_T;
    }
  });

  it('runs in the directory given', async () => {
    const r = await realExec(node, ['-e', 'console.log(process.cwd())'], { cwd: os.tmpdir() });
    expect(r.stdout.trim()).toBe(process.platform === 'win32' ? os.tmpdir() : (await import('node:fs')).realpathSync(os.tmpdir()));
  });

  it('says a program that cannot start could not start, with the errno', async () => {
    const r = await realExec('xpu-setup-no-such-program', ['--version']);
    expect(r).toMatchObject({ exitCode: -1, stdout: '', stderr: '' });
    expect(r.failedToStart).toMatch(/ENOENT/);
  });

  it('stops a program that outlives its time and says it timed out', async () => {
    const t0 = Date.now();
    // Long enough for node to start and print on a loaded machine (300 ms was not, on 2 busy cores).
    const r = await realExec(node, ['-e', 'console.log("started"); setTimeout(() => {}, 60_000)'], { timeoutMs: 3000 });
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.exitCode).toBe(-1);
    expect(r.stdout).toBe('started\n');
    expect(r.failedToStart).toMatch(/timed out after 3000 milliseconds/);
  });

  it.skipIf(process.platform === 'win32')('names the signal that killed a program', async () => {
    const r = await realExec(node, ['-e', 'process.kill(process.pid, "SIGSEGV")']);
    expect(r.exitCode).toBe(-1);
    expect(r.failedToStart).toMatch(/killed with SIGSEGV/);
  });
});
