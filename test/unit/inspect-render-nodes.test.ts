// /dev/dri render nodes: the render-group trap, with trees in a temp dir and access answers from a fake.
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectRenderNodes, parseEtcGroup, parseIdGroups, renderVerdict } from '../../src/machine/render-nodes.js';
import { fakeDeps, ok } from '../fixtures/detect/fake-deps.js';
import { ARC_A770_I915, buildTree } from '../fixtures/detect/sysfs-trees.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

const idAnswers = (session: string, db: string) => (file: string, args: string[]) => {
  if (file !== 'id') return undefined;
  return ok(args.length === 1 ? `${session}\n` : `${db}\n`);
};

describe('render nodes', () => {
  it('parses id -Gn and /etc/group', () => {
    expect(parseIdGroups('alice adm cdrom sudo\n')).toEqual(['alice', 'adm', 'cdrom', 'sudo']);
    expect(parseEtcGroup('root:x:0:\n# comment\nrender:x:105:bob\n')).toEqual(new Map([[0, 'root'], [105, 'render']]));
  });

  it('a node this user cannot open: names the group and gives the exact usermod fix', async () => {
    const root = buildTree(ARC_A770_I915);
    roots.push(root);
    const node = path.join(root, 'dev/dri/renderD128');
    const deps = fakeDeps({ env: { USER: 'alice' }, exec: idAnswers('alice', 'alice'), denied: [node], gids: { [node]: 105 } });
    const { found } = await detectRenderNodes(deps, { root });
    expect(found.nodes).toEqual([{ path: node, pciAddress: '0000:03:00.0', accessError: 'EACCES', gid: 105, group: 'render' }]);
    expect(renderVerdict(found)).toEqual({
      kind: 'needs-group',
      group: 'render',
      fix: 'sudo usermod -aG render $USER   then log out and back in (a new login is needed for the group to apply)',
    });
  });

  it('a user added to the group whose session predates it: log in again', async () => {
    const root = buildTree(ARC_A770_I915);
    roots.push(root);
    const node = path.join(root, 'dev/dri/renderD128');
    const deps = fakeDeps({ env: { USER: 'alice' }, exec: idAnswers('alice', 'alice render'), denied: [node], gids: { [node]: 105 } });
    const { found } = await detectRenderNodes(deps, { root });
    expect(renderVerdict(found)).toMatchObject({ kind: 'needs-relogin', group: 'render' });
  });

  it('a node that opens is ok; no node at all is reported as such', async () => {
    const root = buildTree(ARC_A770_I915);
    roots.push(root);
    const { found } = await detectRenderNodes(fakeDeps({ exec: idAnswers('root', 'root') }), { root });
    expect(renderVerdict(found)).toEqual({ kind: 'ok' });
    expect(renderVerdict({ nodes: [], sessionGroups: [] })).toEqual({ kind: 'no-nodes' });
  });
});
