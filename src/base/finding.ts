// What every finder answers: what it found and, in order, every place it looked, so errors and the doctor can list them.

export interface Finding<T, Tried = string> {
  found: T;
  /** Each place looked at and what was there, in order; doctor --verbose and error hints print these. */
  tried: Tried[];
}

/** One attempt of a finder that keeps its outcome apart from its description (the compiler finders). */
export interface Attempt {
  what: string;
  result: 'found' | 'not found' | 'failed';
  detail?: string;
}

/** Attempts as the lines people read: "what: result (detail)". */
export function describeTried(tried: Attempt[]): string[] {
  return tried.map((t) => `${t.what}: ${t.result}${t.detail ? ` (${t.detail})` : ''}`);
}
