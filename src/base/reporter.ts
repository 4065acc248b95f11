// Progress and messages from core code go through a Reporter; only the CLI decides how they are drawn.

export interface Task {
  /**
   * Replace the task's status text (e.g. bytes done); called for every chunk, so the text is made only when shown.
   * `fraction`, when the whole is known, is how much of it is done (0-1): a terminal draws it as a bar.
   */
  update(text: () => string, fraction?: () => number | undefined): void;
  succeed(text?: string): void;
  fail(text?: string): void;
}

export interface Reporter {
  info(message: string): void;
  /** A fallback taken or a fact worth a line (a missing file read another way): said once, labelled, never a warning. */
  note(message: string): void;
  /** A warning, short; `detail` is its long form (what it means, the fix), shown with --verbose. */
  warn(message: string, detail?: string): void;
  debug(message: string): void;
  task(title: string): Task;
}

/** Says nothing: for tests and for library use. */
export const silentReporter: Reporter = {
  info() {},
  note() {},
  warn() {},
  debug() {},
  task() {
    return { update() {}, succeed() {}, fail() {} };
  },
};
