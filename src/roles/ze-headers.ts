// The ze-headers role: the component that ships the Level Zero headers; its pkg-config file (level-zero.pc) points
// compilers at include/level_zero and requires the loader's.
import { pcHead, rerootPc } from './pkg-config.js';
import type { Role } from './role.js';

export const zeHeaders: Role = {
  name: 'ze-headers',
  title: 'the Level Zero headers',
  single: true,
  files: (t) => [
    {
      path: 'lib/pkgconfig/level-zero.pc',
      text: pcHead(t.prefix) + `Name: Level Zero\nDescription: Level Zero headers and loader (installed by xpu-setup)\nVersion: ${t.version ?? '0'}\nRequires: libze_loader\nLibs: -L\${libdir}\nCflags: -I\${includedir}/level_zero\n`,
      reroot: (shipped) => rerootPc(shipped, t.prefix, t.version),
    },
  ],
};
