// Progress and messages from core code go through a Reporter; only the CLI decides how they are drawn.

export interface Task {
  /** Replace the task's status text (e.g. bytes done); called for every chunk, so the text is made only when shown. */
  update(text: () => string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
}

export interface Reporter {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
  task(title: string): Task;
}

/** Says nothing: for tests and for library use. */
export const silentReporter: Reporter = {
  info() {},
  warn() {},
  debug() {},
  task() {
    return { update() {}, succeed() {}, fail() {} };
  },
};
