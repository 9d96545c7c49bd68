// "Waiting on you": everything that waits on the signed-in human across the workspace (GET /api/v1/org/inbox, through
// /approvals/api/waiting): approvals to decide, decisions to sign or decide, handoffs offered, escalations assigned,
// introductions asked. Split from app.js, which lays out the pages and owns the live stream; it calls reload when
// the stream says something of these families changed.
import { html } from 'htm/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import { timeLeft, urgent, when, who } from './format.js';

/** Each kind in plain words: its badge, its line in the counts (one, many), and what to do. */
const KINDS = {
  approval: { badge: 'Approval', one: 'approval to decide', many: 'approvals to decide' },
  signature: { badge: 'Your signature', one: 'decision to sign', many: 'decisions to sign' },
  decision: { badge: 'Your decision', one: 'decision to make', many: 'decisions to make' },
  handoff: { badge: 'Handoff', one: 'handoff offered to you', many: 'handoffs offered to you' },
  escalation: { badge: 'Escalation', one: 'escalation assigned to you', many: 'escalations assigned to you' },
  introduction: { badge: 'Introduction', one: 'introduction request', many: 'introduction requests' },
};
const ORDER = Object.keys(KINDS);

/** Re-read no sooner than this after a change the clock brings (the browser's clock may differ from the server's). */
const MIN_TIMER_MS = 15_000;

/** The item as one sentence for the screen-reader announcement of a new one. */
const spoken = (item) => `${KINDS[item.kind].badge}: ${item.title}${item.fromName || item.from ? `, from ${item.fromName || item.from}` : ''}.`;

/**
 * The "Waiting on you" list and how it stays current: read once, again on reload() (the live stream), and when the
 * read's nextChangeAt comes (an expiry, an escalation climbing). Reloads asked for during a read run once after it.
 * Items that arrive after the first read are marked fresh and announced (approvals by the approvals list).
 */
export function useWaiting({ onAuthError, announce }) {
  const [waiting, setWaiting] = useState(null);
  const [error, setError] = useState('');
  const [fresh, setFresh] = useState(() => new Set());
  const known = useRef(null);
  const busy = useRef(false);
  const again = useRef(false);

  const reload = useCallback(async () => {
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    try {
      do {
        again.current = false;
        try {
          const result = await api('GET', '/approvals/api/waiting');
          const arrived = known.current ? result.items.filter((i) => !known.current.has(i.id)) : [];
          known.current = new Set(result.items.map((i) => i.id));
          setWaiting(result);
          setError('');
          if (arrived.length > 0) {
            setFresh((s) => new Set([...s, ...arrived.map((i) => i.id)]));
            // A new approval is announced by the approvals list already, in its own words: not twice.
            const told = arrived.filter((i) => i.kind !== 'approval');
            if (told.length > 0) announce(`Now waiting on you: ${told.map(spoken).join(' ')}`);
          }
        } catch (err) {
          if (err.code === 'UNAUTHORIZED') onAuthError(err);
          else setError(`“Waiting on you” could not be read: ${err.message}`);
        }
      } while (again.current);
    } finally {
      busy.current = false;
    }
  }, [onAuthError, announce]);

  useEffect(() => {
    reload();
  }, [reload]);

  // The clock alone changes the list at nextChangeAt: read again then.
  const next = waiting && waiting.nextChangeAt;
  useEffect(() => {
    if (!next) return undefined;
    const ms = Math.min(Math.max(Date.parse(next) - Date.now() + 500, MIN_TIMER_MS), 2 ** 31 - 1);
    const t = setTimeout(reload, ms);
    return () => clearTimeout(t);
  }, [next, reload]);

  return { waiting, error, fresh, reload };
}

function Counts({ counts }) {
  const shown = ORDER.filter((k) => counts[k] > 0);
  if (shown.length === 0) return null;
  return html`<ul class="counts" aria-label="Waiting on you, by kind">
    ${shown.map((k) => html`<li key=${k}><strong>${counts[k]}</strong> ${counts[k] === 1 ? KINDS[k].one : KINDS[k].many}</li>`)}
  </ul>`;
}

