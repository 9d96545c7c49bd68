/*
 * Text of an RTF file for search: the document's characters with paragraphs, lines and tabs, without its tables of
 * fonts, colours and styles, pictures, or any `{\*\...}` destination a reader may ignore. Bytes escaped as \'hh are
 * read in the document's ANSI code page when it is one TextDecoder knows (windows-1252 otherwise); \uN is a UTF-16
 * code unit, followed by \ucN fallback characters that are skipped.
 */

/** Destinations whose content is not the document's text. */
const SKIPPED = new Set([
  'fonttbl',
  'colortbl',
  'stylesheet',
  'info',
  'pict',
  'object',
  'themedata',
  'datastore',
  'latentstyles',
  'listtable',
  'listoverridetable',
  'rsidtbl',
  'generator',
  'xmlnstbl',
  'mmathPr',
  'filetbl',
  'revtbl',
]);

interface Group {
  skip: boolean;
  /** Fallback characters to skip after \uN (\ucN). */
  uc: number;
}

export function rtfText(bytes: Uint8Array): string {
  const src = new TextDecoder('latin1').decode(bytes);
  const codePage = /\\ansicpg(\d+)/.exec(src.slice(0, 2000))?.[1];
  const ansi = decoderFor(codePage);
  let out = '';
  let pending: number[] = []; // \'hh bytes, decoded together so multi-byte code pages read right
  const flush = () => {
    if (pending.length) out += ansi.decode(new Uint8Array(pending));
    pending = [];
  };
  const stack: Group[] = [];
  let group: Group = { skip: false, uc: 1 };
  let toSkip = 0; // fallback characters still to skip after a \uN
  const emit = (s: string) => {
    flush();
    if (!group.skip) out += s;
  };
  for (let i = 0; i < src.length;) {
    const ch = src[i];
    if (ch === '{') {
      stack.push(group);
      group = { ...group };
      i++;
    } else if (ch === '}') {
      flush();
      group = stack.pop() ?? group;
      i++;
    } else if (ch === '\\') {
      const next = src[i + 1];
      if (next === "'") {
        const byte = parseInt(src.slice(i + 2, i + 4), 16);
        i += 4;
        if (toSkip > 0) toSkip--;
        else if (!group.skip && !Number.isNaN(byte)) pending.push(byte);
        continue;
      }
      if (next === '\\' || next === '{' || next === '}') {
        i += 2;
        if (toSkip > 0) toSkip--;
        else emit(next);
        continue;
      }
      if (next === '*') {
        group.skip = true;
        i += 2;
        continue;
      }
      const m = /^\\([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(src.slice(i, i + 48));
      if (!m) {
        i += 2; // a control symbol (\~, \-, \_ ...)
        if (next === '~') emit('\u00a0');
        continue;
      }
      i += m[0].length;
      const [, word, arg] = m;
      if (SKIPPED.has(word)) group.skip = true;
      else if (word === 'par' || word === 'line' || word === 'sect' || word === 'page' || word === 'row') emit('\n');
      else if (word === 'tab' || word === 'cell') emit('\t');
      else if (word === 'uc') group.uc = Number(arg ?? 1);
      else if (word === 'u' && arg !== undefined) {
        const unit = Number(arg) < 0 ? Number(arg) + 65536 : Number(arg);
        emit(String.fromCharCode(unit));
        toSkip = group.uc;
      }
    } else if (ch === '\r' || ch === '\n') {
      i++;
    } else {
      i++;
      if (toSkip > 0) toSkip--;
      else emit(ch);
    }
  }
  flush();
  return out.replace(/[ \t]+\n/g, '\n').trim();
}

function decoderFor(codePage: string | undefined) {
  try {
    return new TextDecoder(codePage ? `windows-${codePage}` : 'windows-1252');
  } catch {
    return new TextDecoder('windows-1252');
  }
}
