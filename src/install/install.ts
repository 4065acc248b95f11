// Install stage: extract verified archives into a staging directory beside the prefix, finish it, then swap it in.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../errors.js';
import type { FetchedArchive } from '../fetch/fetch.js';
import type { InstallPlan } from '../plan/plan.js';
import type { Reporter } from '../reporter.js';
import { VERSION } from '../version.js';
import { ENV_FILES, envVars, renderEnv, SHELLS } from './env.js';
import { levelZeroCMake, writePkgConfig } from './pkgconfig.js';
import { RECEIPT_NAME, RECEIPT_SCHEMA, readReceipt, type Receipt, type ReceiptComponent } from './receipt.js';
import { Staging } from './staging.js';
import { diskReader, verifyPrefix, type VerifyPrefixOptions } from './verify.js';

export interface InstallResult {
  prefix: string;
  changed: boolean;
  receipt: Receipt;
  notes: string[];
}

/** True when the prefix already holds exactly this plan, unchanged on disk (by size and mtime, or every byte with `rehash`). */
export async function isUpToDate(plan: InstallPlan, opts: VerifyPrefixOptions = {}): Promise<Receipt | undefined> {
  const receipt = await readReceipt(plan.prefix).catch(() => undefined);
  if (!receipt || receipt.planKey !== plan.planKey) return undefined;
  return (await verifyPrefix(plan.prefix, receipt, diskReader, opts)).length === 0 ? receipt : undefined;
}

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await fs.readdir(dir)).length === 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw e;
  }
}

/** Writes the env files of `receipt` into dir (staging or the live prefix), each via a temp file + rename. */
export async function writeEnvFiles(dir: string, receipt: Receipt): Promise<void> {
  const vars = envVars(receipt.prefix, receipt.platform, receipt.extraEnv ?? {});
  for (const shell of SHELLS) {
    const file = path.join(dir, ENV_FILES[shell]);
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(tmp, renderEnv(vars, shell, receipt.platform));
    await fs.rename(tmp, file);
  }
}

export async function writeReceipt(dir: string, receipt: Receipt): Promise<void> {
  const file = path.join(dir, RECEIPT_NAME);
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(receipt, null, 2) + '\n');
  await fs.rename(tmp, file);
}

