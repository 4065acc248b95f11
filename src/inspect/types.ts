// Shared shapes of the detection layer: every finder answers with what it found and every place it looked.

export interface Finding<T> {
  found: T;
  /** Each place looked at and what was there, in order; doctor --verbose prints these. */
  tried: string[];
}

/** Options shared by the finders: a root for sysfs//dev//etc trees (tests point it at a temp dir). */
export interface DetectOptions {
  /** Filesystem root for /sys, /dev and /etc lookups; "/" on a real machine. */
  root?: string;
}
