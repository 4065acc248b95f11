// Check: the prefix's receipt matches the files on disk (changed and missing files are named).
import * as path from 'node:path';
import { hasOwnMarkers } from '../../prefix/prefix-state.js';
import { RECEIPT_NAME } from '../../records/receipt.js';
import { diskReader, verifyPrefix } from '../../prefix/verify.js';
import type { Check } from '../types.js';
import { icdProblem, prefixIcd } from '../../roles/opencl-icd.js';
import { ICD_FILE } from '../../base/safe-read.js';
import { belowFloorSentence } from '../../hints/index.js';
import { detectShell, userShell } from '../../shells/index.js';
import { reachFix, setupHint } from './shared.js';

function listSome(paths: string[], max = 8): string {
  return paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`;
}

type Outcome = Awaited<ReturnType<Check['run']>>;

/**
 * What a killed run left beside the prefix: the previous prefix moved aside mid-swap (`<prefix>.xpu-setup-old-*`) and
 * staging trees (`.<name>.xpu-setup-staging-*`). The next setup run puts the first back or removes both; said here.
 */
async function leftovers(ctx: Parameters<Check['run']>[0], outcome: Outcome): Promise<Outcome> {
  const parent = path.dirname(ctx.prefix);
  const base = path.basename(ctx.prefix);
  const names = (await ctx.deps.readDir(parent)) ?? [];
  const backups = names.filter((n) => n.startsWith(`${base}.xpu-setup-old-`)).map((n) => path.join(parent, n));
  const staging = names.filter((n) => n.startsWith(`.${base}.xpu-setup-staging-`)).map((n) => path.join(parent, n));
  if (!backups.length && !staging.length) return outcome;
  const said: string[] = [];
  if (backups.length) said.push(`a run killed while swapping left ${backups.length === 1 ? 'the previous prefix' : 'backups'} beside it: ${backups.join(', ')}`);
  if (staging.length) said.push(`a killed run left its staging tree: ${staging.join(', ')}`);
  const restore = backups.length === 1 && outcome.status === 'fail' && !outcome.details?.checked;
  return {
    ...outcome,
    status: outcome.status === 'ok' || outcome.status === 'skip' ? 'warn' : outcome.status,
    message: `${outcome.message}; ${said.join('; ')}`,
    fix: restore || !outcome.fix ? `run ${await setupHint(ctx)}: it ${restore ? 'puts the previous prefix back' : 'removes what a killed run left'} before anything else` : outcome.fix,
    details: { ...(outcome.details ?? {}), backups, staging },
  };
}

export const prefixCheck: Check = {
  id: 'prefix',
  title: 'Prefix receipt',
  group: 'toolchain',
  timeoutMs: 60_000,
  async run(ctx) {
    return leftovers(ctx, await receiptOutcome(ctx));
  },
};

/** The prefix's own .icd file, when it names anything but the prefix's ICD library (a receipt that matches says nothing of what a file names). */
async function icdOutcome(ctx: Parameters<Check['run']>[0]): Promise<string | undefined> {
  const { file, library } = prefixIcd(ctx.prefix, path.join);
  const text = await ctx.deps.readFile(file, ICD_FILE);
  if (text === undefined) return undefined;
  const problem = icdProblem(text, library);
  return problem && `${file}: ${problem}`;
}

async function receiptOutcome(ctx: Parameters<Check['run']>[0]): Promise<Outcome> {
  const { receipt, error } = await ctx.facts.receipt();
  const file = path.join(ctx.prefix, RECEIPT_NAME);
  if (error) {
    // A damaged receipt beside xpu-setup's own env files: setup reinstalls the prefix whole.
    if (await hasOwnMarkers(ctx.prefix)) {
      return { status: 'fail', message: `${file} cannot be read: ${error}`, fix: `run ${await setupHint(ctx)}: the prefix carries xpu-setup's own env files, so setup reinstalls it whole` };
    }
    // Otherwise setup refuses it (it may not be xpu-setup's): moving it aside is the change.
    const aside = `${ctx.prefix}.damaged`;
    const move = userShell(detectShell(ctx.deps)).move(ctx.prefix, aside);
    return {
      status: 'fail',
      message: `${file} cannot be read: ${error}`,
      fix: `setup does not replace a prefix whose receipt it cannot read: move it aside (\`${move}\`), then run ${await setupHint(ctx)}`,
    };
  }
  if (!receipt) {
    if (!ctx.prefixExplicit) return { status: 'skip', message: `nothing installed in the default prefix ${ctx.prefix}` };
    if (!(await ctx.deps.exists(ctx.prefix))) {
      return { status: 'fail', message: `${ctx.prefix} does not exist, so nothing is installed there`, fix: `run ${await setupHint(ctx)} to install into it` };
    }
    // Setup installs into an empty directory, never over other files.
    const empty = ((await ctx.deps.readDir(ctx.prefix)) ?? []).length === 0;
    return {
      status: 'fail',
      message: `${ctx.prefix} has no ${RECEIPT_NAME}: not an xpu-setup prefix, or the install did not finish`,
      fix: empty ? `run ${await setupHint(ctx)}` : 'setup installs only into an empty or new directory: name another one with --prefix, or empty this one',
    };
  }
  // Size and mtime as the receipt records them, as setup's own re-run judges a prefix: hashing every file of a prefix
  // that holds a 250 MB runtime takes seconds. A file whose mtime moved is still hashed; `xpu-setup --verify` hashes all.
  const found = await verifyPrefix(ctx.prefix, receipt, { sha256: ctx.deps.sha256, readLink: ctx.deps.readLink, stat: diskReader.stat, realpath: diskReader.realpath });
  const pick = (kind: 'missing' | 'changed' | 'outside') => found.filter((p) => p.problem === kind).map((p) => p.path);
  const diff = { checked: receipt.files.length, changed: pick('changed'), missing: pick('missing'), outside: pick('outside') };
  const components = receipt.components.map((c) => `${c.name} ${c.version} from ${c.source}`);
  const details: Record<string, unknown> = { receipt: file, components, ...diff };
  const problems: string[] = [];
  if (diff.changed.length) problems.push(`changed: ${listSome(diff.changed)}`);
  if (diff.missing.length) problems.push(`missing: ${listSome(diff.missing)}`);
  if (diff.outside.length) problems.push(`named outside the prefix, not read: ${listSome(diff.outside)}`);
  const icd = await icdOutcome(ctx);
  if (icd) problems.push(icd);
  if (problems.length) {
    return {
      status: 'fail',
      message: found.length ? `${found.length} of ${diff.checked} files differ from the receipt; ${problems.join('; ')}` : problems.join('; '),
      fix: `run ${await setupHint(ctx)} to restore them`,
      details,
    };
  }
  if (path.resolve(receipt.prefix) !== path.resolve(ctx.prefix)) {
    return {
      status: 'warn',
      message: `files match, but the prefix was installed at ${receipt.prefix} and moved: its env files still point there`,
      fix: `run ${await setupHint(ctx)} to rewrite them`,
      details,
    };
  }
  const below = receipt.components.filter((c) => c.belowFloor);
  if (below.length) {
    return {
      status: 'warn',
      // The sources not reached are the fix's to name.
      message: `${diff.checked} files match the receipt, but ${below.map((c) => belowFloorSentence({ ...c, belowFloor: { ...c.belowFloor!, unreached: [] } })).join('; ')}`,
      fix: await reachFix(ctx),
      details: { ...details, belowFloor: below.map((c) => ({ component: c.name, version: c.version, ...c.belowFloor })) },
    };
  }
  return { status: 'ok', message: `${diff.checked} files match the receipt: ${components.join('; ')}`, details };
}
