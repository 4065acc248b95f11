// The one safe-path policy every archive member passes: relative, no "..", no drive letters, links stay inside,
// names a Windows target can hold, and the one rule for the modes files are written with.
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';

function unsafe(member: string, archive: string, why: string): XpuError {
  return new XpuError('UNSAFE_PATH', `refusing archive member "${member}" in ${archive}: ${why}`, {
    details: { member, archive, why },
    hints: ['the package is malformed or hostile; nothing from it was installed'],
  });
}

/** Normalises a member name to a relative POSIX path, or throws UNSAFE_PATH. */
export function safePath(member: string, archive: string): string {
  if (member.includes('\0')) throw unsafe(member, archive, 'contains a NUL byte');
  const p = member.replace(/\\/g, '/');
  if (p.startsWith('/')) throw unsafe(member, archive, 'absolute path');
  if (/^[A-Za-z]:/.test(p)) throw unsafe(member, archive, 'drive letter');
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') throw unsafe(member, archive, 'parent directory reference');
    parts.push(seg);
  }
  if (parts.length === 0) throw unsafe(member, archive, 'empty path');
  return parts.join('/');
}

/** The target of the hard link `member`, normalised as a member name, or UNSAFE_PATH naming the link and where it points. */
export function safeHardLinkTarget(member: string, target: string, archive: string): string {
  try {
    return safePath(target, archive);
  } catch (e) {
    if (!(e instanceof XpuError) || e.code !== 'UNSAFE_PATH') throw e;
    throw unsafe(member, archive, `hard link to "${target}" (${String(e.details.why)}): a hard link may only point at another member`);
  }
}

/** A symlink at `linkPath` (relative to the root) pointing at `target` must resolve inside the root. */
export function safeLinkTarget(linkPath: string, target: string, archive: string): string {
  if (target.includes('\0')) throw unsafe(linkPath, archive, 'link target contains a NUL byte');
  if (target.startsWith('/') || /^[A-Za-z]:/.test(target)) throw unsafe(linkPath, archive, `absolute link target "${target}"`);
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(linkPath), target));
  if (resolved === '..' || resolved.startsWith('../') || resolved === '.') {
    throw unsafe(linkPath, archive, `link target "${target}" points outside the prefix`);
  }
  return target;
}

/**
 * Resolves `rel` inside a tree whose only symlinks are `links` (tree-relative path -> stored target), the way the
 * kernel would once every link exists: undefined when the walk leaves the tree, 'loop' past 40 link hops.
 * A link whose target reads as inside can still escape through another link (`esc -> a/up/../..` with
 * `a/up -> ../..`), so only this walk decides.
 */
export function resolveInTree(rel: string, links: ReadonlyMap<string, string>): string | undefined | 'loop' {
  const pending = rel.split('/');
  const done: string[] = [];
  let hops = 0;
  while (pending.length) {
    const seg = pending.shift()!;
    if (seg === '.' || seg === '') continue;
    if (seg === '..') {
      if (!done.length) return undefined;
      done.pop();
      continue;
    }
    done.push(seg);
    const target = links.get(done.join('/'));
    if (target === undefined) continue;
    if (++hops > 40) return 'loop';
    if (target.startsWith('/') || /^[A-Za-z]:/.test(target) || target.includes('\0')) return undefined;
    done.pop();
    pending.unshift(...target.replace(/\\/g, '/').split('/'));
  }
  return done.join('/');
}

/** Every link of a finished tree must resolve inside it (checked again when all links of all archives exist). */
export function checkLinksInside(links: ReadonlyMap<string, string>, archiveOf: (link: string) => string): void {
  for (const [link, target] of links) {
    const r = resolveInTree(link, links);
    if (r === 'loop') throw unsafe(link, archiveOf(link), `link target "${target}" is a loop of links`);
    if (r === undefined) throw unsafe(link, archiveOf(link), `link target "${target}" resolves outside the prefix through other links`);
  }
}

/** The one mode rule of every format: executable or not; never setuid, setgid or sticky, never writable by others. */
export function installMode(declared: number): 0o755 | 0o644 {
  return declared & 0o111 ? 0o755 : 0o644;
}

/** Device names Windows reserves in every directory, with any extension (`aux.h` is AUX). */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)(\..*)?$/i;

/** Why Windows cannot hold a path segment as named, or undefined when it can. */
export function windowsNameProblem(seg: string): string | undefined {
  const bad = /[<>:"|?*\x00-\x1f]/.exec(seg);
  if (bad) return `"${seg}" holds ${JSON.stringify(bad[0])}, which Windows does not allow in a name${bad[0] === ':' ? ' (it names a stream)' : ''}`;
  if (/[. ]$/.test(seg)) return `"${seg}" ends in a dot or a space, which Windows drops`;
  if (WINDOWS_RESERVED.test(seg.trimEnd())) return `"${seg}" is a device name Windows reserves`;
  return undefined;
}

/**
 * The names of one tree as its target's file system sees them. For Windows, a reserved or impossible name, and two
 * spellings of one name (`ZE_API.H` beside `ze_api.h`, `Level_Zero/` beside `level_zero/`), are UNSAFE_PATH: one
 * member would silently replace or merge with another there.
 */
export class TargetNames {
  /** Case-folded path -> the spelling first seen. */
  private readonly spelled = new Map<string, string>();

  constructor(readonly kind: 'posix' | 'windows') {}

  claim(rel: string, archive: string): void {
    if (this.kind !== 'windows') return;
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) {
      const why = windowsNameProblem(parts[i]!);
      if (why) throw unsafe(rel, archive, `${why} (installing for Windows)`);
      const sub = parts.slice(0, i + 1).join('/');
      const seen = this.spelled.get(sub.toLowerCase());
      if (seen === undefined) this.spelled.set(sub.toLowerCase(), sub);
      else if (seen !== sub) throw unsafe(rel, archive, `"${sub}" and "${seen}" are one name on Windows, which ignores case`);
    }
  }
}
