// The decision on one approval: the payload hash check, a release's amendments, the approve/reject form, and
// what a release ran. Split from app.js, which lays out the pages.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { hashInBrowser } from './format.js';

export function PayloadCheck({ item, check }) {
  if (!item.signed) {
    return html`<p class="verify" id="hash-check">
      Not a signature: this approval is bound to no held call (subject kind <code>${item.subject.kind}</code>). Its summary is the requester's own words,
      the hash cannot be checked here, and approving it releases no act.
    </p>`;
  }
  if (item.hashMatches === false || (check && check.state === 'mismatch')) {
    return html`<p class="verify bad" id="hash-check">
      The payload above does not hash to this payload hash${check && check.hex ? html` (it hashes to <code>${check.hex}</code>)` : ''}. Do not approve it.
    </p>`;
  }
  if (check === null) return html`<p class="verify" id="hash-check">Checking the hash…</p>`;
  if (check.state === 'unavailable') {
    return html`<p class="verify ok" id="hash-check">Checked by the server: the payload above hashes to this value (this browser offers no Web Crypto to check it again).</p>`;
  }
  return html`<p class="verify ok" id="hash-check"><span aria-hidden="true">✓ </span>Checked in this browser: SHA-256 of the canonical JSON below equals the payload hash.</p>`;
}

/** The text an amendable param is edited as: strings as they are, anything else as JSON. */
const editText = (v) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** The amendments the edits make: changed fields only; emptied means left out (null); non-strings parsed as JSON. */
function amendmentsOf(item, edits) {
  const out = {};
  for (const field of item.amendable || []) {
    const before = item.heldAct.params[field];
    const text = edits[field];
    if (text === undefined || text === editText(before)) continue;
    if (text.trim() === '') out[field] = null;
    else if (before === undefined || typeof before === 'string') out[field] = text.trim();
    else {
      try {
        out[field] = JSON.parse(text);
      } catch {
        throw new Error(`${field}: not valid JSON`);
      }
    }
  }
  return out;
}

/** Release approvals: the amendable params as fields, and the params (and hash) the approve would run. */
function Amendments({ item, edits, setEdits }) {
  const [preview, setPreview] = useState(null);
  let amendments = {};
  let problem = '';
  try {
    amendments = amendmentsOf(item, edits);
  } catch (err) {
    problem = err.message;
  }
  const final = { ...item.heldAct.params };
  for (const [k, v] of Object.entries(amendments)) {
    if (v === null) delete final[k];
    else final[k] = v;
  }
  const changed = Object.keys(amendments);
  const text = JSON.stringify(final);
  useEffect(() => {
    let live = true;
    hashInBrowser({ actionClass: item.actionClass, subjectId: item.subject.subjectId, params: final }).then(
      (r) => live && setPreview(r && r.hex),
      () => live && setPreview(null),
    );
    return () => {
      live = false;
    };
  }, [text]);
  if (!item.amendable || item.amendable.length === 0) return null;
  return html`<fieldset class="amend">
    <legend>Amend before approving (optional)</legend>
    ${item.amendable.map(
      (field) => html`<div class="amend-field">
        <label for=${`amend-${field}`}><code>${field}</code></label>
        <input
          id=${`amend-${field}`}
          type="text"
          spellcheck="false"
          value=${edits[field] !== undefined ? edits[field] : editText(item.heldAct.params[field])}
          onInput=${(e) => setEdits({ ...edits, [field]: e.currentTarget.value })}
        />
      </div>`,
    )}
    <p class="help">Leave a field empty to leave it out. The act runs with the params below; the server checks them against the act's own rules.</p>
    ${problem && html`<p class="error" role="alert">${problem}</p>`}
    ${
      changed.length > 0 &&
      html`<p>You changed <strong>${changed.join(', ')}</strong>. Approving runs the act with:</p>
      <pre class="json" tabindex="0" aria-label="Params the approve would run"><code>${JSON.stringify(final, null, 2)}</code></pre>
      ${preview && html`<p class="hash-label">Their payload hash: <code class="hash" id="amended-hash">${preview}</code></p>`}`
    }
  </fieldset>`;
}

export function DecisionForm({ item, principal, blocked, onDecided, onAuthError }) {
  const [note, setNote] = useState('');
  const [edits, setEdits] = useState({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  if (item.mine) return html`<p class="note">You filed this request, so another human must decide it.</p>`;
  if (!principal.canDecide) return html`<p class="note">Your key cannot decide approvals (it lacks the approval.decide scope).</p>`;
  if (item.notDecider) return html`<p class="note">Only ${item.deciderNames.join(', ')} may decide this approval.</p>`;
  const release = item.completion === 'release';
  const submit = async (e) => {
    e.preventDefault();
    const decision = e.submitter && e.submitter.value;
    if (decision !== 'approve' && decision !== 'reject') return;
    setBusy(true);
    setError('');
    try {
      const amendments = release && decision === 'approve' ? amendmentsOf(item, edits) : {};
      const body = { decision, note, ...(Object.keys(amendments).length > 0 ? { amendments } : {}) };
      const result = await api('POST', `/approvals/api/approvals/${encodeURIComponent(item.approvalId)}/decision`, body);
      onDecided(result);
    } catch (err) {
      if (err.code === 'UNAUTHORIZED') onAuthError(err);
      else setError(err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="decide" onSubmit=${submit}>
    ${release && html`<p class="note">Approving runs this act now, in your decision: the agent does not act again.</p>`}
    ${release && html`<${Amendments} item=${item} edits=${edits} setEdits=${setEdits} />`}
    <label for="note">Note (optional)</label>
    <textarea id="note" name="note" rows="3" maxlength="2000" aria-describedby="note-help" value=${note} onInput=${(e) => setNote(e.currentTarget.value)}></textarea>
    <p id="note-help" class="help">Saved with the decision; the agent that asked sees it when it reads or waits for the approval.</p>
    <p class="error" role="alert">${error}</p>
    <div class="actions">
      <button type="submit" name="decision" value="approve" class="approve" disabled=${busy || blocked}>${release ? 'Approve and run' : 'Approve'}</button>
      <button type="submit" name="decision" value="reject" class="reject" disabled=${busy}>Reject</button>
    </div>
  </form>`;
}

/** What a release approval ran: the final params, the fields the human changed, and their hash. */
export function Released({ item }) {
  if (!item.released) return null;
  return html`<section aria-labelledby="released-heading">
    <h2 id="released-heading">What ran</h2>
    <p>
      Approving ran <code>${item.heldAct.method}</code> in the decision${
        item.released.amended.length > 0 ? html`, with <strong>${item.released.amended.join(', ')}</strong> amended` : ' with the held params unchanged'
      }:
    </p>
    <pre class="json" tabindex="0" aria-label="Params the act ran with"><code>${JSON.stringify(item.released.params, null, 2)}</code></pre>
    <p class="hash-label">Their payload hash:</p>
    <p><code class="hash" id="released-hash">${item.released.payloadHash}</code></p>
    ${item.releasedHashMatches === false && html`<p class="verify bad">These params do not hash to this value.</p>`}
  </section>`;
}
