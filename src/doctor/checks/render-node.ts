// Check: /dev/dri/renderD* exists for the GPU and this user can open it (the render-group trap).
import { nodeLayout } from '../../platform/index.js';
import { detectRenderNodes, renderVerdict } from '../../machine/render-nodes.js';
import type { Check } from '../types.js';

export const renderNodeCheck: Check = {
  id: 'render-node',
  title: 'GPU device node',
  group: 'system',
  async run(ctx) {
    if (!nodeLayout(ctx.deps.platform).renderNodes) return { status: 'skip', message: 'Linux only' };
    const { found: gpus } = await ctx.facts.gpus();
    const { found, tried } = await detectRenderNodes(ctx.deps, { root: ctx.root });
    const intelAddrs = new Set(gpus.intel.map((g) => g.address).filter(Boolean));
    // Judge only the Intel GPU's nodes when we can tell which they are.
    const nodes = found.nodes.filter((n) => !n.pciAddress || intelAddrs.has(n.pciAddress));
    const access = { ...found, nodes };
    const details = { nodes, sessionGroups: found.sessionGroups, userGroups: found.userGroups, tried };
    if (gpus.intel.length === 0) {
      return { status: 'skip', message: `no Intel GPU${found.nodes.length ? ` (render nodes here: ${found.nodes.map((n) => n.path).join(', ')})` : ''}`, details };
    }
    const v = renderVerdict(access);
    const names = nodes.map((n) => `${n.path}${n.group ? ` (group ${n.group})` : ''}`).join(', ');
    switch (v.kind) {
      case 'ok':
        return { status: 'ok', message: `${names} opens read-write`, details };
      case 'no-nodes':
        return {
          status: 'fail',
          message: 'no /dev/dri/renderD* node for the Intel GPU: Level Zero will see no device',
          fix: 'in a container, pass the GPU with --device /dev/dri; otherwise the kernel driver is not bound (see the kernel-driver check)',
          details,
        };
      case 'needs-group':
        return {
          status: 'fail',
          message: `${names} cannot be opened: ${found.user ?? 'this user'} is not in the "${v.group}" group, so Level Zero sees no GPU (silently)`,
          fix: v.fix,
          details,
        };
      case 'needs-relogin':
        return { status: 'fail', message: `${names} cannot be opened by this session`, fix: v.fix, details };
      case 'denied':
        return { status: 'fail', message: `${names} cannot be opened`, fix: v.fix, details };
    }
  },
};
