// Shared shapes of the detection layer: every finder answers with what it found and every place it looked.

export type { Finding } from '../base/finding.js';

/** Options shared by the finders: a root for sysfs//dev//etc trees (tests point it at a temp dir). */
export interface DetectOptions {
  /** Filesystem root for /sys, /dev and /etc lookups; "/" on a real machine. */
  root?: string;
}
