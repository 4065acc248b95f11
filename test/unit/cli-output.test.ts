// How the CLI draws: no spinner on a 0-column terminal, FORCE_COLOR honoured, one check mark everywhere.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bar, Output } from '../../src/cli/output.js';
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

  it('a note is labelled note:, never a warning; each note and warning is said once a run', () => {
    capture();
    const out = new Output({ json: false, quiet: false, verbose: false }, {}, { isTTY: false } as unknown as NodeJS.WriteStream);
    out.note('repodata.json.zst is not there (HTTP 404); reading repodata.json instead');
    out.note('repodata.json.zst is not there (HTTP 404); reading repodata.json instead');
    out.warn('level-zero 1.8.12 is below the recommended level-zero>=1.9', 'the long form');
    out.warn('level-zero 1.8.12 is below the recommended level-zero>=1.9', 'the long form');
    expect(written.join('')).toBe('note: repodata.json.zst is not there (HTTP 404); reading repodata.json instead\nwarning: level-zero 1.8.12 is below the recommended level-zero>=1.9\n');
  });

  it('a warning\'s long form is shown with --verbose; --quiet says neither notes nor warnings', () => {
    capture();
    new Output({ json: false, quiet: false, verbose: true }, {}, { isTTY: false } as unknown as NodeJS.WriteStream).warn('short', 'long\n  and more');
    expect(written.join('')).toBe('warning: short\n  long\n  and more\n');
    capture();
    const quiet = new Output({ json: false, quiet: true, verbose: false }, {}, { isTTY: false } as unknown as NodeJS.WriteStream);
    quiet.note('n');
    quiet.warn('w');
    expect(written).toEqual([]);
  });

  it('a terminal without --verbose is compact; a pipe or --verbose is not; waiting() draws nothing off a terminal', () => {
    expect(new Output({ json: false, quiet: false, verbose: false }, {}, fakeTerminal(80)).compact).toBe(true);
    expect(new Output({ json: false, quiet: false, verbose: true }, {}, fakeTerminal(80)).compact).toBe(false);
    expect(new Output({ json: false, quiet: false, verbose: false }, {}, fakeTerminal(0)).compact).toBe(false);
    capture();
    new Output({ json: false, quiet: false, verbose: false }, {}, fakeTerminal(0)).waiting('plan: reading the package indexes').done();
    expect(written).toEqual([]);
  });

  it('draws a progress bar of the fraction done', () => {
    expect(bar(0)).toBe(`[${'░'.repeat(24)}]`);
    expect(bar(0.5)).toBe(`[${'█'.repeat(12)}${'░'.repeat(12)}]`);
    expect(bar(2)).toBe(`[${'█'.repeat(24)}]`);
  });
});
