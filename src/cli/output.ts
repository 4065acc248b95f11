// The CLI's rendering: human text on stderr (ora spinners on a TTY only), one JSON document on stdout with --json.
import type { Ora } from 'ora';
import { isXpuError, newCauses } from '../base/errors.js';
import { wrapText } from '../base/wrap.js';
import { MARK_FAIL, MARK_OK, shouldColor } from '../doctor/render.js';
import type { Reporter, Task } from '../base/reporter.js';

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  /** Where warnings go instead of a `warning:` line (the action: `::warning::` annotations); each still once a run. */
  annotate?: (message: string) => void;
}

/** The version of every command's `--json` document that has no schema of its own; raised when a field changes meaning. */
export const JSON_SCHEMA = 1;

export class Output implements Reporter {
  readonly opts: OutputOptions;
  private readonly fancy: boolean;
  /** ora, loaded by loadSpinners() and only for a terminal: pipes, CI and --quiet never pay for it. */
  private spinners: typeof import('ora').default | undefined;
  private readonly color: boolean;
  /** Warnings and notes already said this run: each is said once, however many stages come upon it. */
  private readonly said = new Set<string>();
  /** The spinner of what the run waits for (waiting()), cleared before anything else is written. */
  private waitSpinner: Ora | undefined;

  constructor(opts: OutputOptions, env: Record<string, string | undefined> = process.env, stream: NodeJS.WriteStream = process.stderr) {
    this.opts = opts;
    const ci = !!env.CI && env.CI !== 'false' && env.CI !== '0';
    // A terminal that reports 0 columns (`script`, some CI pseudo-terminals) cannot hold a redrawn line: ora would
    // write its frames without end. Treat it as no terminal.
    this.fancy = !!stream.isTTY && (stream.columns ?? 0) > 0 && !ci && !opts.quiet;
    this.color = shouldColor(stream.isTTY, env);
  }

  /** Loads the spinner library when this output will draw spinners; call before the first task(). */
  async loadSpinners(): Promise<void> {
    if (this.fancy && !this.spinners) this.spinners = (await import('ora')).default;
  }

  /** On a terminal without --verbose: one line per phase, the plan as one line, details left to --verbose. */
  get compact(): boolean {
    return this.fancy && !this.opts.verbose;
  }

  /** Human text, always on stderr so stdout stays machine-readable. */
  line(text = ''): void {
    this.clearWait();
    if (!this.opts.quiet) process.stderr.write(this.fit(text) + '\n');
  }

  /** Outside --verbose, no line longer than a log viewer shows whole. */
  private fit(text: string): string {
    return this.opts.verbose ? text : wrapText(text);
  }

  /**
   * A spinner naming what the run waits for (reading indexes, a lock), on a terminal only; it disappears when done, or
   * when anything else is written. Elsewhere nothing: plain output has no frames to redraw.
   */
  waiting(title: string): { done(): void } {
    this.clearWait();
    if (!this.fancy || !this.spinners) return { done() {} };
    const spinner = this.spinners({ text: title, stream: process.stderr, discardStdin: false }).start();
    this.waitSpinner = spinner;
    return { done: () => { if (this.waitSpinner === spinner) this.clearWait(); } };
  }

  /** `work`, with a spinner naming it on a terminal while it runs. */
  async during<T>(title: string, work: () => Promise<T>): Promise<T> {
    const w = this.waiting(title);
    try {
      return await work();
    } finally {
      w.done();
    }
  }

  private clearWait(): void {
    this.waitSpinner?.stop();
    this.waitSpinner = undefined;
  }

  /** True the first time a message is said this run. */
  private first(kind: string, message: string): boolean {
    const key = `${kind}\0${message}`;
    if (this.said.has(key)) return false;
    this.said.add(key);
    return true;
  }

  /** The command's main result for a person; goes to stdout unless --json. */
  result(text: string): void {
    if (this.opts.json) process.stderr.write(text + '\n');
    else process.stdout.write(text + '\n');
  }

