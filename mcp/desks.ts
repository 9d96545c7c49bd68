/*
 * Desks: small presets of tools for one kind of work, so that what a session lists stays small however much of
 * the registry is deployed (a model pays for every listed tool in context; once every family is deployed, `all`
 * is about 440 tools). Each desk lists its toolsets, a few single tools, and the core tools; the meta-tools
 * (search_methods, describe_method, invoke_read, invoke_write) reach everything else from any desk.
 *
 * A desk named like a family is that family's design group (`governance`: the governance family and the families
 * of its design). Where a family is too large for one desk (books, directory), its areas are toolsets of their own
 * (protocol/methods/areas.ts) and the desks divide them by kind of work. A desk whose toolsets have nothing deployed
 * on this server is refused when selected (mcp/toolsets.ts), never listed empty.
 */

export interface Desk {
  /** One line for --help and the README. */
  summary: string;
  /** Families or family areas. */
  toolsets: readonly string[];
  /** Single methods or reads besides the toolsets. */
  tools: readonly string[];
}

/** Listed by every desk: who the key is, and the approval tools of the hold flow (approval.wait is always on). */
export const CORE_TOOLS: readonly string[] = ['org/whoami', 'approval.get', 'approval.list'];

/** The default: the core tools and the meta-tools, nothing else. */
export const DEFAULT_DESK = 'core';

const books = (area: string, summary: string, tools: readonly string[] = []): Desk => ({
  summary,
  toolsets: [`books.${area}`],
  tools: ['books.ask', ...tools],
});

/**
 * Toolsets whose tools are listed per caller by a family's contribution (mcp/remote-tools.ts), not by the catalog:
 * a selection may name them alone. `integration.tools`: each remote tool the caller may call, ext_<integration>__<tool>.
 */
export const CALLER_TOOLSETS: readonly string[] = ['integration.tools'];

