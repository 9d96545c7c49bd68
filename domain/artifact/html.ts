import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Artifact } from '../../protocol/methods/artifact/index.js';
import { TONE_TOKENS, TONES } from '../../protocol/methods/artifact/index.js';
import { resolve } from './validate.js';

/*
 * An artifact as one self-contained HTML page (MCP Apps, `text/html;profile=mcp-app`): built from the catalog only,
 * every text escaped (a hostile title or markdown shows as text), no remote script, style or image; a Content
 * Security Policy allowing only its own inline style and nonce'd script. Colours are the host's style variables with
 * the brand's tokens as fallbacks; tones name roles, never colours. Buttons ask the host to call artifact_act.
 */

type ArtifactShape = z.infer<typeof Artifact>;
type Node = Record<string, unknown> & { id: string; type: string };

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (ch) => ESCAPES[ch]);

/** Markdown, safely: escaped first, then emphasis, code, https links, lists and paragraphs; HTML stays text. */
export function markdown(src: string): string {
  const inline = (s: string) =>
    escapeHtml(s)
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      .replace(/\*([^*]+)\*/g, '<em>$1</em>')
      .replace(/\[([^\]]+)\]\((https:\/\/[^\s)"]+)\)/g, '<a href="$2" target="_blank" rel="noopener noreferrer">$1</a>');
  return src
    .split(/\n{2,}/)
    .map((block) => {
      const lines = block.split('\n');
      if (lines.every((l) => /^\s*[-*] /.test(l))) return `<ul>${lines.map((l) => `<li>${inline(l.replace(/^\s*[-*] /, ''))}</li>`).join('')}</ul>`;
      return `<p>${lines.map(inline).join('<br>')}</p>`;
    })
    .join('');
}

/** The brand colour of each tone's token, if the foundation has one (fallbacks when the host sets no variables). */
export type ToneColours = Partial<Record<(typeof TONES)[number], string>>;

const DEFAULT_COLOURS: Record<(typeof TONES)[number], string> = {
  neutral: '#1f2937',
  brand: '#0b5cad',
  positive: '#15803d',
  warning: '#b45309',
  critical: '#b91c1c',
};

/** Each tone's colour from DTCG tokens (a hex $value, through up to 5 aliases), else the default. */
export function toneColours(tokens: Record<string, unknown> | undefined): Record<(typeof TONES)[number], string> {
  const at = (path: string, hops = 0): string | undefined => {
    let node: unknown = tokens;
    for (const part of path.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    const value = node && typeof node === 'object' ? (node as Record<string, unknown>).$value : undefined;
    const hex = typeof value === 'object' && value !== null ? (value as { hex?: unknown }).hex : value;
    if (typeof hex !== 'string') return undefined;
    const alias = /^\{([^}]+)\}$/.exec(hex)?.[1];
    if (alias) return hops < 5 ? at(alias, hops + 1) : undefined;
    return /^#[0-9a-fA-F]{3,8}$/.test(hex) ? hex : undefined;
  };
  return Object.fromEntries(TONES.map((t) => [t, at(TONE_TOKENS[t]) ?? DEFAULT_COLOURS[t]])) as Record<(typeof TONES)[number], string>;
}

function bound(a: ArtifactShape, v: unknown): unknown {
  return v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { path?: unknown }).path === 'string'
    ? resolve(a.data, (v as { path: string }).path)
    : v;
}

function chart(series: { name: string; points: { x: unknown; y: number }[] }[], kind: string): string {
  const all = series.flatMap((s) => s.points.map((p) => p.y));
  const max = Math.max(1, ...all);
  const w = 320;
  const h = 120;
  const parts = series.map((s, si) => {
    const step = w / Math.max(1, s.points.length);
    if (kind === 'bar')
      return s.points
        .map(
          (p, i) =>
            `<rect x="${(i * step).toFixed(1)}" y="${(h - (p.y / max) * h).toFixed(1)}" width="${(step * 0.8).toFixed(1)}" height="${((p.y / max) * h).toFixed(1)}" class="s${si % 5}"/>`,
        )
        .join('');
    const pts = s.points.map((p, i) => `${(i * step).toFixed(1)},${(h - (p.y / max) * h).toFixed(1)}`).join(' ');
    return `<polyline points="${pts}" fill="none" class="l${si % 5}"/>`;
  });
  const names = series.map((s) => escapeHtml(s.name)).join(', ');
  return `<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="${names}">${parts.join('')}</svg>`;
}

function renderNode(a: ArtifactShape, byId: Map<string, Node>, n: Node): string {
  const kids = () => ((n.children as string[] | undefined) ?? []).map((id) => (byId.has(id) ? renderNode(a, byId, byId.get(id)!) : '')).join('');
  const tone = typeof n.tone === 'string' ? ` tone-${escapeHtml(n.tone)}` : '';
  const field = (label: unknown, control: string) => `<label class="field"><span>${escapeHtml(label)}</span>${control}</label>`;
  const name = escapeHtml(n.name);
  const req = n.required ? ' required' : '';
  switch (n.type) {
    case 'Stack':
      return `<div class="stack ${n.direction === 'horizontal' ? 'row' : 'col'} gap-${escapeHtml(n.gap ?? 'medium')}">${kids()}</div>`;
    case 'Card':
      return `<section class="card${tone}">${n.title === undefined ? '' : `<h2>${escapeHtml(bound(a, n.title))}</h2>`}${kids()}</section>`;
    case 'Tabs': {
      const labels = n.labels as string[];
      const children = n.children as string[];
      return `<div class="tabs">${labels.map((l, i) => `<details${i === 0 ? ' open' : ''}><summary>${escapeHtml(l)}</summary>${byId.has(children[i]) ? renderNode(a, byId, byId.get(children[i])!) : ''}</details>`).join('')}</div>`;
    }
    case 'Heading': {
      const level = Number(n.level ?? 2) + 1;
      return `<h${level}>${escapeHtml(bound(a, n.text))}</h${level}>`;
    }
    case 'Text':
      return `<div class="text${tone}">${markdown(String(bound(a, n.markdown) ?? ''))}</div>`;
    case 'Image':
      return `<figure class="image" data-image="${escapeHtml(n.imageId)}"><figcaption>${escapeHtml(n.alt)}</figcaption></figure>`;
    case 'KeyValue':
      return `<dl class="kv">${((bound(a, n.items) as { label: string; value: unknown }[]) ?? []).map((i) => `<dt>${escapeHtml(i.label)}</dt><dd>${escapeHtml(i.value)}</dd>`).join('')}</dl>`;
    case 'Table': {
      const cols = n.columns as { key: string; label: string; align?: string }[];
      const rows = (bound(a, n.rows) as Record<string, unknown>[]) ?? [];
      const cell = (c: { align?: string }, v: unknown, tag: string) => `<${tag}${c.align === 'end' ? ' class="end"' : ''}>${escapeHtml(v)}</${tag}>`;
      return `<table><thead><tr>${cols.map((c) => cell(c, c.label, 'th')).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${cols.map((c) => cell(c, r[c.key], 'td')).join('')}</tr>`).join('')}</tbody></table>`;
    }
    case 'Chart':
      return `<figure class="chart">${chart((bound(a, n.series) as { name: string; points: { x: unknown; y: number }[] }[]) ?? [], String(n.kind))}</figure>`;
    case 'Progress': {
      const max = Number(n.max ?? 100);
      const value = Number(bound(a, n.value) ?? 0);
      return field(n.label ?? '', `<progress class="${tone}" max="${max}" value="${value}">${escapeHtml(value)}</progress>`);
    }
    case 'Callout':
      return `<aside class="callout tone-${escapeHtml(n.tone)}">${n.title === undefined ? '' : `<strong>${escapeHtml(n.title)}</strong>`}${markdown(String(bound(a, n.markdown) ?? ''))}</aside>`;
    case 'RecordRef':
      return `<span class="chip" data-record="${escapeHtml(n.recordId)}">${escapeHtml(n.label ?? n.recordId)}</span>`;
    case 'ApprovalRef':
      return `<span class="chip approval" data-approval="${escapeHtml(n.approvalId)}">${escapeHtml(n.approvalId)}</span>`;
    case 'TextInput':
      return field(n.label, n.multiline ? `<textarea name="${name}"${req}></textarea>` : `<input type="text" name="${name}"${req}>`);
    case 'NumberInput': {
      const bounds = `${n.min === undefined ? '' : ` min="${escapeHtml(n.min)}"`}${n.max === undefined ? '' : ` max="${escapeHtml(n.max)}"`}`;
      return field(n.label, `<input type="number" name="${name}"${bounds}${n.integer ? ' step="1"' : ' step="any"'}${req}>`);
    }
    case 'Select':
      return field(
        n.label,
        `<select name="${name}"${req}>${(n.options as { value: string; label: string }[]).map((o) => `<option value="${escapeHtml(o.value)}">${escapeHtml(o.label)}</option>`).join('')}</select>`,
      );
    case 'Checkbox':
      return `<label class="check"><input type="checkbox" name="${name}"> ${escapeHtml(n.label)}</label>`;
    case 'DateInput':
      return field(
        n.label,
        `<input type="date" name="${name}"${n.min ? ` min="${escapeHtml(n.min)}"` : ''}${n.max ? ` max="${escapeHtml(n.max)}"` : ''}${req}>`,
      );
    case 'Button':
      return `<button type="button" class="${tone.trim()}" data-action="${escapeHtml(n.actionId)}">${escapeHtml(n.label)}</button>`;
    default:
      return '';
  }
}

/** The page for one artifact; colours: each tone's brand colour (toneColours), behind the host's variables. */
export function artifactHtml(a: ArtifactShape, colours: Record<(typeof TONES)[number], string>): string {
  const nonce = randomBytes(12).toString('base64');
  const byId = new Map((a.components as Node[]).map((c) => [c.id, c]));
  const root = a.components[0] as Node | undefined;
  // Colours are hex values checked by toneColours: safe in CSS.
  const host: Partial<Record<(typeof TONES)[number], string>> = { neutral: '--color-text-primary', brand: '--color-brand-primary' };
  const vars = TONES.map((t) => `--tone-${t}: ${host[t] ? `var(${host[t]}, ${colours[t]})` : colours[t]}`).join('; ');
  const inputsOf = Object.fromEntries((a.actions as { actionId: string; inputs: string[] }[]).map((x) => [x.actionId, x.inputs]));
  const state = a.state === 'posted' ? '' : `<p class="state">${escapeHtml(a.state)}${a.closedBy ? ` by ${escapeHtml(a.closedBy)}` : ''}</p>`;
  // The script's data is JSON inside a script element: `<` escaped so no text can close the element.
  const boot = JSON.stringify({ artifactId: a.id, revision: a.revision, inputs: inputsOf }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; img-src data:">
<title>${escapeHtml(a.title)}</title>
<style>
:root { ${vars}; color-scheme: light dark; }
body { margin: 0; padding: 12px; font-family: var(--font-sans, system-ui, sans-serif); color: var(--tone-neutral); background: var(--color-background-primary, transparent); }
.card, .callout { border: 1px solid var(--color-border-primary, #d1d5db); border-radius: var(--border-radius-md, 8px); padding: 12px; margin: 8px 0; }
.stack.col { display: flex; flex-direction: column; } .stack.row { display: flex; flex-direction: row; flex-wrap: wrap; }
.gap-none { gap: 0; } .gap-small { gap: 4px; } .gap-medium { gap: 8px; } .gap-large { gap: 16px; }
${TONES.map((t) => `.tone-${t} { border-color: var(--tone-${t}); } button.tone-${t} { background: var(--tone-${t}); color: var(--color-background-primary, #fff); }`).join('\n')}
.field { display: flex; flex-direction: column; gap: 2px; } .chip { border-radius: 999px; padding: 2px 8px; border: 1px solid var(--tone-brand); }
table { border-collapse: collapse; } th, td { padding: 4px 8px; border-bottom: 1px solid var(--color-border-primary, #e5e7eb); } .end { text-align: end; }
.s0, .s1, .s2, .s3, .s4 { fill: var(--tone-brand); } .l0, .l1, .l2, .l3, .l4 { stroke: var(--tone-brand); stroke-width: 2; }
button { border: 0; border-radius: var(--border-radius-md, 6px); padding: 6px 12px; font: inherit; cursor: pointer; background: var(--tone-brand); color: var(--color-background-primary, #fff); }
</style></head>
<body><main data-artifact="${escapeHtml(a.id)}"><h1>${escapeHtml(a.title)}</h1>${state}<form onsubmit="return false">${root ? renderNode(a, byId, root) : ''}</form></main>
<script nonce="${nonce}">
const boot = ${boot};
let next = 1;
document.querySelectorAll('button[data-action]').forEach((b) => b.addEventListener('click', () => {
  const values = {};
  for (const name of boot.inputs[b.dataset.action] || []) {
    const el = document.querySelector('[name="' + CSS.escape(name) + '"]');
    if (!el) continue;
    if (el.type === 'checkbox') values[name] = el.checked;
    else if (el.value === '') continue;
    else values[name] = el.type === 'number' ? Number(el.value) : el.value;
  }
  const args = { artifactId: boot.artifactId, actionId: b.dataset.action, revision: boot.revision, values, idempotencyId: boot.artifactId + ':' + b.dataset.action + ':' + Date.now() };
  window.parent.postMessage({ jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name: 'artifact_act', arguments: args } }, '*');
}));
</script></body></html>
`;
}
