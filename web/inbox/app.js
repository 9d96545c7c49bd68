// The approval inbox: Preact components written with htm tagged templates, served as plain ES modules (no
// build step). Routes: /approvals (pending; ?view=decided for decided ones, ?view=waiting for what waits on you)
// and /approvals/<approvalId>.
import { html, render } from 'htm/preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { api, setCsrfToken } from './api.js';
import { STATUS, hashInBrowser, timeLeft, urgent, when, who } from './format.js';
import { DecisionForm, PayloadCheck, Released } from './decision.js';
import { Waiting, useWaiting } from './waiting.js';

const Navigate = createContext(() => {});

function parseRoute(loc) {
  const m = /^\/approvals\/(apr_[0-9a-z]+)\/?$/.exec(loc.pathname);
  if (m) return { page: 'detail', id: m[1] };
  const view = new URLSearchParams(loc.search).get('view');
  return { page: 'list', view: view === 'decided' || view === 'waiting' ? view : 'pending' };
}

/** An ordinary link (keyboard, new tab, copy) that navigates in place when simply clicked. */
function Link({ href, children, ...rest }) {
  const navigate = useContext(Navigate);
  const onClick = (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${onClick} ...${rest}>${children}</a>`;
}

function useNow(ms = 1000) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

// ---- sign-in ------------------------------------------------------------------------------------

function SignIn({ route, reason, onSignedIn }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef(null);
  useEffect(() => {
    document.title = 'Sign in · Approval inbox';
    input.current && input.current.focus();
  }, []);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const result = await api('POST', '/approvals/api/session', { apiKey: key });
      setKey('');
      onSignedIn(result);
    } catch (err) {
      setError(err.message);
      input.current && input.current.focus();
    } finally {
      setBusy(false);
    }
  };
  return html`
    <main class="narrow" id="main">
      <h1>Approval inbox</h1>
      <p>Review and decide what agents asked to do: pay runs, bills, BAS lodgements, deleting what cannot be restored and the other acts that need a human decision.</p>
      ${route.page === 'detail' && html`<p class="note">Sign in to open approval <code>${route.id}</code>.</p>`}
      ${reason && html`<p class="note" role="status">${reason}</p>`}
      <form class="signin" onSubmit=${submit} novalidate>
        <label for="api-key">Human API key</label>
        <input
          id="api-key"
          ref=${input}
          type="password"
          name="apiKey"
          autocomplete="off"
          spellcheck="false"
          required
          aria-describedby="api-key-help${error ? ' signin-error' : ''}"
          aria-invalid=${error ? 'true' : 'false'}
          value=${key}
          onInput=${(e) => setKey(e.currentTarget.value)}
        />
        <p id="api-key-help" class="help">
          A key of tier <strong>approver</strong> or <strong>admin</strong>. Agent keys cannot sign in. The key is exchanged for a
          session cookie on this server: it is never put in a URL or stored in this browser.
        </p>
        <p id="signin-error" class="error" role="alert">${error}</p>
        <button type="submit" class="primary" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  `;
}

// ---- shared pieces ------------------------------------------------------------------------------

const Badge = ({ status }) => html`<span class="badge badge-${status}">${STATUS[status] || status}</span>`;

function Facts({ facts, children }) {
  return html`<dl class="facts">
    ${facts.map((f) => html`<div><dt>${f.label}</dt><dd>${f.value}</dd></div>`)}
    ${children}
  </dl>`;
}

function Requested({ item, now }) {
  return html`<p class="meta">
    Requested by <strong>${who(item.requestedByName, item.requestedBy)}</strong> on <time datetime=${item.requestedAt}>${when(item.requestedAt)}</time>
    ${
      item.status === 'pending' &&
      html` · <span class=${urgent(item.expiresAt, now) ? 'left urgent' : 'left'}><time datetime=${item.expiresAt}>${timeLeft(item.expiresAt, now)}</time></span>`
    }
  </p>`;
}

function Decided({ item }) {
  if (item.status === 'expired') return html`<p class="meta">Expired undecided on <time datetime=${item.expiresAt}>${when(item.expiresAt)}</time>.</p>`;
  if (!item.decidedAt) return null;
  return html`<p class="meta">
    ${STATUS[item.status]} by <strong>${who(item.decidedByName, item.decidedBy)}</strong> on <time datetime=${item.decidedAt}>${when(item.decidedAt)}</time>${item.note ? html`: “${item.note}”` : ''}
    ${item.used ? html` · used by the act on <time datetime=${item.usedAt}>${when(item.usedAt)}</time>` : item.status === 'approved' ? ' · not used yet' : ''}
  </p>`;
}

// ---- lists --------------------------------------------------------------------------------------

function ApprovalCard({ item, now, fresh }) {
  return html`<li class="card" data-approval-id=${item.approvalId}>
    <div class="card-head">
      <h2><${Link} href=${`/approvals/${item.approvalId}`}>${item.plain.title}<//></h2>
      ${fresh && html`<span class="badge badge-new">New</span>`}
      <${Badge} status=${item.status} />
    </div>
    <p class="summary">${item.subject.summary}</p>
    ${item.plain.facts.length > 0 && html`<${Facts} facts=${item.plain.facts} />`}
    <${Requested} item=${item} now=${now} />
    ${item.status !== 'pending' && html`<${Decided} item=${item} />`}
  </li>`;
}

function List({ view, items, now, fresh }) {
  const title = view === 'pending' ? 'Pending approvals' : 'Decided approvals';
  if (items === null) return html`<h1 tabindex="-1">${title}</h1><p>Loading…</p>`;
  return html`
    <h1 tabindex="-1">${title}</h1>
    ${
      items.length === 0
        ? html`<p class="empty">${view === 'pending' ? 'Nothing is waiting for a decision. New requests appear here as they arrive.' : 'No approval has been decided yet.'}</p>`
        : html`<ul class="cards">
          ${items.map((item) => html`<${ApprovalCard} key=${item.approvalId} item=${item} now=${now} fresh=${fresh.has(item.approvalId)} />`)}
        </ul>`
    }
  `;
}

// ---- one approval -------------------------------------------------------------------------------

function Detail({ id, principal, now, version, onAuthError }) {
  const [item, setItem] = useState(null);
  const [loadError, setLoadError] = useState('');
  const [check, setCheck] = useState(null);
  const [outcome, setOutcome] = useState('');
  const outcomeRef = useRef(null);

  useEffect(() => {
    let live = true;
    api('GET', `/approvals/api/approvals/${encodeURIComponent(id)}`).then(
      (result) => live && (setItem(result), setLoadError('')),
      (err) => (err.code === 'UNAUTHORIZED' ? onAuthError(err) : live && setLoadError(err.message)),
    );
    return () => {
      live = false;
    };
  }, [id, version]);

  useEffect(() => {
    setCheck(null);
    if (!item || !item.signed) return;
    let live = true;
    hashInBrowser(item.signed).then(
      (r) => live && setCheck(r === null ? { state: 'unavailable' } : { state: r.hex === item.payloadHash ? 'ok' : 'mismatch', hex: r.hex }),
      () => live && setCheck({ state: 'unavailable' }),
    );
    return () => {
      live = false;
    };
  }, [item && item.approvalId, item && item.payloadHash]);

  useEffect(() => {
    if (item) document.title = `${item.plain.title} · Approval inbox`;
  }, [item]);

  useEffect(() => {
    if (outcome && outcomeRef.current) outcomeRef.current.focus();
  }, [outcome]);

  const decided = (result) => {
    setItem(result);
    setOutcome(
      result.status !== 'approved'
        ? 'Rejected. The act cannot run on this approval.'
        : result.completion === 'release'
          ? 'Approved and run: the act ran in this decision.'
          : 'Approved. The agent that asked can now retry the act with this approval; it runs once.',
    );
  };

  // The heading stays the same element while the approval loads, so focus moved to it stays there.
  const head = html`<p class="back"><${Link} href="/approvals">← All pending approvals<//></p>
    <div class="title-row">
      <h1 tabindex="-1">${item ? item.plain.title : `Approval ${id}`}</h1>
      ${item && html`<${Badge} status=${item.status} />`}
    </div>`;
  if (loadError) return html`${head}<p class="error" role="alert">${loadError}</p>`;
  if (!item) return html`${head}<p>Loading…</p>`;
  const blocked = item.hashMatches === false || (check !== null && check.state === 'mismatch');
  return html`
    ${head}
    <p class="summary lead">${item.subject.summary}</p>
    <${Facts} facts=${item.plain.facts}>
      <div><dt>Requested by</dt><dd>${who(item.requestedByName, item.requestedBy)}</dd></div>
      <div><dt>Requested</dt><dd><time datetime=${item.requestedAt}>${when(item.requestedAt)}</time></dd></div>
      ${
        item.status === 'pending'
          ? html`<div><dt>Time left</dt><dd class=${urgent(item.expiresAt, now) ? 'urgent' : ''}><time datetime=${item.expiresAt}>${timeLeft(item.expiresAt, now)}</time> (until ${when(item.expiresAt)})</dd></div>`
          : html`<div><dt>Expires</dt><dd><time datetime=${item.expiresAt}>${when(item.expiresAt)}</time></dd></div>`
      }
      <div><dt>Approval</dt><dd><code>${item.approvalId}</code></dd></div>
      ${item.deciderNames && html`<div><dt>May be decided by</dt><dd>${item.deciderNames.join(', ')}</dd></div>`}
      ${item.completion === 'release' && html`<div><dt>When approved</dt><dd>the act runs in the decision</dd></div>`}
    <//>
    ${item.status !== 'pending' && html`<${Decided} item=${item} />`}
    ${outcome && html`<p class="outcome" role="status" tabindex="-1" ref=${outcomeRef}>${outcome}</p>`}

    <section aria-labelledby="payload-heading">
      <h2 id="payload-heading">Exact payload behind the hash</h2>
      ${
        item.signed
          ? html`<p>The held call <code>${item.heldAct.method}</code> on <code>${item.subject.subjectId}</code>, action class <code>${item.actionClass}</code>, with these params:</p>
            <pre class="json" tabindex="0" aria-label="Held params as JSON"><code>${JSON.stringify(item.heldAct.params, null, 2)}</code></pre>`
          : null
      }
      <p class="hash-label">Payload hash (SHA-256 of the canonical JSON of actionClass, subjectId and params):</p>
      <p><code class="hash" id="payload-hash">${item.payloadHash}</code></p>
      <${PayloadCheck} item=${item} check=${check} />
      ${
        item.canonical &&
        html`<details>
        <summary>Canonical JSON that was hashed</summary>
        <pre class="json" tabindex="0" aria-label="Canonical JSON"><code>${item.canonical}</code></pre>
      </details>`
      }
    </section>

    <${Released} item=${item} />

    ${
      item.status === 'pending' &&
      html`<section aria-labelledby="decide-heading">
      <h2 id="decide-heading">Your decision</h2>
      <${DecisionForm} item=${item} principal=${principal} blocked=${blocked} onDecided=${decided} onAuthError=${onAuthError} />
    </section>`
    }
  `;
}

// ---- the signed-in inbox ------------------------------------------------------------------------

function Inbox({ principal, route, onSignedOut }) {
  const now = useNow();
  const [pending, setPending] = useState(null);
  const [decided, setDecided] = useState(null);
  const [error, setError] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const [fresh, setFresh] = useState(() => new Set());
  const [version, setVersion] = useState(0);
  const first = useRef(true);
  const pendingRef = useRef([]);

  const onAuthError = useCallback(() => onSignedOut('Your session ended (signed out, expired, or the key was revoked). Sign in again.'), [onSignedOut]);
  const waiting = useWaiting({ onAuthError, announce: setAnnouncement });
  const reloadWaiting = useRef(waiting.reload);
  reloadWaiting.current = waiting.reload;

  const load = useCallback(async () => {
    try {
      const p = await api('GET', '/approvals/api/approvals?view=pending');
      pendingRef.current = p.approvals;
      setPending(p.approvals);
      if (route.page === 'list' && route.view === 'decided') setDecided((await api('GET', '/approvals/api/approvals?view=decided')).approvals);
      setError('');
      return p.approvals;
    } catch (err) {
      if (err.code === 'UNAUTHORIZED') onAuthError(err);
      else setError(err.message);
      return null;
    }
  }, [route.page, route.view, onAuthError]);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    load();
  }, [load]);

  // Live updates: the server says which approval changed; the lists are read again through the API.
  useEffect(() => {
    const stream = new EventSource('/approvals/api/stream');
    stream.addEventListener('approval', async (e) => {
      const change = JSON.parse(e.data);
      const before = pendingRef.current;
      reloadWaiting.current();
      const list = await loadRef.current();
      setVersion((v) => v + 1);
      if (!list) return;
      if (change.change === 'requested') {
        const item = list.find((a) => a.approvalId === change.approvalId);
        if (item && !before.some((a) => a.approvalId === item.approvalId)) {
          setFresh((s) => new Set(s).add(item.approvalId));
          setAnnouncement(`New approval waiting: ${item.plain.title}. ${item.subject.summary}`);
        }
      } else {
        const item = before.find((a) => a.approvalId === change.approvalId);
        if (item) setAnnouncement(`${item.plain.title} was ${change.change}.`);
      }
    });
    // (Re)connected, or the server's own notifications were interrupted: whatever happened meanwhile is read again.
    // Something that waits on someone changed (a decision, an offer, an escalation, an introduction): read it again.
    stream.addEventListener('waiting', () => reloadWaiting.current());
    stream.addEventListener('ready', () => (loadRef.current(), reloadWaiting.current()));
    stream.addEventListener('resync', () => (loadRef.current(), reloadWaiting.current()));
    stream.addEventListener('end', (e) => {
      stream.close();
      const { reason } = JSON.parse(e.data);
      onSignedOut(reason === 'signed out' ? 'You signed out.' : `Your session ended (${reason}). Sign in again.`);
    });
    stream.onerror = () => {
      // A closed stream (not a reconnect) usually means the session is gone: ask.
      if (stream.readyState !== EventSource.CLOSED) return;
      api('GET', '/approvals/api/session').catch((err) => (err.code === 'UNAUTHORIZED' ? onAuthError() : setError(`Live updates stopped: ${err.message}`)));
    };
    // Expiry is not announced (nothing happens at that moment): re-read now and then.
    const poll = setInterval(() => loadRef.current(), 30_000);
    return () => {
      stream.close();
      clearInterval(poll);
    };
  }, []);

  // Move focus to the new view's heading (not on first load: the browser's own start point stays).
  useEffect(() => {
    setAnnouncement('');
    if (route.page === 'list') document.title = `${{ pending: 'Pending', decided: 'Decided', waiting: 'Waiting on you' }[route.view]} · Approval inbox`;
    if (first.current) {
      first.current = false;
      return;
    }
    const h = document.querySelector('main h1');
    h && h.focus();
  }, [route.page, route.view, route.id]);

  const signOut = async () => {
    try {
      await api('DELETE', '/approvals/api/session');
    } catch (err) {
      if (err.code !== 'UNAUTHORIZED') return setError(err.message);
    }
    onSignedOut('You signed out.');
  };

  const current = (view) => (route.page === 'list' && route.view === view ? 'page' : undefined);
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header class="bar">
      <div class="wrap bar-row">
        <p class="brand">Approval inbox <span class="org">${principal.orgSlug}</span></p>
        <p class="me">Signed in as <strong>${principal.name}</strong> (${principal.tier || principal.kind})</p>
        <button type="button" class="quiet" onClick=${signOut}>Sign out</button>
      </div>
    </header>
    <nav class="tabs wrap" aria-label="Approvals">
      <${Link} href="/approvals" aria-current=${current('pending')}>Pending${pending ? ` (${pending.length})` : ''}<//>
      <${Link} href="/approvals?view=waiting" aria-current=${current('waiting')}>Waiting on you${waiting.waiting ? ` (${waiting.waiting.total})` : ''}<//>
      <${Link} href="/approvals?view=decided" aria-current=${current('decided')}>Decided<//>
    </nav>
    <div class="wrap">
      <p class="announce" role="status" aria-live="polite">${announcement}</p>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </div>
    <main id="main" class="wrap" tabindex="-1">
      ${
        route.page === 'detail'
          ? html`<${Detail} key=${route.id} id=${route.id} principal=${principal} now=${now} version=${version} onAuthError=${onAuthError} />`
          : route.view === 'waiting'
            ? html`<${Waiting} state=${waiting} now=${now} Link=${Link} />`
            : html`<${List} view=${route.view} items=${route.view === 'pending' ? pending : decided} now=${now} fresh=${fresh} />`
      }
    </main>
  `;
}

// ---- root ---------------------------------------------------------------------------------------

function App() {
  const [route, setRoute] = useState(() => parseRoute(location));
  const [principal, setPrincipal] = useState(undefined);
  const [reason, setReason] = useState('');

  const navigate = useCallback((href) => {
    history.pushState(null, '', href);
    setRoute(parseRoute(location));
  }, []);

  useEffect(() => {
    const onPop = () => setRoute(parseRoute(location));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);

  useEffect(() => {
    api('GET', '/approvals/api/session').then(
      (r) => (setCsrfToken(r.csrfToken), setPrincipal(r.principal)),
      () => setPrincipal(null),
    );
  }, []);

  const signedIn = useCallback((r) => {
    setCsrfToken(r.csrfToken);
    setReason('');
    setPrincipal(r.principal);
  }, []);
  const signedOut = useCallback((why) => {
    setCsrfToken(null);
    setReason(why || '');
    setPrincipal(null);
  }, []);

  if (principal === undefined) return html`<main class="narrow" id="main"><h1>Approval inbox</h1><p>Loading…</p></main>`;
  return html`<${Navigate.Provider} value=${navigate}>
    ${
      principal === null
        ? html`<${SignIn} route=${route} reason=${reason} onSignedIn=${signedIn} />`
        : html`<${Inbox} principal=${principal} route=${route} onSignedOut=${signedOut} />`
    }
  <//>`;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
