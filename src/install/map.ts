// Maps an archive member path to its place in the prefix with the manifest's rules (first match wins).
import type { MapRule } from '../manifest/schema.js';

function matchPrefix(from: string, member: string): string | undefined {
  const pat = from.split('/').filter(Boolean);
  const parts = member.split('/');
  if (parts.length < pat.length) return undefined;
  for (let i = 0; i < pat.length; i++) {
    if (pat[i] !== '*' && pat[i] !== parts[i]) return undefined;
  }
  return parts.slice(pat.length).join('/');
}

/** The prefix-relative path for `member`, or undefined when no rule takes it (docs, metadata...). */
export function mapMember(rules: MapRule[], member: string): string | undefined {
  for (const r of rules) {
    const rest = matchPrefix(r.from, member);
    if (rest === undefined) continue;
    const to = r.to.replace(/\/+$/, '');
    if (rest === '') return to || undefined;
    return to ? `${to}/${rest}` : rest;
  }
  return undefined;
}
