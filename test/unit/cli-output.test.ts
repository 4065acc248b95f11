// How the CLI draws: no spinner on a 0-column terminal, FORCE_COLOR honoured, one check mark everywhere.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Output } from '../../src/cli/output.js';
import { shouldColor } from '../../src/doctor/render.js';

/** A stand-in for process.stderr that claims to be a terminal of the given width. */
const fakeTerminal = (columns: number) => ({ isTTY: true, columns }) as unknown as NodeJS.WriteStream;

let written: string[];
afterEach(() => vi.restoreAllMocks());
function capture(): void {
  written = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
}

describe('Output', () => {
  it('a terminal that reports 0 columns gets plain lines, not a spinner', () => {
    capture();
    const out = new Output({ json: false, quiet: false, verbose: false }, { TERM: 'xterm' }, fakeTerminal(0));
    const t = out.task('fetching');
    t.update(() => '1.0 MiB');
    t.succeed('fetched');
    expect(written.join('')).toBe('\x1b[32m✓\x1b[0m fetched\n');
  });

  it('FORCE_COLOR decides colour before the terminal test; NO_COLOR and TERM=dumb turn it off otherwise', () => {
    expect(shouldColor(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(shouldColor(false, { FORCE_COLOR: '' })).toBe(true);
    expect(shouldColor(true, { FORCE_COLOR: '0' })).toBe(false);
    expect(shouldColor(true, {})).toBe(true);
    expect(shouldColor(true, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor(false, {})).toBe(false);
    capture();
    new Output({ json: false, quiet: false, verbose: false }, { FORCE_COLOR: '1' }, { isTTY: false } as unknown as NodeJS.WriteStream).warn('w');
    expect(written.join('')).toBe('\x1b[33mwarning:\x1b[0m w\n');
  });
});
