// Type declarations for dependencies that ship none.
declare module 'unbzip2-stream' {
  import type { Duplex } from 'node:stream';
  export default function unbzip2(): Duplex;
}
