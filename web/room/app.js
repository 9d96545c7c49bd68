// The deal room: what a seller shares with a buyer. The link carries the token in its #t= fragment (never sent to
// the server); the app reads it, drops it from the address bar at once and keeps it only in this module's memory,
// sending it as `Authorization: Guest <token>`. Downloads go through fetch with that header, never through a URL.
import { html, render } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';

const token = new URLSearchParams(location.hash.slice(1)).get('t');
if (location.hash) history.replaceState(null, '', '/room');

class CallError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function get(path) {
  let res;
  try {
    res = await fetch(path, { headers: { authorization: `Guest ${token}`, accept: 'application/json' }, cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new CallError(0, 'NETWORK', 'The server could not be reached. Check the connection and try again.');
  }
  if (!res.ok) {
    let data;
    try {
      data = await res.json();
    } catch {
      data = null;
    }
    throw new CallError(res.status, data?.error?.code || 'INTERNAL', data?.error?.message || `The server answered ${res.status}.`);
  }
  return res;
}

/** Save what a guest request answers as a file (the header cannot ride on a plain link). */
async function save(path, name) {
  const blob = await (await get(path)).blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const money = (cents, currency) => {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 10 ** digits);
};
const date = (iso) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'long' });
const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const size = (n) => (n < 1024 ? `${n} bytes` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`);
const STEP = { send_contract: 'Contract', executive_contact: 'Executive contact', free_pilot: 'Pilot', custom: 'Next step' };

function Heading({ children }) {
  const ref = useRef(null);
  useEffect(() => ref.current?.focus(), []);
  return html`<h1 tabindex="-1" ref=${ref}>${children}</h1>`;
}

function Offer({ offer }) {
  return html`<section aria-labelledby="offer">
    <h2 id="offer">Offer</h2>
    <dl class="facts">
      <dt>Net price</dt><dd>${money(offer.netCents, offer.currency)}</dd>
      <dt>List price</dt><dd>${money(offer.listCents, offer.currency)}</dd>
      ${offer.discountBps > 0 ? html`<dt>Discount</dt><dd>${(offer.discountBps / 100).toFixed(2).replace(/\.00$/, '')}%</dd>` : null}
      <dt>Term</dt><dd>${offer.termMonths} months</dd>
      <dt>Payment</dt><dd>${offer.paymentDays} days</dd>
    </dl>
    ${offer.clauses.length ? html`<ul>${offer.clauses.map((c) => html`<li>${c.text || c.code}</li>`)}</ul>` : null}
  </section>`;
}

function Files({ files }) {
  const [error, setError] = useState('');
  const download = (f) => save(`/room/api/files/${encodeURIComponent(f.id)}`, f.name).catch((e) => setError(e.message));
  return html`<section aria-labelledby="files">
    <h2 id="files">Files</h2>
    <ul>
      ${files.map(
        (f) => html`<li>
          ${f.downloadable ? html`<button type="button" class="link" onClick=${() => download(f)}>${f.name}</button>` : html`<span>${f.name}</span>`}
          ${' '}<span class="meta">${f.kind === 'upload' ? size(f.sizeBytes) : f.kind}${f.downloadable ? '' : ', view only'}</span>
        </li>`,
      )}
    </ul>
    <p role="alert">${error}</p>
  </section>`;
}

function Calls({ calls }) {
  const [error, setError] = useState('');
  const ics = (k) => save(`/room/api/calls/${encodeURIComponent(k.id)}.ics`, `${k.id}.ics`).catch((e) => setError(e.message));
  return html`<section aria-labelledby="calls">
    <h2 id="calls">Your calls</h2>
    <ul>
      ${calls.map(
        (k) => html`<li>
          ${k.title || 'Call'} <span class="meta">${when(k.startedAt)}${k.status === 'live' ? ', live now' : ''}</span>
          ${' '}<button type="button" class="link" onClick=${() => ics(k)}>Add to calendar</button>
        </li>`,
      )}
    </ul>
    <p role="alert">${error}</p>
  </section>`;
}

function Room({ view }) {
  return html`<main>
    <${Heading}>${view.deal.name}</${Heading}>
    <p class="meta">For ${view.guest.name}${view.deal.accountName ? html`, ${view.deal.accountName}` : null}. This link works until ${date(view.guest.expiresAt)}.</p>
    ${view.offer ? html`<${Offer} offer=${view.offer} />` : null}
    ${
      view.nextSteps.length
        ? html`<section aria-labelledby="steps"><h2 id="steps">Next steps</h2>
          <ul>${view.nextSteps.map((s) => html`<li>${s.title || STEP[s.kind] || s.kind}</li>`)}</ul></section>`
        : null
    }
    ${view.files.length ? html`<${Files} files=${view.files} />` : null}
    ${view.calls.length ? html`<${Calls} calls=${view.calls} />` : null}
    ${
      view.contacts.length
        ? html`<section aria-labelledby="people"><h2 id="people">People on this deal</h2>
          <ul>${view.contacts.map((c) => html`<li>${c.name}</li>`)}</ul></section>`
        : null
    }
  </main>`;
}

function Problem({ title, children }) {
  return html`<main><${Heading}>${title}</${Heading}>${children}</main>`;
}

function App() {
  const [state, setState] = useState(token ? { step: 'loading' } : { step: 'no-token' });
  useEffect(() => {
    if (!token) return;
    get('/room/api/view')
      .then((res) => res.json())
      .then(
        (data) => setState({ step: 'room', view: data.result }),
        (err) => setState({ step: 'error', err }),
      );
  }, []);
  if (state.step === 'loading') return html`<main><h1>Deal room</h1><p role="status">Loading…</p></main>`;
  if (state.step === 'no-token') {
    return html`<${Problem} title="Open the link you were sent">
      <p>This page needs the whole link you were sent (it ends with <code>#t=…</code>). Open that link again, or ask whoever shared the room for a new one.</p>
    </${Problem}>`;
  }
  if (state.step === 'error') {
    const title = state.err.status === 404 ? 'This room link is not valid' : state.err.code === 'RATE_LIMITED' ? 'Too many requests' : 'Something went wrong';
    return html`<${Problem} title=${title}><p>${state.err.status === 404 ? 'It may have expired or been revoked. Ask whoever shared the room for a new link.' : state.err.message}</p></${Problem}>`;
  }
  return html`<${Room} view=${state.view} />`;
}

render(html`<${App} />`, document.getElementById('app'));
