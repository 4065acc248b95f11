// `xpu-setup` / `xpu-setup setup`: the whole job, then a short account of what was done and how to use it.
import * as path from 'node:path';
import { planSetup } from '../../pipeline/plan.js';
import { openRunIndex, type RunIndex } from '../../pipeline/run-index.js';
import { assertInstallable } from '../../pipeline/settle.js';
import { runSetup, type SetupResult } from '../../pipeline/setup.js';
import { installedFor, readPrefixState } from '../../prefix/prefix-state.js';
import type { Deps } from '../../base/deps.js';
import type { BelowFloor } from '../../records/plan.js';
import { belowFloorSentence, belowFloorShort, envCommandLine, envFilesLine, newerFix, selfCommand } from '../../hints/index.js';
import { detectShell } from '../../shells/index.js';
import type { Command } from '../command.js';
import type { CommandContext } from '../types.js';
import type { Output } from '../output.js';
import { renderPlan, renderPlanLine } from '../render-plan.js';
import { parseSetupOptions } from '../setup-options.js';
import { recordQuick, type QuickRecorder } from '../../cache/quick-answers.js';
import type { SetupOptions } from '../../pipeline/options.js';
import { RECEIPT_NAME } from '../../records/receipt.js';
import { PLANS_DIR, PLAN_REUSE_MS } from '../../plan/recent.js';
import { VERDICTS_FILE } from '../../cache/verdicts.js';
import { BUILTIN_MANIFESTS } from '../../manifest/load.js';

async function summary(r: SetupResult, out: Output, seconds: string, deps: Deps): Promise<void> {
  for (const n of r.install.notes) out.warn(n);
  for (const n of r.plan.torch?.notes ?? []) out.line(`--match-torch: ${n}`);
  // The plan's heading already says it came from the receipt (`from the plan recorded in ...: no index asked`).
  if (!r.install.changed) {
    const what = `${r.install.receipt.files.length} files match the receipt`;
    if (r.install.requestUpdated) out.line(`${r.plan.prefix}: installed files unchanged (${what}); the receipt now records this request`);
    else out.line(`${r.plan.prefix} is up to date (${what})`);
  } else if (r.install.envChanged) {
    out.line(`${r.plan.prefix}: env files rewritten with new values`);
  }
  const below = await belowFloor(r, deps);
  for (const c of r.plan.components) {
    // A component below its floor came from a fallback too: its warning says both.
    if (c.fallbackFrom && !below.some((b) => b.component === c.name)) out.warn(`${c.name} ${c.version} came from a fallback source (${c.source} ${c.origin}); recorded in the receipt`);
  }
  for (const b of below) out.warn(b.short, b.message);
  if (r.verifySkipped) out.line(`not verified: ${r.verifySkipped}`);
  const v = r.verify;
  if (v?.probe.ok) {
    for (const d of v.probe.value.devices) out.line(`device: ${d.name}; architecture ${d.arch.name}`);
  }
  if (v?.smoke.ok) {
    const s = v.smoke.value;
    out.line(`smoke: ${s.kernel} computed and checked ${s.checked} values on ${s.device}; first launch ${s.timings.firstLaunchMs.toFixed(2)} ms, steady ${s.timings.steadyMedianMs.toFixed(3)} ms`);
  }
  if (r.refdriver) out.line(`the active Level Zero device is the CPU reference driver ${r.refdriver.output}, not an Intel GPU`);
  out.line(`done in ${seconds} s.${await useHint(r, deps)}`);
}

/**
 * Components installed below their recommended floor (from the receipt, so a re-run says it again), with what would get
 * a newer one on this machine: `short` is the warning, `message` its long form (--verbose, --json).
 */
async function belowFloor(r: SetupResult, deps: Deps): Promise<(BelowFloor & { component: string; version: string; fix: string; short: string; message: string })[]> {
  const receipt = r.install.receipt;
  const below = receipt.components.filter((c) => c.belowFloor);
  if (!below.length) return [];
  const self = await selfCommand(deps);
  return below.map((c) => {
    const fix = newerFix(self, r.plan.prefix, receipt, c.belowFloor!.unreached, detectShell(deps));
    return { component: c.name, version: c.version, ...c.belowFloor!, fix, short: belowFloorShort(c), message: belowFloorSentence(c, fix) };
  });
}

/** How to take the prefix on in the user's shell, for this machine's prefixes only; both forms work when pasted. */
async function useHint(r: SetupResult, deps: Deps): Promise<string> {
  if (!r.plan.host.native) return ` Copy ${r.plan.prefix} to a ${r.plan.platform} machine and load its env file there.`;
  const file = await envFilesLine(deps, r.plan.prefix);
  const cmd = envCommandLine(await selfCommand(deps), r.plan.prefix, detectShell(deps));
  return file ? ` To use it: ${file}   (or: ${cmd})` : ` To use it: ${cmd}`;
}

