// Debian packages: dpkg-deb turns the .deb into its data tarball, which streams into the tar reader.
import { spawn } from 'node:child_process';
import { XpuError } from '../base/errors.js';
import type { EntryVisitor } from './entry.js';
import { readTar } from './tar.js';

export async function readDeb(file: string, visit: EntryVisitor, name = file): Promise<void> {
  const child = spawn('dpkg-deb', ['--fsys-tarfile', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', (e) =>
      reject(new XpuError('BAD_ARCHIVE', `cannot run dpkg-deb to read ${file}`, {
        cause: e,
        details: { file },
        hints: ['the apt source needs dpkg-deb (Debian and Ubuntu have it); choose another source with --source'],
      })),
    );
    child.on('close', (code) => resolve(code ?? -1));
  });
  const reading = readTar(child.stdout, name, visit);
  const [code] = await Promise.all([exited, reading.catch(async (e) => { child.kill(); throw e; })]);
  if (code !== 0) {
    throw new XpuError('BAD_ARCHIVE', `dpkg-deb could not read ${name}: ${stderr.trim()}`, { details: { file, stderr } });
  }
}

/** The `ar` member holding a .deb's control files, as found in the first bytes of the package. */
interface ControlMember {
  name: string;
  /** Where its bytes start in the package, and how many there are. */
  start: number;
  size: number;
}

/**
 * Pure: the control member of a .deb from the package's first bytes (`!<arch>`, `debian-binary`, then `control.tar*`),
 * or undefined when `head` is not the start of a .deb.
 */
export function debControlMember(head: Buffer): ControlMember | undefined {
  if (head.length < 8 || head.toString('latin1', 0, 8) !== '!<arch>\n') return undefined;
  for (let at = 8; at + 60 <= head.length; ) {
    const name = head.toString('latin1', at, at + 16).trim().replace(/\/$/, '');
    const size = Number.parseInt(head.toString('latin1', at + 48, at + 58).trim(), 10);
    if (!Number.isSafeInteger(size) || size < 0 || head.toString('latin1', at + 58, at + 60) !== '`\n') return undefined;
    if (name.startsWith('control.tar')) return { name, start: at + 60, size };
    at += 60 + size + (size % 2);
  }
  return undefined;
}

/** Pure: the `control` file of an uncompressed control tarball, or undefined when it holds none. */
export function controlFromTar(tar: Buffer): string | undefined {
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = tar.toString('latin1', at, at + 100).replace(/\0.*$/s, '');
    if (!name) return undefined;
    const size = Number.parseInt(tar.toString('latin1', at + 124, at + 136).replace(/\0.*$/s, '').trim() || '0', 8);
    if (!Number.isSafeInteger(size)) return undefined;
    if (name.replace(/^\.\//, '') === 'control' && tar[at + 156] !== 0x78) return tar.toString('utf8', at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/** One alternative of a Depends group: a name, and the relation its version must meet (dpkg's << <= = >= >>). */
export interface AptRelation {
  name: string;
  op?: '<<' | '<=' | '=' | '>=' | '>>';
  version?: string;
}

/** Pure: one Depends entry as its alternatives: `a (>= 1) | b` -> [{a, >=, 1}, {b}]. */
export function parseRelationGroup(entry: string): AptRelation[] {
  return entry.split('|').flatMap((alt): AptRelation[] => {
    const m = /^\s*([a-z0-9][a-z0-9+.-]*)(?::[a-z0-9-]+)?\s*(?:\(\s*(<<|<=|=|>=|>>|<|>)\s*([^\s)]+)\s*\))?\s*(?:\[.*\])?\s*$/.exec(alt);
    if (!m) return [];
    // dpkg still reads the obsolete `<` and `>` as `<=` and `>=`.
    const op = m[2] === '<' ? '<=' : m[2] === '>' ? '>=' : (m[2] as AptRelation['op']);
    return [op ? { name: m[1]!, op, version: m[3]! } : { name: m[1]! }];
  });
}

/** Pure: the version floor a control file's Depends sets on `pkg` (`libc6 (>= 2.43)` -> `2.43`), as written, if any. */
export function dependsFloor(control: string, pkg: string): string | undefined {
  const depends = /^Depends:(.*(?:\n[ \t].*)*)/m.exec(control)?.[1]?.replace(/\n[ \t]+/g, ' ') ?? '';
  const rel = depends.split(',').flatMap(parseRelationGroup).find((r) => r.name === pkg && r.op === '>=');
  return rel?.version;
}

/** A small xz member (a Debian package's control.tar.xz) through the xz program every Debian and Ubuntu has; undefined without it or past `max` bytes. */
export function unxz(packed: Buffer, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const child = spawn('xz', ['-dc'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > max) child.kill();
      else out.push(b);
    });
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 ? Buffer.concat(out) : undefined));
    child.stdin.on('error', () => undefined);
    child.stdin.end(packed);
  });
}
