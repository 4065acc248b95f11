// The CLI and odd terminals: a reader that closes the pipe early, a terminal that reports 0 columns.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Output } from '../../src/cli/output.js';
import { BIN, REPO } from './cli.js';

describe('a closed pipe', () => {
  it('`xpu-setup --help | (reader gone)` exits quietly, without an EPIPE stack', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader goes away before the program writes, as `| true` does.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(stderr).not.toMatch(/EPIPE|Error|at /);
    expect(code).toBe(0);
  });
});

describe('a terminal that reports 0 columns', () => {
  const tty = (columns: number) => ({ isTTY: true, columns }) as unknown as NodeJS.WriteStream;
  const fancy = (o: Output) => (o as unknown as { fancy: boolean }).fancy;
  it('is treated as no terminal: plain lines, no spinner', () => {
    expect(fancy(new Output({ json: false, quiet: false, verbose: false }, {}, tty(0)))).toBe(false);
    expect(fancy(new Output({ json: false, quiet: false, verbose: false }, {}, tty(80)))).toBe(true);
  });
});
