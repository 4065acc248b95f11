// Names an index hands out (asset and package names, versions, file names) hold no control characters: such a name would move the cursor or forge lines when printed, and is no file name.
import { XpuError } from './errors.js';

/** C0 controls (ESC, CR, LF, ...), DEL and the C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** What prints as nothing, or turns the text around: zero-width characters, the BOM, bidi controls, line separators. */
const INVISIBLE = /[\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/g;

/** The text with each control character written as an escape (`\x1b`), so it can be printed. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** As escapeControls, and each invisible character written as `\u200b`: quoted text shows what it holds. */
export function visible(text: string): string {
  return escapeControls(text).replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `value` when it holds no control character; else a BAD_INDEX error naming the document, the field and the value, escaped. */
export function withoutControls(value: string, field: string, document: string): string {
  if (!CONTROL.test(value)) return value;
  const shown = escapeControls(value.length > 120 ? `${value.slice(0, 120)}...` : value);
  throw new XpuError('BAD_INDEX', `${document}: ${field} holds a control character: "${shown}"`, {
    details: { url: document, field },
    hints: ['an index hands out no such name: the index is damaged or hostile; nothing from it was used'],
  });
}

/**
 * Every string (and string in a list) among `fields` of one entry, checked as withoutControls does; `at` names the entry
 * in its document (`packages.conda["x.conda"]`), each field after it.
 */
export function fieldsWithoutControls(fields: Record<string, unknown>, at: string, document: string): void {
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') withoutControls(v, `${at}.${k}`, document);
    else if (Array.isArray(v)) v.forEach((x, i) => typeof x === 'string' && withoutControls(x, `${at}.${k}[${i}]`, document));
  }
}