/** What the item is, beyond its title, in plain words. */
function details(item, now) {
  switch (item.kind) {
    case 'approval':
      return [`Act ${item.actionClass}`, html`<span class=${urgent(item.expiresAt, now) ? 'urgent' : ''}>${timeLeft(item.expiresAt, now)}</span>`];
    case 'signature':
    case 'decision':
      return [`Decision D-${item.number}`, `version ${item.version}`, `area ${item.area}`];
    case 'handoff':
      return [
        `Hands you ${item.subject.kind} ${item.subject.id}`,
        html`<span class=${urgent(item.expiresAt, now) ? 'urgent' : ''}>${timeLeft(item.expiresAt, now)} to answer</span>`,
      ];
    case 'escalation':
      return [
        `Severity ${item.severity}`,
        `level ${item.level}`,
        `reason ${item.reason.replace(/_/g, ' ')}`,
        ...(item.subject ? [`about ${item.subject}`] : []),
        item.nextLevelAt ? html`climbs past you on <time datetime=${item.nextLevelAt}>${when(item.nextLevelAt)}</time>` : 'top of its chain',
      ];
    case 'introduction':
      return [
        item.requestKind === 'introduce' ? 'Asks you for an introduction' : 'Asks you for a briefing',
        `${item.party.kind === 'org' ? 'organisation' : 'person'} ${item.party.id}`,
      ];
    default:
      return [];
  }
}

function WaitingCard({ item, now, fresh, Link }) {
  const headingId = `waiting-${item.id}`;
  const parts = details(item, now);
  return html`<li class="card" data-waiting-id=${item.id} data-kind=${item.kind}>
    <div class="card-head">
      <span class="badge badge-kind">${KINDS[item.kind].badge}</span>
      <h2 id=${headingId}>${item.kind === 'approval' ? html`<${Link} href=${`/approvals/${item.id}`}>${item.title}<//>` : item.title}</h2>
      ${fresh && html`<span class="badge badge-new">New</span>`}
    </div>
    <p class="summary">${parts.map((p, i) => html`${i > 0 ? ' · ' : ''}${p}`)}</p>
    <p class="meta">
      ${item.from ? html`From <strong>${who(item.fromName, item.from)}</strong>, waiting` : 'Waiting'} since <time datetime=${item.since}>${when(item.since)}</time>
    </p>
    <p class="act">
      ${item.kind === 'approval' ? html`Open it to decide, or call ` : 'Act with '}<code>${item.link.method}</code> <code>${JSON.stringify(item.link.params)}</code>
    </p>
  </li>`;
}

/** The view: heading, counts by kind, the items newest first. */
export function Waiting({ state, now, Link }) {
  const { waiting, error, fresh } = state;
  const head = html`<h1 tabindex="-1">Waiting on you</h1>
    <p class="help">
      What needs you now across the workspace, newest first: approvals, decisions to sign or make, handoffs offered to you, escalations assigned to you and
      introduction requests. It updates as things arrive.
    </p>`;
  if (error && !waiting) return html`${head}<p class="error" role="alert">${error}</p>`;
  if (!waiting) return html`${head}<p>Loading…</p>`;
  return html`
    ${head}
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <${Counts} counts=${waiting.counts} />
    ${
      waiting.items.length === 0
        ? html`<p class="empty">Nothing is waiting on you. New items appear here as they arrive.</p>`
        : html`<ul class="cards">
          ${waiting.items.map((item) => html`<${WaitingCard} key=${item.id} item=${item} now=${now} fresh=${fresh.has(item.id)} Link=${Link} />`)}
        </ul>`
    }
    ${waiting.truncated && html`<p class="meta">Showing the newest ${waiting.items.length} of ${waiting.total}.</p>`}
  `;
}
