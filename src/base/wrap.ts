// People's text kept to a width a log viewer shows whole: a long line broken at spaces, never inside a `quoted
// command` (it must paste as one line), continued under its own indentation.

/** Lines of people's text outside --verbose are at most this long, where a break is possible. */
export const LINE_WIDTH = 200;

/** Each line of `text` longer than `width`, broken at spaces outside backticks; continuations indented 4 more. */
export function wrapText(text: string, width = LINE_WIDTH): string {
  return text.split('\n').map((l) => wrapLine(l, width)).join('\n');
}

function wrapLine(line: string, width: number): string {
  if (line.length <= width) return line;
  const indent = /^ */.exec(line)![0];
  const words: string[] = [];
  let word = '';
  let quoted = false;
  for (const ch of line.slice(indent.length)) {
    if (ch === '`') quoted = !quoted;
    if (ch === ' ' && !quoted) {
      words.push(word);
      word = '';
    } else word += ch;
  }
  words.push(word);
  const out: string[] = [];
  let cur = indent;
  for (const w of words) {
    const fresh = cur.trim() === '';
    if (!fresh && cur.length + 1 + w.length > width) {
      out.push(cur);
      cur = `${indent}    ${w}`;
    } else cur = fresh ? `${cur}${w}` : `${cur} ${w}`;
  }
  out.push(cur);
  return out.join('\n');
}
