/*
 * A slide body's Markdown read as the pptx export formats it (pptx.ts): a paragraph a line (as the pdf shows it), each
 * a heading, a bullet or numbered item (with its nesting), a quote, a line of a code block or plain text, made of
 * spans that are bold, italic, struck through or code. That is where Markdown is simple; anything else (links,
 * tables, images) stays as written. The text comes in clean (pptx.ts textIn): lines end in \n.
 *
 * Linear in the text: regular expressions here are anchored at a line's start, and a line's emphasis is found by a
 * scan (inline) rather than by a regex that could backtrack over a long line.
 */

export type Span = { text: string; bold?: boolean; italic?: boolean; strike?: boolean; code?: boolean };

/** A line of a body: `level` is a heading's 1-6 or a list item's nesting 0-8, `start` a numbered list's first number, `gap` a blank line before. */
export type Para = { spans: Span[]; kind: 'text' | 'heading' | 'bullet' | 'number' | 'quote' | 'code'; level: number; start?: number; gap: boolean };

const MARKS = [
  ['**', 'bold'],
  ['__', 'bold'],
  ['~~', 'strike'],
  ['*', 'italic'],
  ['_', 'italic'],
] as const;
const ESCAPABLE = /[!-/:-@[-`{-~]/;
const SPECIAL = /[\\`*_~]/g;
const WORD = /[\p{L}\p{N}_]/u;
const isSpace = (c: string | undefined) => c === undefined || c.trim() === '';

/**
 * A line's emphasis and code spans. Linear in the line: a delimiter with no closer left is not looked for again,
 * and each style applies once, so a nested span is rescanned at most once per style.
 */
function inline(s: string, style: Omit<Span, 'text'>, out: Span[]): void {
  let plain = '';
  const flush = () => {
    if (plain) out.push({ text: plain, ...style });
    plain = '';
  };
  const dead = new Set<string>();
  const closer = (from: number, d: string): number => {
    for (let j = s.indexOf(d, from); j !== -1; j = s.indexOf(d, j + 1)) {
      const after = s[j + d.length];
      if (!isSpace(s[j - 1]) && !(d[0] === '_' && after !== undefined && WORD.test(after)) && !(d === '*' && (s[j - 1] === '*' || after === '*'))) return j;
    }
    return -1;
  };
  let i = 0;
  while (i < s.length) {
    // Up to the next character that may start something, in one piece.
    SPECIAL.lastIndex = i;
    const at = SPECIAL.exec(s)?.index ?? s.length;
    plain += s.slice(i, at);
    if (at === s.length) break;
    i = at;
    const c = s[i];
    if (c === '\\' && i + 1 < s.length && ESCAPABLE.test(s[i + 1])) {
      plain += s[i + 1];
      i += 2;
      continue;
    }
    if (c === '`' && !style.code && !dead.has('`')) {
      const end = s.indexOf('`', i + 1);
      if (end === -1) dead.add('`');
      else if (end > i + 1) {
        flush();
        out.push({ text: s.slice(i + 1, end), ...style, code: true });
        i = end + 1;
        continue;
      }
    }
    const mark = MARKS.find(
      ([d, k]) =>
        !style[k] &&
        !dead.has(d) &&
        s.startsWith(d, i) &&
        !isSpace(s[i + d.length]) &&
        s[i + d.length] !== d[0] &&
        !(d[0] === '_' && i > 0 && WORD.test(s[i - 1])),
    );
    if (mark) {
      const [d, k] = mark;
      const end = closer(i + d.length + 1, d);
      if (end === -1) dead.add(d);
      else {
        flush();
        inline(s.slice(i + d.length, end), { ...style, [k]: true }, out);
        i = end + d.length;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
}

/** Past this a line is shown as written (inline parsing is linear, but a slide is no place for a novel). */
const MAX_FORMATTED_LINE = 10_000;

const spansOf = (line: string): Span[] => {
  if (line.length > MAX_FORMATTED_LINE) return [{ text: line }];
  const out: Span[] = [];
  inline(line, {}, out);
  return out;
};

/** A heading's text without its closing #s (a loop: a regex here would backtrack on long runs of spaces). */
function headingText(rest: string): string {
  let end = rest.length;
  while (end > 0 && rest[end - 1] === '#') end--;
  if (end < rest.length && (end === 0 || rest[end - 1] === ' ' || rest[end - 1] === '\t')) rest = rest.slice(0, end);
  return rest.trim();
}

/** A body's paragraphs, a line each (as the pdf shows it); blank lines become space before the next. */
export function bodyParagraphs(markdown: string): Para[] {
  const out: Para[] = [];
  const numbered = new Map<number, number>();
  let fence: string | undefined;
  let gap = false;
  const push = (p: Omit<Para, 'gap'>) => {
    for (const level of [...numbered.keys()])
      if (level > p.level || (p.kind !== 'number' && level >= p.level) || (p.kind !== 'bullet' && p.kind !== 'number')) numbered.delete(level);
    out.push({ ...p, gap: gap && out.length > 0 });
    gap = false;
  };
  for (const raw of markdown.split('\n')) {
    const line = raw.trimEnd();
    if (fence !== undefined) {
      if (line.trimStart().startsWith(fence)) fence = undefined;
      else push({ spans: [{ text: raw.replace(/\t/g, '    '), code: true }], kind: 'code', level: 0 });
      continue;
    }
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      fence = f[1];
      continue;
    }
    if (line.trim() === '' || /^ {0,3}([-*_])(?: *\1){2,}$/.test(line)) {
      gap = true;
      continue;
    }
    const h = /^ {0,3}(#{1,6})(?:[ \t]|$)/.exec(line);
    if (h) {
      push({ spans: spansOf(headingText(line.slice(h[0].length))), kind: 'heading', level: h[1].length });
      continue;
    }
    const b = /^([ \t]*)[-*+][ \t]+/.exec(line);
    if (b) {
      push({ spans: spansOf(line.slice(b[0].length)), kind: 'bullet', level: Math.min(8, b[1].replace(/\t/g, '    ').length >> 1) });
      continue;
    }
    const n = /^([ \t]*)(\d{1,9})[.)][ \t]+/.exec(line);
    if (n) {
      const level = Math.min(8, n[1].replace(/\t/g, '    ').length >> 1);
      const start = numbered.get(level) ?? Number(n[2]);
      push({ spans: spansOf(line.slice(n[0].length)), kind: 'number', level, start });
      numbered.set(level, start);
      continue;
    }
    const q = /^ {0,3}>[ \t]?/.exec(line);
    if (q) {
      push({ spans: spansOf(line.slice(q[0].length)), kind: 'quote', level: 0 });
      continue;
    }
    push({ spans: spansOf(line.trimStart()), kind: 'text', level: 0 });
  }
  return out;
}