export const DESKS: Readonly<Record<string, Desk>> = {
  core: { summary: 'who you are and your approvals; the meta-tools reach every other method (the default)', toolsets: [], tools: [] },
  receivables: books('receivables', 'invoices, credit notes, payments received, chasing (books)', ['books.reports']),
  payables: books('payables', 'bills, supplier payments and their approvals (books)', ['books.reports']),
  payroll: books('payroll', 'onboarding, pay runs, leave, STP (books)', ['books.reports']),
  expenses: books('expenses', 'expense claims (books)'),
  reconciliation: books('reconciliation', 'bank feeds, matches and recodes (books)'),
  tax: books('tax', 'BAS, obligations and lodgement (books)', ['books.reports']),
  assets: books('assets', 'fixed assets and depreciation (books)', ['books.reports']),
  ledger: books('ledger', 'accounts, journals and reports (books)'),
  // Handing work over and escalating what blocks it are part of doing it (and keep the governance desk in budget).
  work: {
    summary: 'tasks and workstreams: claim, work, comment, complete, hand over, escalate (board, handoff, escalation)',
    toolsets: ['board', 'handoff', 'escalation'],
    tools: ['org/inbox'],
  },
  org: {
    summary: 'the org, API keys, pairing, decision rights, policy and AI cost (admin work)',
    toolsets: ['org', 'settings', 'pairing', 'governance', 'policy', 'cost'],
    tools: [],
  },
  people: {
    summary: 'members, teams, the org chart, profiles, notification preferences',
    toolsets: ['member', 'team', 'hierarchy', 'profile', 'notification'],
    tools: [],
  },
  // Who may act, apart from who is who: one desk for all ten people families would list ~11,000 tokens.
  access: {
    summary: 'who may act: invitations, roles, offboarding, the kill switch, agent personas, seats and billing',
    toolsets: ['invitation', 'user', 'admin', 'persona', 'billing'],
    tools: ['member.list', 'member.get'],
  },
  // The directory family is too large for one desk: the address book itself, and the work of keeping it true and shared.
  directory: {
    summary: 'people and organisations outside the org: find, read, add, edit, their channels and links, vCard, ask; contact views',
    toolsets: ['directory.parties', 'directory.listing', 'directory.channels', 'directory.links', 'directory.vcard', 'directory.ask', 'contact', 'contacts'],
    tools: [],
  },
  curation: {
    summary: 'keeping the directory true and shared: captures to review, duplicates to merge, lists, who knows whom and introductions',
    toolsets: ['directory.captures', 'directory.merges', 'directory.lists', 'directory.awareness'],
    tools: ['directory.search', 'directory.getPerson', 'directory.getOrg'],
  },
  governance: {
    summary: 'decision rights, decisions, the charter, compacts and policies (handoffs and escalations: the work desk)',
    toolsets: ['governance', 'decision', 'charter', 'compact', 'policy'],
    tools: ['org/inbox'],
  },
  messaging: { summary: 'channels, messages and calls', toolsets: ['messaging', 'channel', 'calling'], tools: [] },
  // The email family is too large for one desk: working the mail, and keeping the mailbox (reviewers and owners).
  email: {
    summary: 'shared mailboxes: read, search, draft, send and undo, triage, summarise, extract actions, ask, file attachments',
    toolsets: ['email.mail'],
    tools: [],
  },
  mailroom: {
    summary: "keeping a mailbox: review agents' mail (approve, amend, return), holds, rules, spam, folders, signatures, moving threads",
    toolsets: ['email.keeping'],
    tools: ['email.thread', 'email.message', 'email.messages'],
  },
  // The files family is too large for one desk: the drive (files, shares, trash, exports, comments, annotations),
  // and each native kind's content (docs, sheets, decks) with the drive reads it needs and files.ask.
  files: {
    summary: 'the drive: find, create, upload, share, move, trash and export files; comments, pins and annotations',
    toolsets: ['files.drive', 'files.comments', 'file', 'annotation'],
    tools: [],
  },
  docs: {
    summary: 'documents: read by block, write revisions, tabs, suggestions to review',
    toolsets: ['files.docs'],
    tools: ['files.get', 'files.list', 'files.create', 'files.commentAdd', 'files.ask'],
  },
  sheets: {
    summary: 'spreadsheets: read ranges with computed values, write cells and formulas, tabs, rows and columns, ranges fed from reports',
    toolsets: ['files.sheets'],
    tools: ['files.get', 'files.list', 'files.create', 'files.exportRequest', 'files.commentAdd', 'files.ask'],
  },
  decks: {
    summary: 'slide decks: read slides, insert, update, move and delete them on a base revision',
    toolsets: ['files.decks'],
    tools: ['files.get', 'files.list', 'files.create', 'files.exportRequest', 'files.commentAdd', 'files.ask'],
  },
  calendar: { summary: 'calendar and meetings', toolsets: ['calendar', 'meetings'], tools: [] },
  memory: {
    summary: 'shared memory: knowledge entries with sources, memory blocks and amendments, standard operating procedures',
    toolsets: ['knowledge', 'memory', 'sop'],
    tools: [],
  },
  crm: {
    summary: 'sales: accounts and contacts, deals on the pipeline, targets, the timeline of interactions, crm.ask',
    toolsets: ['crm.accounts', 'crm.pipeline', 'crm.timeline'],
    tools: [],
  },
  dealdesk: {
    summary: 'the deal desk: terms beyond policy and their signatures, buyer deal rooms and guest links, playbooks and next best action',
    toolsets: ['crm.desk', 'crm.rooms', 'crm.playbooks'],
    tools: ['crm.getDeal', 'crm.listDeals', 'crm.logInteraction', 'crm.linkFiles'],
  },
  runtime: {
    summary: 'the agent control plane: register and beat, presence, named leases with fencing tokens, report model spend; who runs, what is held',
    toolsets: ['registry', 'presence', 'lease', 'cost'],
    tools: ['org/agents', 'org/leases'],
  },
  // Methods carrying a secret value (credential.put, credential.lease, settings.upsertSecret, recordSecretRotation) are never served over MCP.
  integrations: {
    summary: 'external MCP servers and their tools (connect, list, invoke), the secrets they use: list, revoke leases, delete',
    toolsets: ['integration', 'credential'],
    tools: ['settings.deleteSecret'],
  },
  brand: {
    summary: 'the brand foundation: name, logos, design tokens, contrast pairs, voice; proposals, saves, restores and the history',
    toolsets: ['branding'],
    tools: ['settings.getDesignTokens', 'settings.saveDesignTokens'],
  },
  // Artifacts (cards, forms, tables agents post in messages). artifact_act is listed for the artifact pages (MCP Apps
  // visibility ["app"]): hosts keep it from the model, which waits for answers with artifact_get.
  artifacts: { summary: 'artifacts agents post in messages (cards, forms, tables, charts)', toolsets: ['artifact'], tools: [] },
};
