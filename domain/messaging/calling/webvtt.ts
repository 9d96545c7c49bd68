/*
 * A transcript page as a WebVTT document (W3C WebVTT: cue timings hh:mm:ss.ttt, voice spans `<v Speaker>`).
 * Cue text escapes `&`, `<` and `>` (so `-->` cannot end up in a cue), and drops blank lines, which would end the
 * cue early; a voice name is one line with the same escapes.
 */

export interface Cue {
  id: string;
  startMs: number;
  endMs: number;
  voice: string;
  text: string;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function vttTime(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

function cueText(voice: string, text: string): string {
  const lines = text
    .split(/\r\n|\r|\n|\u2028|\u2029/)
    .map((l) => escape(l))
    .filter((l) => l.trim() !== '');
  const name = escape(voice.replace(/\s+/g, ' ').trim());
  const body = lines.join('\n');
  return name ? `<v ${name}>${body}` : body;
}

export function toWebVtt(cues: readonly Cue[]): string {
  const blocks = cues.map((c) => `${c.id}\n${vttTime(c.startMs)} --> ${vttTime(c.endMs)}\n${cueText(c.voice, c.text)}`);
  return ['WEBVTT', ...blocks].join('\n\n') + '\n';
}