  /** One JSON document on stdout; one without a `schema` of its own (plan, lock and doctor have theirs) gets this one. */
  json(doc: object): void {
    process.stdout.write(JSON.stringify('schema' in doc ? doc : { schema: JSON_SCHEMA, ...doc }, null, 2) + '\n');
  }

  paint(code: number, text: string): string {
    return this.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }

  info(message: string): void {
    this.line(message);
  }

  note(message: string): void {
    if (this.opts.quiet || !this.first('note', message)) return;
    this.clearWait();
    process.stderr.write(`${this.fit(`${this.paint(2, 'note:')} ${message}`)}\n`);
  }

  warn(message: string, detail?: string): void {
    if ((this.opts.quiet && !this.opts.verbose) || !this.first('warn', message)) return;
    this.clearWait();
    if (this.opts.annotate) this.opts.annotate(message);
    else process.stderr.write(`${this.fit(`${this.paint(33, 'warning:')} ${message}`)}\n`);
    if (detail && this.opts.verbose) process.stderr.write(`  ${detail}\n`);
  }

  debug(message: string): void {
    if (!this.opts.verbose) return;
    this.clearWait();
    process.stderr.write(`${this.paint(2, 'debug:')} ${message}\n`);
  }

  task(title: string): Task {
    this.clearWait();
    if (this.fancy && this.spinners) {
      const spinner: Ora = this.spinners({ text: title, stream: process.stderr, discardStdin: false }).start();
      let shown = 0;
      return {
        // About as often as the spinner draws.
        update: (text, fraction) => {
          const now = Date.now();
          if (now - shown >= 80) {
            shown = now;
            const f = fraction?.();
            spinner.text = `${title} ${f === undefined ? '' : `${bar(f)} `}${text()}`;
          }
        },
        // The same marks as the plain lines and the doctor, not ora's own.
        succeed: (text) => { spinner.stopAndPersist({ symbol: this.paint(32, MARK_OK), text: text ?? title }); },
        fail: (text) => { spinner.stopAndPersist({ symbol: this.paint(31, MARK_FAIL), text: text ?? title }); },
      };
    }
    let lastUpdate = Date.now();
    return {
      // Plain mode (CI, pipes): a progress line only for work that takes long, at most one every 5 s.
      update: (text) => {
        const now = Date.now();
        if (now - lastUpdate > 5000) {
          lastUpdate = now;
          this.line(`  ${title} ${text()}`);
        }
      },
      succeed: (text) => this.line(`${this.paint(32, MARK_OK)} ${text ?? title}`),
      fail: (text) => this.line(`${this.paint(31, MARK_FAIL)} ${text ?? title}`),
    };
  }

  error(e: unknown): void {
    this.clearWait();
    if (this.opts.json) {
      this.json({ ok: false, error: errorToJson(e) });
    }
    const lines: string[] = [];
    if (isXpuError(e)) {
      lines.push(`${this.paint(31, 'error:')} ${e.message}`);
      for (const c of newCauses(e)) lines.push(`  caused by: ${c}`);
      for (const h of e.hints) lines.push(`  ${this.paint(36, 'hint:')} ${h}`);
    } else {
      lines.push(`${this.paint(31, 'internal error:')} ${(e as Error)?.stack ?? String(e)}`);
      lines.push('  hint: this is a bug in xpu-setup; please report it with the output of --verbose');
    }
    // Not wrapped: each hint (a URL and its sha256, a command) is one fact, to be found whole in a log.
    process.stderr.write(lines.join('\n') + '\n');
  }
}

/** A progress bar of 24 cells for a fraction done (0-1). */
export function bar(fraction: number): string {
  const cells = 24;
  const full = Math.max(0, Math.min(cells, Math.round(fraction * cells)));
  return `[${'█'.repeat(full)}${'░'.repeat(cells - full)}]`;
}

export function errorToJson(e: unknown): Record<string, unknown> {
  if (isXpuError(e)) return e.toJSON();
  return { code: 'INTERNAL', message: (e as Error)?.message ?? String(e), hints: [], details: {}, cause: [] };
}
