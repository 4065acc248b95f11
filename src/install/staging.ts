// Writes archive members into a staging directory, hashing each file as it streams; the only writer of prefix files.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { XpuError } from '../errors.js';
import { readArchive, type ArchiveFormat } from '../formats/index.js';
import { safeLinkTarget, safePath } from '../formats/safe-path.js';
import type { MapRule } from '../manifest/schema.js';
import type { ReceiptFile } from './receipt.js';
import { mapMember } from './map.js';

export class Staging {
  /** Prefix-relative path -> what was written there. */
  readonly files = new Map<string, ReceiptFile>();

  constructor(readonly root: string) {}

  abs(rel: string): string {
    return path.join(this.root, ...rel.split('/'));
  }

  private async prepare(rel: string): Promise<string> {
    const dest = this.abs(rel);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    await fs.rm(dest, { force: true, recursive: true });
    return dest;
  }

  async writeStream(rel: string, body: Readable, mode: number): Promise<ReceiptFile> {
    const dest = await this.prepare(rel);
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _e, cb) {
        hash.update(chunk);
        size += chunk.length;
        cb(null, chunk);
      },
    });
    await pipeline(body, tap, createWriteStream(dest, { mode: mode & 0o777 || 0o644 }));
    const rec = { path: rel, sha256: hash.digest('hex'), size, mtimeMs: (await fs.stat(dest)).mtimeMs };
    this.files.set(rel, rec);
    return rec;
  }

  async writeText(rel: string, text: string, mode = 0o644): Promise<ReceiptFile> {
    const dest = await this.prepare(rel);
    const buf = Buffer.from(text);
    await fs.writeFile(dest, buf, { mode });
    const rec = { path: rel, sha256: createHash('sha256').update(buf).digest('hex'), size: buf.length, mtimeMs: (await fs.stat(dest)).mtimeMs };
    this.files.set(rel, rec);
    return rec;
  }

  async symlink(rel: string, target: string, archive: string): Promise<void> {
    safeLinkTarget(rel, target, archive);
    const dest = await this.prepare(rel);
    await fs.symlink(target, dest);
    this.files.set(rel, { path: rel, sha256: '', size: 0, link: target });
  }

  async copyFrom(rel: string, fromRel: string, archive: string): Promise<void> {
    const src = this.files.get(fromRel);
    if (!src || src.link !== undefined) {
      throw new XpuError('BAD_ARCHIVE', `${archive}: hard link ${rel} points at ${fromRel}, which was not extracted before it`, {
        details: { archive, member: rel },
      });
    }
    const dest = await this.prepare(rel);
    await fs.copyFile(this.abs(fromRel), dest);
    this.files.set(rel, { ...src, path: rel, mtimeMs: (await fs.stat(dest)).mtimeMs });
  }

  /** Extracts the members the rules take; returns how many landed. */
  async extract(format: ArchiveFormat, file: string, label: string, rules: MapRule[]): Promise<number> {
    let n = 0;
    await readArchive(format, file, async (entry, body) => {
      const rel = mapMember(rules, entry.path);
      if (rel === undefined || entry.type === 'dir') {
        body?.resume();
        return;
      }
      safePath(rel, label);
      n++;
      if (entry.type === 'file') await this.writeStream(rel, body!, entry.mode);
      else if (entry.type === 'symlink') await this.symlink(rel, entry.linkTarget ?? '', label);
      else if (entry.type === 'hardlink') {
        const fromRel = mapMember(rules, entry.linkTarget ?? '');
        if (fromRel === undefined) throw new XpuError('BAD_ARCHIVE', `${label}: hard link ${entry.path} leaves the mapped tree`, { details: { archive: label } });
        await this.copyFrom(rel, fromRel, label);
      }
    });
    return n;
  }

  /** True when the path exists in staging, following symlinks. */
  async has(rel: string): Promise<boolean> {
    return fs.stat(this.abs(rel)).then(() => true, () => false);
  }
}
