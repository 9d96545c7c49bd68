// The invitation page: /join?token=… shows whose invitation it is and accepts it; the key is shown once. Preact
// components written with htm tagged templates, served as plain ES modules (no build step). The token leaves
// the address bar at once and lives only in this module's memory; it is sent in POST bodies, never in a URL again.
import { html, render } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';

const token = new URLSearchParams(location.search).get('token');
if (token) history.replaceState(null, '', '/join');

class CallError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

async function post(path, body) {
  let res;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    throw new CallError('NETWORK', 'The server could not be reached. Check the connection and try again.');
  }
  let data;
  try {
    data = await res.json();
  } catch {
    throw new CallError('INTERNAL', `The server answered ${res.status} without a readable body.`);
  }
  if (!data || data.ok !== true) throw new CallError(data?.error?.code || 'INTERNAL', data?.error?.message || `The server answered ${res.status}.`);
  return data.result;
}

const ROLE = {
  admin: 'an admin (every permission)',
  approver: 'an approver (decides approvals, reads everything)',
  member: 'a member (works with everything except admin and approvals)',
  viewer: 'a viewer (reads everything)',
};

const date = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'long', timeStyle: 'short' });

/** A heading that takes focus when it appears, so screen readers announce each new step. */
function Heading({ children }) {
  const ref = useRef(null);
  useEffect(() => ref.current?.focus(), []);
  return html`<h1 tabindex="-1" ref=${ref}>${children}</h1>`;
}

function Problem({ title, children }) {
  return html`<main class="narrow"><${Heading}>${title}</${Heading}>${children}</main>`;
}

/** Expired, withdrawn or already used: say so, and what to do. */
function Closed({ view }) {
  const ask = html`<p>Ask <strong>${view.inviterName}</strong> or another admin of ${view.org.name} ${view.state === 'expired' ? 'to resend it: you will get a new link.' : 'to invite you again.'}</p>`;
  if (view.state === 'accepted') {
    return html`<${Problem} title="This invitation was already used">
      <p>The invitation to join <strong>${view.org.name}</strong> was accepted, and its API key was shown once, on this page.</p>
      <p>If you did not store it, ask an admin of ${view.org.name} to mint you a new key.</p>
    </${Problem}>`;
  }
  if (view.state === 'revoked')
    return html`<${Problem} title="This invitation was withdrawn"><p>The invitation to join <strong>${view.org.name}</strong> is no longer valid.</p>${ask}</${Problem}>`;
  return html`<${Problem} title="This invitation has expired"><p>The invitation to join <strong>${view.org.name}</strong> expired on ${date(view.expiresAt)}.</p>${ask}</${Problem}>`;
}

function Invitation({ view, onAccepted }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      onAccepted(await post('/join/api/accept', { token }));
    } catch (err) {
      setError(err.message);
      setBusy(false);
    }
  };
  return html`<main class="narrow">
    <${Heading}>Join ${view.org.name}</${Heading}>
    <p><strong>${view.inviterName}</strong> invited you (${view.email}) to join <strong>${view.org.name}</strong> as ${ROLE[view.role] || view.role}.</p>
    <dl class="facts">
      <dt>Your name in the directory</dt><dd>${view.memberName}</dd>
      <dt>Role</dt><dd>${view.role}</dd>
      <dt>Valid until</dt><dd>${date(view.expiresAt)}</dd>
    </dl>
    <p>Accepting gives you an API key for ${view.org.name}. It is shown once, on the next screen.</p>
    <div role="alert" class="error">${error}</div>
    <button type="button" class="primary" onClick=${accept} disabled=${busy}>${busy ? 'Accepting…' : 'Accept invitation'}</button>
  </main>`;
}

function Key({ accepted }) {
  const [copied, setCopied] = useState('');
  const field = useRef(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(accepted.apiKey);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  };
  return html`<main class="narrow">
    <${Heading}>Welcome to ${accepted.org.name}</${Heading}>
    <p>You joined as ${accepted.role}. This is your API key. <strong>It is shown only this once</strong>: store it now in a password manager.</p>
    <label for="key">Your API key</label>
    <div class="key">
      <input id="key" ref=${field} readonly value=${accepted.apiKey} spellcheck="false" autocomplete="off" onFocus=${(e) => e.target.select()} />
      <button type="button" class="primary" onClick=${copy}>Copy key</button>
    </div>
    <p role="status" class="status">${copied}</p>
    <h2>Using it</h2>
    <p>Send it with every call to the API of ${accepted.org.name}:</p>
    <pre><code>curl ${location.origin}/api/v1/org/whoami -H "Authorization: Bearer ${'<your key>'}"</code></pre>
    ${accepted.role === 'admin' || accepted.role === 'approver' ? html`<p>Approvals waiting for a human are in the <a href="/approvals">approval inbox</a>: sign in there with this key.</p>` : null}
    <p>If it is ever lost or leaked, ask an admin to revoke it (key ${accepted.keyId}) and mint you a new one.</p>
  </main>`;
}

function App() {
  const [state, setState] = useState(token ? { step: 'loading' } : { step: 'no-token' });
  useEffect(() => {
    if (!token) return;
    post('/join/api/invitation', { token }).then(
      (view) => setState({ step: view.state === 'pending' ? 'invitation' : 'closed', view }),
      (err) => setState({ step: 'error', err }),
    );
  }, []);
  if (state.step === 'loading') return html`<main class="narrow"><h1>Invitation</h1><p role="status">Loading…</p></main>`;
  if (state.step === 'no-token') {
    return html`<${Problem} title="Open the link from your invitation">
      <p>This page needs the whole link from your invitation mail (it ends with <code>?token=…</code>). Open that link again, or ask whoever invited you to resend it.</p>
    </${Problem}>`;
  }
  if (state.step === 'error') {
    const title =
      state.err.code === 'RATE_LIMITED' ? 'Too many attempts' : state.err.code === 'NOT_FOUND' ? 'This invitation link is not valid' : 'Something went wrong';
    return html`<${Problem} title=${title}><p>${state.err.message}</p></${Problem}>`;
  }
  if (state.step === 'closed') return html`<${Closed} view=${state.view} />`;
  if (state.step === 'accepted') return html`<${Key} accepted=${state.accepted} />`;
  return html`<${Invitation} view=${state.view} onAccepted=${(accepted) => setState({ step: 'accepted', accepted })} />`;
}

render(html`<${App} />`, document.getElementById('app'));
