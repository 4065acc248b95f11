// How much one archive may unpack to, by default; `--max-unpacked` and `--max-ratio` change it.

/** How much one archive may unpack to: in bytes, and as a multiple of its own size (zip/zstd bombs). */
export interface UnpackLimits {
  /** 0: no limit. */
  maxBytes: number;
  /** 0: no limit. Only applies once an archive has unpacked more than RATIO_FLOOR bytes. */
  maxRatio: number;
}

export const DEFAULT_LIMITS: UnpackLimits = { maxBytes: 2 * 1024 ** 3, maxRatio: 200 };
/** Small archives of text legitimately compress very well; the ratio only matters for big outputs. */
export const RATIO_FLOOR = 32 * 1024 ** 2;
