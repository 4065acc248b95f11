// Writes archive members into a fresh staging tree: never through a link, never twice, never past the size limits.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { XpuError } from '../base/errors.js';
import { readArchive, readArchiveLive, type ArchiveFormat, type ArchiveEntry, type ModeFix } from '../formats/index.js';
import type { LiveDownload } from '../fetch/live.js';
import { checkLinksInside, installMode, resolveInTree, safeLinkTarget, safePath, TargetNames } from '../formats/safe-path.js';
import type { MapRule } from '../manifest/schema.js';
import { fsWriteError } from '../base/fs-errors.js';
import { nodeLayout } from '../platform/index.js';
import { BatchedWriter, piecesOf, writeWhole } from '../base/pieces.js';
import type { ReceiptFile } from '../records/receipt.js';
import { mapMember } from './map.js';
import { DEFAULT_LIMITS, RATIO_FLOOR, type UnpackLimits } from '../records/limits.js';

const UNCHANGED = 'nothing from it was installed and the prefix was not changed';

function humanBytes(n: number): string {
  return n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : n >= 1024 ** 2 ? `${(n / 1024 ** 2).toFixed(1)} MiB` : `${n} bytes`;
}

/** Per-archive byte budget, shared by every member of that archive. */
class UnpackBudget {
  used = 0;
  constructor(readonly archive: string, readonly archiveSize: number, readonly limits: UnpackLimits) {}

  take(n: number): void {
    this.used += n;
    const { maxBytes, maxRatio } = this.limits;
    if (maxBytes > 0 && this.used > maxBytes) {
      throw new XpuError('TOO_LARGE', `${this.archive} unpacks to more than ${humanBytes(maxBytes)}, the limit per archive`, {
        details: { archive: this.archive, limit: maxBytes, archiveSize: this.archiveSize },
        hints: [`a package this large is unusual (an archive bomb?); ${UNCHANGED}`, 'if you trust it, raise the limit with --max-unpacked SIZE or XPU_SETUP_MAX_UNPACKED=SIZE (e.g. 8GiB; 0 = no limit)'],
      });
    }
    if (maxRatio > 0 && this.used > RATIO_FLOOR && this.used > maxRatio * this.archiveSize) {
      throw new XpuError('TOO_LARGE', `${this.archive} (${humanBytes(this.archiveSize)}) unpacks to more than ${maxRatio} times its size`, {
        details: { archive: this.archive, ratioLimit: maxRatio, archiveSize: this.archiveSize, unpackedSoFar: this.used },
        hints: [`real packages compress far less; this looks like an archive bomb; ${UNCHANGED}`, 'if you trust it, raise the limit with --max-ratio N or XPU_SETUP_MAX_RATIO=N (0 = no limit)'],
      });
    }
  }
}

/** An edit made as a file streams through it: each piece read gives what is written for it, then `flush` the rest. */
export interface StreamEdit {
  step(piece: Buffer): Buffer;
  flush(): Buffer;
  /** Whether anything written differs from what was read. */
  readonly changed: boolean;
}

/** A member an archive put in the staging tree: where it is, and what it links to when it is a symbolic link. */
export interface StagedMember {
  file: string;
  linkTo?: string;
}

export class Staging {
  /** Prefix-relative path -> what was written there. */
  readonly files = new Map<string, ReceiptFile>();
  /** Every member path written from an archive -> the archive it came from. */
  private readonly owners = new Map<string, string>();
  /** Directories made for members; a file or link may not take their place. */
  private readonly dirs = new Set<string>();
  /** Symlinks written: path -> stored target. */
  private readonly links = new Map<string, string>();
  private realRoot: string | undefined;
  /** The top directory each parentOf() call made, in order: what undoing an archive removes. */
  private readonly made: string[] = [];

  /** The names as the target's file system sees them (Windows: reserved names, case). */
  private readonly names: TargetNames;

