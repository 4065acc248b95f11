// /dev/dri/renderD* nodes: which GPU each belongs to, whether this user can open it, and the group that would let them.
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import type { DetectOptions, Finding } from './types.js';

export interface RenderNode {
  path: string;
  /** PCI address of the GPU behind the node (from /sys/class/drm/<node>/device). */
  pciAddress?: string;
  /** undefined when this process can open it read-write, else the errno code. */
  accessError?: string;
  gid?: number;
  group?: string;
}

export interface RenderAccess {
  nodes: RenderNode[];
  /** Groups of this process (what counts now). */
  sessionGroups: string[];
  /** Groups the user database lists for the user (what counts after a new login), when known. */
  userGroups?: string[];
  user?: string;
}

/** `id -Gn` prints the group names separated by spaces. */
export function parseIdGroups(text: string): string[] {
  return text.trim().split(/\s+/).filter(Boolean);
}

/** /etc/group lines name:password:gid:members -> gid to name. */
export function parseEtcGroup(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length < 3 || line.startsWith('#')) continue;
    const gid = Number(f[2]);
    if (Number.isInteger(gid) && f[0]) out.set(gid, f[0]);
  }
  return out;
}

export type RenderVerdict =
  | { kind: 'ok' }
  | { kind: 'no-nodes' }
  | { kind: 'needs-group'; group: string; fix: string }
  | { kind: 'needs-relogin'; group: string; fix: string }
  | { kind: 'denied'; fix: string };

/** Pure: what the user must do to open the nodes, from the access results and the groups. */
export function renderVerdict(a: RenderAccess): RenderVerdict {
  if (a.nodes.length === 0) return { kind: 'no-nodes' };
  const blocked = a.nodes.filter((n) => n.accessError);
  if (blocked.length === 0) return { kind: 'ok' };
  const group = blocked.find((n) => n.group)?.group;
  if (group && group !== 'root') {
    if (a.userGroups?.includes(group) && !a.sessionGroups.includes(group)) {
      return {
        kind: 'needs-relogin',
        group,
        fix: `you are in the "${group}" group but this session started before that: log out and back in (or run \`newgrp ${group}\`)`,
      };
    }
    return {
      kind: 'needs-group',
      group,
      fix: `sudo usermod -aG ${group} $USER   then log out and back in (a new login is needed for the group to apply)`,
    };
  }
  return {
    kind: 'denied',
    fix: `${blocked.map((n) => n.path).join(', ')} cannot be opened (${blocked[0]!.accessError}); check its permissions (ls -l /dev/dri) and, in a container, pass the device with --device /dev/dri`,
  };
}

export async function detectRenderNodes(deps: Deps, opts: DetectOptions = {}): Promise<Finding<RenderAccess>> {
  const root = opts.root ?? '/';
  const driDir = path.join(root, 'dev/dri');
  const tried: string[] = [];
  const entries = (await deps.readDir(driDir)) ?? [];
  const names = entries.filter((e) => /^renderD\d+$/.test(e)).sort();
  tried.push(`${driDir}: ${entries.length === 0 ? 'missing or empty' : `render nodes ${names.join(', ') || 'none'}`}`);

  const groupsText = await deps.readFile(path.join(root, 'etc/group'));
  const gidNames = groupsText ? parseEtcGroup(groupsText) : new Map<number, string>();
  const nodes: RenderNode[] = [];
  for (const name of names) {
    const p = path.join(driDir, name);
    const node: RenderNode = { path: p };
    const link = await deps.readLink(path.join(root, 'sys/class/drm', name, 'device'));
    if (link) node.pciAddress = path.basename(link);
    const err = await deps.accessRW(p);
    if (err) node.accessError = err;
    const gid = await deps.statGid(p);
    if (gid !== undefined) {
      node.gid = gid;
      const g = gidNames.get(gid);
      if (g) node.group = g;
    }
    tried.push(`${p}: ${err ? `cannot open read-write (${err})` : 'opens read-write'}${node.group ? `, group ${node.group}` : ''}`);
    nodes.push(node);
  }

  const session = await deps.exec('id', ['-Gn'], { timeoutMs: 5000 });
  const found: RenderAccess = { nodes, sessionGroups: session.exitCode === 0 ? parseIdGroups(session.stdout) : [] };
  const user = deps.env.USER ?? deps.env.LOGNAME;
  if (user) {
    found.user = user;
    const db = await deps.exec('id', ['-Gn', user], { timeoutMs: 5000 });
    if (db.exitCode === 0) found.userGroups = parseIdGroups(db.stdout);
  }
  tried.push(`id -Gn: ${found.sessionGroups.join(' ') || '(unknown)'}`);
  return { found, tried };
}