/** Replaces `prefix` with `staging`: the old tree is moved aside first and removed only after the new one is in place. */
async function swapIn(staging: string, prefix: string): Promise<void> {
  const old = `${prefix}.xpu-setup-old-${randomBytes(4).toString('hex')}`;
  let moved = false;
  try {
    await fs.rename(prefix, old);
    moved = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  try {
    await fs.rename(staging, prefix);
  } catch (e) {
    if (moved) await fs.rename(old, prefix).catch(() => undefined);
    throw e;
  }
  if (moved) await fs.rm(old, { recursive: true, force: true });
}

/**
 * A run killed between the two renames of swapIn leaves only `<prefix>.xpu-setup-old-*`: put it back. One killed
 * after the swap leaves the old tree beside a complete prefix: remove it.
 */
async function recoverInterruptedSwap(prefix: string): Promise<void> {
  const parent = path.dirname(prefix);
  const base = path.basename(prefix);
  const leftovers = (await fs.readdir(parent).catch(() => [] as string[])).filter((n) => n.startsWith(`${base}.xpu-setup-old-`));
  if (!leftovers.length) return;
  if (leftovers.length === 1 && (await isEmptyOrMissing(prefix))) {
    await fs.rm(prefix, { recursive: true, force: true });
    await fs.rename(path.join(parent, leftovers[0]!), prefix);
    return;
  }
  for (const n of leftovers) await fs.rm(path.join(parent, n), { recursive: true, force: true });
}

/**
 * Staging trees of runs that were killed (Ctrl-C, kill -9, power loss) never reached their cleanup. The caller
 * holds the prefix lock, so no live run is using any of them.
 */
async function removeDeadStaging(prefix: string): Promise<void> {
  const parent = path.dirname(prefix);
  const stem = `.${path.basename(prefix)}.xpu-setup-staging-`;
  for (const n of await fs.readdir(parent).catch(() => [] as string[])) {
    if (n.startsWith(stem)) await fs.rm(path.join(parent, n), { recursive: true, force: true });
  }
}

/** Refuses, before anything is fetched, a prefix that holds files xpu-setup did not put there. */
export async function checkPrefixOwnership(prefix: string): Promise<void> {
  await removeDeadStaging(prefix);
  await recoverInterruptedSwap(prefix);
  const previous = await readReceipt(prefix).catch(() => undefined);
  if (!previous && !(await isEmptyOrMissing(prefix))) {
    throw new XpuError('INSTALL', `${prefix} exists, is not empty, and was not made by xpu-setup`, {
      details: { prefix },
      hints: ['xpu-setup owns its prefix and replaces it whole: choose an empty or new directory with --prefix'],
    });
  }
}

export async function installPlan(
  plan: InstallPlan,
  fetched: FetchedArchive[],
  reporter: Reporter,
  extraEnv: Record<string, string> = {},
): Promise<InstallResult> {
  const prefix = path.resolve(plan.prefix);
  await checkPrefixOwnership(prefix);
  const parent = path.dirname(prefix);
  await fs.mkdir(parent, { recursive: true });
  const stagingDir = await fs.mkdtemp(path.join(parent, `.${path.basename(prefix)}.xpu-setup-staging-`));
  const staging = new Staging(stagingDir);
  const notes: string[] = [];
  const task = reporter.task('installing');
  try {
    for (const f of fetched) {
      const label = `${f.archive.filename} (${f.archive.url})`;
      const n = await staging.extract(f.archive.format, f.file.path, label, f.archive.map);
      reporter.debug(`${f.archive.filename}: ${n} members installed`);
    }
    const components: ReceiptComponent[] = [];
    for (const c of plan.components.filter((x) => x.status === 'planned')) {
      for (const p of c.provides) {
        if (await staging.has(p.path)) continue;
        const why = p.missing ?? `the ${c.source} package does not contain it`;
        if (p.required) {
          throw new XpuError('INSTALL', `${c.name} ${c.version} from ${c.origin} lacks ${p.path}`, {
            details: { component: c.name, path: p.path },
            hints: [why, 'choose another source with --source, or report the package layout change'],
          });
        }
        notes.push(`${c.name}: no ${p.path}: ${why}`);
      }
      components.push({ name: c.name, version: c.version!, source: `${c.source} ${c.origin}`, notes: c.notes });
    }
    const l0 = plan.components.find((c) => c.zeLoader && c.status === 'planned');
    if (l0) {
      await writePkgConfig(staging, prefix, l0.version!);
      for (const [rel, text] of Object.entries(levelZeroCMake(plan.platform === 'win-x64', l0.version!))) await staging.writeText(rel, text);
    }
    const receipt: Receipt = {
      schema: RECEIPT_SCHEMA,
      tool: { name: 'xpu-setup', version: VERSION },
      platform: plan.platform,
      prefix,
      installedAt: new Date().toISOString(),
      planKey: plan.planKey,
      components,
      archives: fetched.map((f) => ({
        component: f.component,
        source: plan.components.find((c) => c.name === f.component)?.source ?? '',
        package: f.archive.package,
        version: f.archive.version,
        url: f.archive.url,
        sha256: f.file.sha256,
        size: f.file.size,
      })),
      files: [...staging.files.values()].sort((a, b) => a.path.localeCompare(b.path)),
      extraEnv: Object.keys(extraEnv).length ? extraEnv : undefined,
    };
    await writeEnvFiles(stagingDir, receipt);
    await writeReceipt(stagingDir, receipt);
    // mkdtemp makes the directory private; a prefix is read by compilers and loaders of any user.
    await fs.chmod(stagingDir, 0o755);
    await swapIn(stagingDir, prefix);
    task.succeed(`installed ${receipt.files.length} files into ${prefix}`);
    return { prefix, changed: true, receipt, notes };
  } catch (e) {
    task.fail('install failed; the prefix was left as it was');
    await fs.rm(stagingDir, { recursive: true, force: true });
    if (e instanceof XpuError) throw e;
    throw new XpuError('INSTALL', `cannot install into ${prefix}`, {
      cause: e,
      details: { prefix, staging: stagingDir },
      hints: ['check free space and permissions of the prefix\'s parent directory; the prefix was not changed'],
    });
  }
}