/**
 * What a setup run reads outside Deps, looked at for a quick answer's record before it is read: the receipt, the
 * cache's plans (a directory: a plan written since moves its time) and verdicts, the manifests directory and its files.
 */
function readOutsideDeps(opts: SetupOptions): { files: string[]; dirs: string[] } {
  return {
    files: [path.join(opts.plan.prefix, RECEIPT_NAME), path.join(opts.plan.cacheDir, PLANS_DIR), path.join(opts.plan.cacheDir, VERDICTS_FILE)],
    dirs: [opts.manifestsDir ?? BUILTIN_MANIFESTS],
  };
}

export const setupCommand: Command = {
  name: 'setup',
  async run(ctx) {
    const opts = parseSetupOptions(ctx.values, ctx.deps);
    // A run from bin/ that may change nothing is recorded: if it does, the same command is answered from the record.
    const recording = ctx.quick && !ctx.values['dry-run'] && !ctx.out.opts.verbose && !opts.rehash ? recordQuick(ctx.quick, ctx.deps, readOutsideDeps(opts)) : undefined;
    try {
      return await setup(ctx, opts, recording);
    } finally {
      recording?.stop();
    }
  },
};

/** The setup run itself; `recording` notes what it reads (through the Deps it hands on) and keeps a no-op's answer. */
async function setup({ deps: given, out, values }: CommandContext, opts: SetupOptions, recording: QuickRecorder | undefined): Promise<number> {
  const deps = recording?.deps ?? given;
  const planStart = performance.now();
  // Read once, before planning: if another run changes the prefix while this one waits for the lock, it plans again.
  const prefix = await readPrefixState(opts.plan.prefix);
  const opened = openRunIndex(opts, deps, out);
  // Index answers come over HTTP, which the record cannot look at again: a run that opens its indexes keeps none.
  const index: RunIndex = recording ? { policy: opened.policy, gateway: () => (recording.spoil(), opened.gateway()) } : opened;
  const plan = await out.during('plan: reading the package indexes', () => planSetup(opts, deps, out, { recent: true, prefix, index }));
  out.debug(`plan: ${Math.round(performance.now() - planStart)} ms (${Math.round(process.uptime() * 1000)} ms since start)`);
  if (values['dry-run']) {
    await assertInstallable(plan);
    if (out.opts.json) out.json({ ok: true, dryRun: true, plan });
    else out.result(renderPlan(plan, { full: true }));
    return 0;
  }
  // Installing, the plan is a heading: one line on a terminal; else each archive on one line, its URL and whole
  // sha256 with --verbose.
  // A plan the prefix already holds is one line too, outside --verbose: a re-run that changes nothing stays short.
  const held = installedFor(prefix, plan.platform)?.planKey === plan.planKey;
  if (!out.opts.json) out.line(out.compact || (held && !out.opts.verbose) ? renderPlanLine(plan) : renderPlan(plan, { full: out.opts.verbose }));
  const r = await runSetup(plan, opts, deps, out, index, { prefix, replan: (now) => planSetup(opts, deps, out, { recent: true, prefix: now, index }) });
  // From the process's start: loading the modules and reading the indexes are part of the wait too.
  const seconds = process.uptime().toFixed(1);
  await summary(r, out, seconds, deps);
  if (out.opts.json) {
    out.json({
      ok: true,
      prefix: r.install.prefix,
      changed: r.install.changed,
      seconds: Number(seconds),
      components: r.install.receipt.components,
      notes: r.install.notes,
      refdriver: r.refdriver?.output,
      verify: r.verify,
      verifySkipped: r.verifySkipped,
      env: r.install.receipt.extraEnv ?? {},
      belowFloor: await belowFloor(r, deps),
      request: r.plan.request,
      from: r.plan.from,
      plan: r.plan,
    });
  }
  // Kept only for a run that changed, built and ran nothing (its verify answer skipped, or the receipt's given again),
  // from a plan it reused (it asked no index).
  const noOp = !r.install.changed && !r.install.requestUpdated && (r.verifySkipped !== undefined || r.replayLooked !== undefined) && !r.refdriver;
  if (noOp && r.plan.reusedFrom) {
    const files = r.install.receipt.files;
    await recording?.keep({ prefix: r.plan.prefix, planMadeAt: r.plan.reusedFrom, reuseMs: PLAN_REUSE_MS, files, looked: r.replayLooked, elapsed: seconds });
  }
  return 0;
}

export const run = setupCommand.run;
