// The one safe-path policy every archive member passes: relative, no "..", no drive letters, links stay inside.
import * as path from 'node:path';
import { XpuError } from '../errors.js';

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
