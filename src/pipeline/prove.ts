// The proof as a user's program meets the stack: build, probe, smoke and ocloc in a child process started with exactly
// the environment the prefix's env file gives. The dynamic linker reads the library path once, when a process starts,
// so only a new process sees the prefix's driver, IGC, gmmlib and libocloc the way `. env.sh` makes them visible.
import type { Deps } from '../base/deps.js';
import { XpuError, type ErrorCode } from '../base/errors.js';
import type { Reporter, Task } from '../base/reporter.js';
import { sourcedEnv } from '../shells/env.js';
import { ENV_FILES } from '../shells/index.js';
import type { EnvVar } from '../shells/shell.js';
import { cliEntry } from '../package-dir.js';
import { nodeLayout } from '../platform/index.js';
import type { VerifyOptions, VerifyResult } from './probe.js';

/** The name of the internal command the child runs; it is in no help, completion or docs. */
export const PROVE_COMMAND = 'prove';

/** One line the child writes on stdout: a word of its reporter, or its answer. */
type ProofLine =
  | { say: 'info' | 'note' | 'debug'; message: string }
  | { say: 'warn'; message: string; detail?: string }
  | { task: number; title?: string; succeed?: string | null; fail?: string | null }
  | { result: VerifyResult }
  | { error: Record<string, unknown> };

/** The child's reporter: every word a JSON line, replayed by the parent's reporter in order. */
export function lineReporter(write: (line: string) => void): Reporter {
  const put = (l: ProofLine) => write(`${JSON.stringify(l)}\n`);
  let tasks = 0;
  return {
    info: (message) => put({ say: 'info', message }),
    note: (message) => put({ say: 'note', message }),
    debug: (message) => put({ say: 'debug', message }),
    warn: (message, detail) => put({ say: 'warn', message, ...(detail === undefined ? {} : { detail }) }),
    task(title) {
      const id = ++tasks;
      put({ task: id, title });
      return { update() {}, succeed: (t) => put({ task: id, succeed: t ?? null }), fail: (t) => put({ task: id, fail: t ?? null }) };
    },
  };
}

/** The child's answer line. */
export function answerLine(answer: { result: VerifyResult } | { error: Record<string, unknown> }): string {
  return `${JSON.stringify(answer)}\n`;
}

/** The words the environment is named by in setup's, probe's and smoke's lines. */
export function envFileOf(prefix: string, deps: Pick<Deps, 'platform'>): string {
  const layout = nodeLayout(deps.platform);
  return layout.path.join(prefix, layout.caseInsensitiveEnv ? ENV_FILES.cmd : ENV_FILES.sh);
}

/** The environment a child gets: this one as the prefix's env file leaves it. */
export function childEnv(vars: EnvVar[], deps: Pick<Deps, 'platform' | 'env'>): Record<string, string> {
  return sourcedEnv(vars, nodeLayout(deps.platform), deps.env);
}

/**
 * Setup's proof in a child started with the prefix's environment (`vars`: what its env files are written from). The
 * child's words are replayed here; its error is raised here as the error it was.
 */
export async function proveInChild(prefix: string, vars: EnvVar[], opts: VerifyOptions): Promise<VerifyResult> {
  const { deps, reporter } = opts;
  reporter.info(`build${opts.smoke ? ', probe and smoke' : ' and probe'}: in a new process with the environment of ${envFileOf(prefix, deps)}, as a program started after loading it`);
  const args = [
    cliEntry(),
    PROVE_COMMAND,
    '--prefix',
    prefix,
    ...(opts.smoke ? [] : ['--no-smoke']),
    ...(opts.requireDevice ? ['--require-device'] : []),
    ...(deps.started ? [`--named-as=${deps.started.script ?? ''}`] : []),
  ];
  const r = await deps.exec(process.execPath, args, { env: childEnv(vars, deps), timeoutMs: 900_000 });
  let answer: VerifyResult | undefined;
  let error: Record<string, unknown> | undefined;
  const tasks = new Map<number, Task>();
  for (const text of r.stdout.split('\n')) {
    if (!text.startsWith('{')) continue;
    const l = JSON.parse(text) as ProofLine;
    if ('result' in l) answer = l.result;
    else if ('error' in l) error = l.error;
    else if ('say' in l) l.say === 'warn' ? reporter.warn(l.message, l.detail) : reporter[l.say](l.message);
    else if (l.title !== undefined) tasks.set(l.task, reporter.task(l.title));
    else if (l.succeed !== undefined) tasks.get(l.task)?.succeed(l.succeed ?? undefined);
    else if (l.fail !== undefined) tasks.get(l.task)?.fail(l.fail ?? undefined);
  }
  if (error) {
    throw new XpuError(String(error.code) as ErrorCode, String(error.message), {
      hints: Array.isArray(error.hints) ? error.hints.map(String) : [],
      details: typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : {},
    });
  }
  if (answer) return answer;
  const said = `${r.stderr}`.trim().split('\n').slice(-8).join('\n');
  throw new XpuError('RUNTIME', `the proof's process ${r.failedToStart ? `could not run: ${r.failedToStart}` : `exited ${r.exitCode} without an answer`}${said ? `\n${said}` : ''}`, {
    details: { prefix, exitCode: r.exitCode },
    hints: [r.failedToStart && /SIG|killed/.test(r.failedToStart) ? 'a library it loaded crashed it: run `xpu-setup probe` alone with ZE_ENABLE_LOADER_DEBUG_TRACE=1 to see which' : `run \`xpu-setup probe --prefix ${prefix} --verbose\` to see it alone`],
  });
}