  constructor(readonly root: string, readonly limits: UnpackLimits = DEFAULT_LIMITS, fileNames: 'posix' | 'windows' = 'posix') {
    this.names = new TargetNames(fileNames);
  }

  abs(rel: string): string {
    return path.join(this.root, ...rel.split('/'));
  }

  /**
   * Claims `rel` for a member of `archive`: refuses a second member at the same path, a path under a link (the
   * write would land wherever the link points), and a file where a directory is, or under a file.
   */
  private claim(rel: string, archive: string): void {
    const first = this.owners.get(rel);
    if (first !== undefined) {
      throw new XpuError('DUPLICATE_MEMBER', `${archive} has a second member at ${rel}${first === archive ? '' : ` (the first came from ${first})`}`, {
        details: { archive, member: rel, first },
        hints: [`a package that writes one path twice is malformed or hostile (the second would silently replace the first); ${UNCHANGED}`],
      });
    }
    if (this.dirs.has(rel)) {
      throw new XpuError('DUPLICATE_MEMBER', `${archive} puts a file or link at ${rel}, where other members make a directory`, {
        details: { archive, member: rel },
        hints: [`the package is malformed or hostile; ${UNCHANGED}`],
      });
    }
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (this.links.has(dir)) {
        throw new XpuError('UNSAFE_PATH', `refusing archive member "${rel}" in ${archive}: it would be written through the symlink ${dir}`, {
          details: { archive, member: rel, link: dir },
          hints: [`no member is ever written through a link; the package is malformed or hostile; ${UNCHANGED}`],
        });
      }
      if (this.owners.has(dir)) {
        throw new XpuError('DUPLICATE_MEMBER', `${archive} puts ${rel} under ${dir}, which is a file`, {
          details: { archive, member: rel, file: dir },
          hints: [`the package is malformed; ${UNCHANGED}`],
        });
      }
    }
    this.checkNameLength(parts, archive);
    this.names.claim(rel, archive);
    for (let i = 1; i < parts.length; i++) this.dirs.add(parts.slice(0, i).join('/'));
    this.owners.set(rel, archive);
  }

  /** A member name with one part longer than the file system allows: said with the archive, the name shortened, and the limit. */
  private checkNameLength(parts: string[], archive: string): void {
    const limits = nodeLayout(process.platform).nameLimits;
    const size = (s: string) => (limits.unit === 'bytes' ? Buffer.byteLength(s) : s.length);
    const long = parts.find((p) => size(p) > limits.name);
    if (long === undefined) return;
    const shown = parts.map((p) => (p === long ? `${p.slice(0, 24)}…${p.slice(-8)}` : p)).join('/');
    throw new XpuError('NAME_TOO_LONG', `${archive} has a member whose name is too long for this file system: ${shown} (a name of ${size(long)} ${limits.unit}; the limit is ${limits.name})`, {
      details: { archive, member: parts.join('/'), length: size(long), limit: limits.name, unit: limits.unit },
      hints: [`no prefix can hold it, whatever its path; ${UNCHANGED}`, 'choose another version or source of the component (--source), or report the package to its maintainers'],
    });
  }

  /** Makes the parent directory and proves it is the real directory under the root, not somewhere a link leads. */
  private async parentOf(rel: string): Promise<string> {
    const dest = this.abs(rel);
    const dir = path.dirname(dest);
    // 0755 whatever the umask lets through: never writable by others (the umask can only take bits away).
    const made = await fs.mkdir(dir, { recursive: true, mode: 0o755 });
    if (made !== undefined) this.made.push(made);
    this.realRoot ??= await fs.realpath(this.root);
    const want = path.join(this.realRoot, ...rel.split('/').slice(0, -1));
    if ((await fs.realpath(dir)) !== want) {
      throw new XpuError('UNSAFE_PATH', `refusing to write ${rel}: its directory is not inside the staging tree ${this.root}`, {
        details: { member: rel, staging: this.root },
        hints: [UNCHANGED],
      });
    }
    return dest;
  }

  /** A file from an archive: created exclusively (never replaces or follows anything), at most `size` bytes when known. */
  async writeStream(rel: string, body: Readable, mode: number, budget?: UnpackBudget, declared?: number): Promise<ReceiptFile> {
    const dest = await this.parentOf(rel);
    const hash = createHash('sha256');
    let size = 0;
    const archive = budget?.archive ?? rel;
    const perm = installMode(mode);
    const out = new BatchedWriter(await fs.open(dest, 'wx', perm));
    try {
      await piecesOf(body)((piece) => {
        size += piece.length;
        if (declared !== undefined && size > declared) {
          throw new XpuError('BAD_ARCHIVE', `${archive}: member ${rel} holds more bytes than the ${declared} its header declares`, {
            details: { archive, member: rel, declared },
            hints: [`the archive is damaged or hostile; ${UNCHANGED}`],
          });
        }
        budget?.take(piece.length);
        hash.update(piece);
        return out.put(piece);
      });
    } catch (e) {
      await out.end();
      throw e;
    }
    await out.close();
    // Set outright: under umask 000 or 077 the file gets exactly the mode the rule gives, no more, no less.
    await fs.chmod(dest, perm);
    const rec = { path: rel, sha256: hash.digest('hex'), size, mtimeMs: (await fs.stat(dest)).mtimeMs };
    this.files.set(rel, rec);
    return rec;
  }

  /**
   * A file xpu-setup makes itself (pkg-config, CMake, env files, receipt): may replace a package's file of the same
   * name (a .pc re-rooted), never a link, and lands by rename so nothing half-written is ever seen.
   */
  async writeText(rel: string, text: string, mode = 0o644): Promise<ReceiptFile> {
    if (this.links.has(rel)) {
      throw new XpuError('UNSAFE_PATH', `refusing to write ${rel} over the package's symlink of that name`, { details: { member: rel }, hints: [UNCHANGED] });
    }
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (this.links.has(dir)) throw new XpuError('UNSAFE_PATH', `refusing to write ${rel} through the symlink ${dir}`, { details: { member: rel, link: dir }, hints: [UNCHANGED] });
    }
    const dest = await this.parentOf(rel);
    const buf = Buffer.from(text);
    const tmp = `${dest}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(tmp, buf, { mode, flag: 'wx' });
    await fs.rename(tmp, dest);
    const rec = { path: rel, sha256: createHash('sha256').update(buf).digest('hex'), size: buf.length, mtimeMs: (await fs.stat(dest)).mtimeMs };
    this.files.set(rel, rec);
    return rec;
  }

  /**
   * Changes a file an archive wrote, in place and with its mode kept (conda's prefix placeholders); its record follows.
   * A link, or a path no archive wrote, is left alone. Returns whether the bytes changed.
   */
  async rewrite(rel: string, change: (data: Buffer) => Buffer): Promise<boolean> {
    const rec = this.files.get(rel);
    if (!rec || rec.link !== undefined || this.links.has(rel)) return false;
    const dest = this.abs(rel);
    const data = await fs.readFile(dest);
    const next = change(data);
    if (next.equals(data)) return false;
    const mode = (await fs.stat(dest)).mode & 0o7777;
    const tmp = `${dest}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(tmp, next, { mode, flag: 'wx' });
    await fs.chmod(tmp, mode);
    await fs.rename(tmp, dest);
    this.files.set(rel, { ...rec, sha256: createHash('sha256').update(next).digest('hex'), size: next.length, mtimeMs: (await fs.stat(dest)).mtimeMs });
    return true;
  }

  /**
   * Rewrites a staged file piece by piece through `edit`, into a file beside it that then takes its place: a file of
   * any size costs a piece of memory, not two copies of it. False when `edit` changed nothing (the copy is dropped).
   */
  async rewriteStreaming(rel: string, edit: StreamEdit): Promise<boolean> {
    const rec = this.files.get(rel);
    if (!rec || rec.link !== undefined || this.links.has(rel)) return false;
    const dest = this.abs(rel);
    const mode = (await fs.stat(dest)).mode & 0o7777;
    const tmp = `${dest}.${randomBytes(4).toString('hex')}.tmp`;
    const hash = createHash('sha256');
    let size = 0;
    const out = await fs.open(tmp, 'wx', mode);
    const write = async (b: Buffer) => {
      hash.update(b);
      size += b.length;
      await writeWhole(out, b);
    };
    try {
      for await (const piece of createReadStream(dest, { highWaterMark: 256 * 1024 })) await write(edit.step(piece as Buffer));
      await write(edit.flush());
      await out.close();
    } catch (e) {
      await out.close().catch(() => undefined);
      await fs.rm(tmp, { force: true });
      throw e;
    }
    if (!edit.changed) {
      await fs.rm(tmp, { force: true });
      return false;
    }
    await fs.chmod(tmp, mode);
    await fs.rename(tmp, dest);
    this.files.set(rel, { ...rec, sha256: hash.digest('hex'), size, mtimeMs: (await fs.stat(dest)).mtimeMs });
    return true;
  }

  async symlink(rel: string, target: string, archive: string): Promise<void> {
    safeLinkTarget(rel, target, archive);
    // With the links so far, the target must stay inside; checkLinks() repeats this once every link exists.
    const trial = new Map(this.links).set(rel, target);
    if (resolveInTree(rel, trial) === undefined) {
      throw new XpuError('UNSAFE_PATH', `refusing archive member "${rel}" in ${archive}: link target "${target}" resolves outside the prefix through other links`, {
        details: { archive, member: rel, target },
        hints: [`the package is malformed or hostile; ${UNCHANGED}`],
      });
    }
    const dest = await this.parentOf(rel);
    await fs.symlink(target, dest);
    this.links.set(rel, target);
    this.files.set(rel, { path: rel, sha256: '', size: 0, link: target });
  }

  async copyFrom(rel: string, fromRel: string, archive: string, budget?: UnpackBudget): Promise<void> {
    const src = this.files.get(fromRel);
    if (!src || src.link !== undefined) {
      throw new XpuError('BAD_ARCHIVE', `${archive}: hard link ${rel} points at ${fromRel}, which was not extracted before it`, {
        details: { archive, member: rel },
      });
    }
    budget?.take(src.size);
    const dest = await this.parentOf(rel);
    await fs.copyFile(this.abs(fromRel), dest, fs.constants.COPYFILE_EXCL);
    this.files.set(rel, { ...src, path: rel, mtimeMs: (await fs.stat(dest)).mtimeMs });
  }

  /** What extracting one archive does with each member the reader yields; counts those that landed. */
  private visitor(label: string, rules: MapRule[], budget: UnpackBudget, landed: { n: number; current: string }) {
    return async (entry: ArchiveEntry, body: Readable | undefined): Promise<void> => {
      const rel = mapMember(rules, entry.path);
      if (rel === undefined || entry.type === 'dir') {
        body?.resume();
        return;
      }
      safePath(rel, label);
      landed.current = rel;
      this.claim(rel, label);
      landed.n++;
      if (entry.type === 'file') await this.writeStream(rel, body!, entry.mode, budget, entry.size);
      else if (entry.type === 'symlink') await this.symlink(rel, entry.linkTarget ?? '', label);
      else if (entry.type === 'hardlink') {
        const fromRel = mapMember(rules, entry.linkTarget ?? '');
        if (fromRel === undefined) throw new XpuError('BAD_ARCHIVE', `${label}: hard link ${entry.path} leaves the mapped tree`, { details: { archive: label } });
        await this.copyFrom(rel, fromRel, label, budget);
      }
    };
  }

  /** Each archive's budget, kept after its unpacking for what rewriting its files adds (conda's placeholders). */
  private readonly budgets = new Map<string, UnpackBudget>();

  private budgetOf(label: string, size: number): UnpackBudget {
    const b = new UnpackBudget(label, size, this.limits);
    this.budgets.set(label, b);
    return b;
  }

  /** Counts `bytes` more against the unpack limits of the archive `label` (a rewrite that makes a file longer). */
  charge(label: string, bytes: number): void {
    if (bytes > 0) this.budgets.get(label)?.take(bytes);
  }

  /** Extracts the members the rules take; returns how many landed. */
  async extract(format: ArchiveFormat, file: string, label: string, rules: MapRule[]): Promise<number> {
    const landed = { n: 0, current: '' };
    const budget = this.budgetOf(label, (await fs.stat(file)).size);
    try {
      await readArchive(format, file, this.visitor(label, rules, budget, landed), label);
    } catch (e) {
      throw fsWriteError(e, landed.current ? this.abs(landed.current) : this.root, { archive: label, tree: path.dirname(this.root), unchanged: UNCHANGED });
    }
    return landed.n;
  }

  /**
   * Extracts an archive while its download writes it; its size (which bounds what it may unpack to) comes from the
   * index, else from the response. Returns how many members landed, or why it could not (no size before the end, a
   * format read only from the finished file, a layout that needs the central directory first, a download that
   * started over or failed, any error): then nothing of the archive is left in the tree, and the finished file is
   * extracted as usual, which also reports any fault of the archive itself.
   */
  async extractLive(format: ArchiveFormat, live: Pick<LiveDownload, 'follow' | 'whole' | 'size'>, label: string, rules: MapRule[]): Promise<number | { notLive: string }> {
    const source = await live.follow();
    if (!source) return { notLive: 'no download in progress' };
    const size = live.size;
    if (size === undefined) {
      await source.close();
      return { notLive: 'neither the index nor the response gave its size' };
    }
    const landed = { n: 0, current: '' };
    const dirs = new Set(this.dirs);
    const madeBefore = this.made.length;
    try {
      const fixes = await readArchiveLive(format, source, label, this.visitor(label, rules, this.budgetOf(label, size), landed));
      if (!live.whole) throw new Error('the download did not end whole');
      await this.applyModes(fixes, rules);
      return landed.n;
    } catch (e) {
      await this.undo(label, dirs, madeBefore);
      return { notLive: (e as Error).message };
    } finally {
      await source.close();
    }
  }

  private async applyModes(fixes: ModeFix[], rules: MapRule[]): Promise<void> {
    for (const f of fixes) {
      const rel = mapMember(rules, f.path);
      const rec = rel === undefined ? undefined : this.files.get(rel);
      if (rec && rec.link === undefined) await fs.chmod(this.abs(rec.path), installMode(f.mode));
    }
  }

  /** Removes everything one archive put in the tree, and forgets it, as if it had never been extracted. */
  private async undo(label: string, dirs: Set<string>, madeBefore: number): Promise<void> {
    for (const [rel, owner] of [...this.owners]) {
      if (owner !== label) continue;
      await fs.rm(this.abs(rel), { force: true });
      this.owners.delete(rel);
      this.files.delete(rel);
      this.links.delete(rel);
    }
    for (const dir of this.made.splice(madeBefore).reverse()) await fs.rm(dir, { recursive: true, force: true });
    this.dirs.clear();
    for (const d of dirs) this.dirs.add(d);
  }

  /** The members archive `label` put in the tree, in the order it did. */
  membersOf(label: string): StagedMember[] {
    return [...this.owners].filter(([, owner]) => owner === label).map(([rel]) => ({ file: this.abs(rel), ...(this.links.has(rel) ? { linkTo: this.links.get(rel) } : {}) }));
  }

  /** Once every archive is in: each link, followed through all the others, still resolves inside the tree. */
  checkLinks(): void {
    checkLinksInside(this.links, (l) => this.owners.get(l) ?? 'the package');
  }

  /** True when the path exists in staging, following symlinks. */
  async has(rel: string): Promise<boolean> {
    return fs.stat(this.abs(rel)).then(() => true, () => false);
  }
}
