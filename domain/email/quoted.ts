/*
 * Quoted text: the part of a reply that repeats earlier mail, collapsed in email.thread and left out of snippets.
 * Hand-written, in a few rules we can test and explain (email-reply-parser, MIT and maintained, would be one more
 * dependency for the same job, with signature stripping we do not want: a signature is part of what was said). The reply ends
 * at the first line that starts the quote (an attribution line "On … wrote:", an Outlook "-----Original
 * Message-----" or "From: … Sent: …" header block, a "Forwarded message" marker) or at a run of `>` lines that
 * lasts to the end (blank lines and a trailing attribution aside). Quoted lines within the reply, answered between,
 * stay in the body: only the tail is quoted.
 */

const ATTRIBUTION = /^\s*(On\s.{1,300}\s(wrote|schrieb|a écrit|escribió|ha scritto|schreef)\s*:|Le\s.{1,300}a écrit\s*:|Am\s.{1,300}schrieb\s.{0,200}:)\s*$/i;
const ORIGINAL = /^\s*(-{2,}\s*(Original Message|Forwarded message|Ursprüngliche Nachricht|Message d'origine)\s*-{2,}|_{10,})\s*$/i;
const HEADER_BLOCK = /^\s*\**From:\**\s.+$/i;
const HEADER_NEXT = /^\s*\**(Sent|Date|To|Subject|Cc):\**\s/i;

export interface Split {
  /** The new text of the message, trailing blank lines removed. */
  body: string;
  /** The quoted tail, or null when there is none. */
  quoted: string | null;
}

export function splitQuoted(text: string): Split {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let cut = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    // An attribution may wrap onto a second line ("On Mon, 3 Mar 2026, Ann Lee <ann@x.com>\nwrote:").
    const joined = i + 1 < lines.length ? `${line} ${lines[i + 1]}` : line;
    if (ORIGINAL.test(line) || ATTRIBUTION.test(line)) {
      cut = i;
      break;
    }
    if (line.trim() !== '' && ATTRIBUTION.test(joined) && /^\s*>|^\s*$/.test(lines[i + 2] ?? '')) {
      cut = i;
      break;
    }
    if (HEADER_BLOCK.test(line) && lines.slice(i + 1, i + 4).some((l) => HEADER_NEXT.test(l))) {
      cut = i;
      break;
    }
    if (/^\s*>/.test(line) && lines.slice(i).every((l) => /^\s*(>.*)?$/.test(l))) {
      cut = i;
      break;
    }
  }
  if (cut < 0) return { body: text.replace(/\s+$/, ''), quoted: null };
  const body = lines.slice(0, cut).join('\n').replace(/\s+$/, '');
  const quoted = lines.slice(cut).join('\n').replace(/\s+$/, '');
  return { body, quoted: quoted === '' ? null : quoted };
}
