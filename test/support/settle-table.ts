// A settle provider over a table written in a test or a benchmark: each component's candidates in order of preference.
import type { Need, SettleProvider } from '../../src/versions/settle.js';
import { meets, parseConstraint } from '../../src/versions/order.js';

export interface Cand {
  component: string;
  version: string;
  source: string;
  /** Constraints on other components, `name>=X`, read in conda's version order. */
  needs?: string[];
}

export type Table = Record<string, Omit<Cand, 'component'>[]>;

/** `asked` counts the provider's answers, the unit of work the benchmark bounds. */
export function tableProvider(table: Table): SettleProvider<Cand> & { asked: number } {
  const p = {
    asked: 0,
    async candidate(component: string, needs: readonly Need[], i: number): Promise<Cand | undefined> {
      p.asked++;
      const fits = (table[component] ?? []).map((c) => ({ ...c, component })).filter((c) => needs.every((n) => p.satisfies(n, c)));
      return fits[i];
    },
    satisfies: (n: Need, c: Cand) => meets(c.version, parseConstraint(n.constraint), 'conda'),
    needs: (c: Cand): Need[] => (c.needs ?? []).map((t) => ({ component: parseConstraint(t).component, constraint: t })),
    label: (c: Cand) => `${c.version} (${c.source})`,
  };
  return p;
}
