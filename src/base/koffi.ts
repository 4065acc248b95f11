// koffi, the FFI every runtime binding goes through, loaded on first use.
import { createRequire } from 'node:module';
import type Koffi from 'koffi';

export type KoffiModule = typeof Koffi;
const loadNative = createRequire(import.meta.url);
let koffiModule: KoffiModule | undefined;

/**
 * koffi is a native addon: it is loaded on first use (a probe, a smoke run), never at start, and stays a separate
 * file outside the bundle.
 */
export function koffi(): KoffiModule {
  koffiModule ??= loadNative('koffi') as KoffiModule;
  return koffiModule;
}
