// A moment as people read it in a message: `2026-12-04 20:35:54 UTC`, not an ISO string.

/** `iso` (or a time in ms) as `YYYY-MM-DD HH:MM:SS UTC`; a string that is no time is given back as it is. */
export function whenSaid(iso: string | number): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
