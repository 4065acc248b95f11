export const BASE: Record<string, string>;
export const PLANTS: { what: string; files: Record<string, string>; says: string }[];
