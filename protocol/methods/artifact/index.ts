import { z } from 'zod';
import { method, read } from '../../contract.js';
import { id, INT32_MAX, limit, text } from '../../schema.js';
import { Slug } from '../org.js';
import { channelId } from '../messaging/shapes.js';
import { CATALOG_VERSION, MAX_COMPONENTS } from './catalog.js';

/**
 * The artifact family (docs/families/artifact.md): cards, forms, tables and charts an author drafts and posts in a
 * message (messaging.send artifactIds); a viewer's press or submit (act) returns to the author, who long-polls get.
 * The registry keeps all six R: create, patch and act are `writes: true` (one design log record each, no ledger
 * event, replayed by idempotencyId). Their results are heads (ids, revisions, states, counts): the idempotency table
 * that keeps them holds no artifact data; get reads the content.
 */

export const MAX_DATA_BYTES = 256 * 1024;
export const MAX_REVISIONS = 1000;
export const MAX_WAIT_MS = 30_000;
export const ARTIFACT_STATES = ['draft', 'posted', 'closed', 'erased'] as const;

const artifactId = id('art', 'The artifact (art_…).');
const idempotencyId = text({
  min: 1,
  max: 200,
  description: 'Your id for this write: the same id and params again answer the first result and change nothing; other params: CONFLICT.',
});
const revision = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(INT32_MAX, `must be at most ${INT32_MAX}`)
    .describe(description);
const actionId = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,39}$/, 'must be a letter then letters, digits, _ or -, at most 40')
  .describe('Names the action; Buttons run it.');
const memberRef = z
  .string()
  .max(64)
  .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id (usr_… or agt_…)');
const Components = z
  .array(z.record(z.string(), z.unknown()))
  .min(1, 'must list at least 1 component')
  .max(MAX_COMPONENTS, `must list at most ${MAX_COMPONENTS}`)
  .describe('Flat list of catalog 1 components ({id, type, …props}); the first is the root, containers name children by id (artifact.catalog).');
const Data = z.record(z.string(), z.unknown()).describe('JSON the components bind to by {path} (a JSON pointer), at most 256 KiB.');

export const Action = z.strictObject({
  actionId,
  label: text({ min: 1, max: 200, description: 'What the action does, as people read it.' }),
  inputs: z.array(z.string().max(40)).max(50, 'must list at most 50').default([]).describe('The names of the input components whose values it submits.'),
  once: z.boolean().optional().describe('Answered once: later acts get that response with changed:false.'),
  closes: z.boolean().optional().describe('Acting closes the artifact, stamped with who acted.'),
  audience: z
    .union([z.enum(['humans', 'anyone']), z.array(memberRef).min(1).max(50, 'must list at most 50')])
    .default('anyone')
    .describe('Who may act: humans (not agents), anyone who sees it, or these members.'),
});

export const ArtifactHead = z.strictObject({
  id: z.string(),
  state: z.enum(ARTIFACT_STATES).describe('draft (its author only) -> posted (in a message) <-> closed; erased with its message.'),
  revision: z.number().int(),
  inputsRevision: z.number().int().describe('The revision its inputs or actions last changed: an act on an older revision is CONFLICT.'),
  author: z.string(),
  channelId: z.string().nullable(),
  messageId: z.string().nullable(),
  responses: z.number().int().describe('How many responses it has.'),
  expiresAt: z.string().nullable(),
  closedBy: z.string().nullable(),
  closedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const ArtifactSummary = z.strictObject({ ...ArtifactHead.shape, title: z.string().nullable().describe('null once erased.') });
export const Artifact = z.strictObject({
  ...ArtifactSummary.shape,
  catalogVersion: z.string(),
  components: z.array(z.record(z.string(), z.unknown())),
  data: z.record(z.string(), z.unknown()),
  actions: z.array(z.record(z.string(), z.unknown())),
  fallbackText: z.string(),
});
export const ResponseHead = z.strictObject({
  id: z.string().describe('rsp_…'),
  seq: z.number().int().describe("Its place in the artifact's responses (get responsesAfter)."),
  actionId: z.string(),
  actor: z.string(),
  actorKind: z.enum(['human', 'agent']),
  revision: z.number().int().describe('The revision acted on.'),
  at: z.string(),
});
export const Response = z.strictObject({
  ...ResponseHead.shape,
  values: z.record(z.string(), z.unknown()).nullable().describe("The submitted values: shown to the artifact's author and to the actor; null to others."),
});

const getParams = z.strictObject({
  artifactId,
  responsesAfter: z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(INT32_MAX, `must be at most ${INT32_MAX}`)
    .optional()
    .describe('Only responses with a greater seq (default 0: all, up to 500).'),
  waitMs: z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be >= 0')
    .max(MAX_WAIT_MS, `must be at most ${MAX_WAIT_MS}`)
    .optional()
    .describe('Long-poll: with no response after responsesAfter yet, wait up to this many ms for one (it answers at once when one comes).'),
});
const getResult = z.strictObject({
  artifact: Artifact,
  responses: z.array(Response),
  responsesCursor: z.number().int().describe('The last seq returned (or responsesAfter): pass it as responsesAfter to wait for the next.'),
});
const listFilters = {
  channelId: channelId('Only artifacts posted in this channel.').optional(),
  state: z.enum(['draft', 'posted', 'closed']).optional().describe('Only artifacts in this state.'),
  updatedAfter: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).optional().describe('Changed after this instant (resume a stream).'),
  cursor: z.string().max(300).optional().describe('The nextCursor of the previous page.'),
  limit: limit(500, 50),
};
const listResult = z.strictObject({ artifacts: z.array(ArtifactSummary), nextCursor: z.string().nullable() });
const catalogResult = z.strictObject({
  version: z.string(),
  components: z.array(
    z.strictObject({ type: z.string(), summary: z.string(), container: z.boolean(), input: z.boolean(), props: z.record(z.string(), z.unknown()) }),
  ),
  tones: z.array(z.strictObject({ tone: z.string(), token: z.string() })),
  limits: z.strictObject({ components: z.number(), dataBytes: z.number(), tableRows: z.number(), chartPoints: z.number() }),
});
const boolQuery = z.enum(['true', 'false']).optional();
const slug = Slug.optional().describe('The org the key must belong to: another org is NOT_FOUND.');

const FORM = [
  { id: 'root', type: 'Card', title: 'Approve the spend', tone: 'brand', children: ['amount', 'note', 'send'] },
  { id: 'amount', type: 'NumberInput', name: 'amount', label: 'Amount (AUD)', min: 1, required: true },
  { id: 'note', type: 'TextInput', name: 'note', label: 'Note' },
  { id: 'send', type: 'Button', actionId: 'approve', label: 'Approve', tone: 'positive' },
];

export const artifact = {
  catalog: method({
    summary: `The component catalog artifacts are built from (version ${CATALOG_VERSION}): each type with its props as JSON Schema, the tones and the brand tokens they map to, and the limits.`,
    params: z.strictObject({}),
    result: catalogResult,
    example: {},
  }),
  create: method({
    summary:
      'Draft an artifact (a card, form, table or chart) from catalog components, data they bind to by {path}, actions Buttons run, and the fallback text clients without artifacts show. Only its author sees a draft; messaging.send artifactIds posts it.',
    params: z.strictObject({
      idempotencyId,
      title: text({ min: 1, max: 200, description: 'What it is, as lists show it.' }),
      components: Components,
      data: Data.optional(),
      actions: z.array(Action).max(20, 'must list at most 20').default([]).describe('What its Buttons run (at most 20).'),
      fallbackText: text({ min: 1, max: 4000, description: 'Plain text for clients that do not render artifacts.' }),
      expiresAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).optional().describe('After this, acts are CONFLICT.'),
    }),
    result: z.strictObject({ artifact: ArtifactHead }),
    example: {
      idempotencyId: 'spend-approval-1',
      title: 'Spend approval',
      components: FORM,
      actions: [{ actionId: 'approve', label: 'Approve', inputs: ['amount', 'note'], once: true, closes: true, audience: 'humans' }],
      fallbackText: 'Approve the spend in the app.',
    },
    writes: true,
  }),
  patch: method({
    summary:
      "Change an artifact on its current revision (its author only; at most 2 a second, 1,000 revisions): set values in its data by path, replace its components, or close or reopen it. Viewers' streams get an artifact frame.",
    params: z.strictObject({
      artifactId,
      baseRevision: revision('The revision you changed: another is CONFLICT naming the current one.'),
      idempotencyId,
      set: z
        .array(z.strictObject({ path: z.string().max(200).describe('A JSON pointer into data (/status).'), value: z.unknown() }))
        .min(1)
        .max(100, 'must list at most 100')
        .optional()
        .describe('Values to set in data, by JSON pointer: the parent must exist.'),
      components: Components.optional().describe('The new components (all of them), checked as create checks them.'),
      actions: z.array(Action).max(20, 'must list at most 20').optional().describe('With components: the actions replaced too.'),
      state: z.enum(['closed', 'posted']).optional().describe('closed: no more acts; posted: reopen.'),
    }),
    result: z.strictObject({ artifact: ArtifactHead, changed: z.boolean() }),
    example: { artifactId: 'art_0123456789abcdef', baseRevision: 1, idempotencyId: 'status-2', set: [{ path: '/status', value: 'paid' }] },
    writes: true,
  }),
  act: method({
    summary:
      "Press a Button or submit a form: run one of a posted artifact's actions on the revision you saw, with its inputs' values. The response goes to the author (artifact.get waits for it); a `once` action already answered returns that response, changed:false.",
    params: z.strictObject({
      artifactId,
      actionId,
      revision: revision('The revision you saw: inputs changed since then is CONFLICT.'),
      values: z.record(z.string(), z.unknown()).optional().describe("The action's inputs by name."),
      idempotencyId,
    }),
    result: z.strictObject({ response: ResponseHead, artifact: ArtifactHead, changed: z.boolean() }),
    example: { artifactId: 'art_0123456789abcdef', actionId: 'approve', revision: 1, values: { amount: 120, note: 'ok' }, idempotencyId: 'click-1' },
    writes: true,
    mcpAppOnly:
      "the artifact's page (ui://artifacts/art_…) calls it when a person presses a Button or submits a form there; to learn what people answered, call artifact.get (waitMs waits for the next response)",
  }),
  get: method({
    summary: 'An artifact with its content and responses after responsesAfter; with waitMs, waits (long-poll) until a response comes or the time is up.',
    params: getParams,
    result: getResult,
    example: { artifactId: 'art_0123456789abcdef', responsesAfter: 0, waitMs: 25_000 },
  }),
  list: method({
    summary: 'Artifacts the caller may see: its own drafts and those posted in channels it reads, newest change first (oldest first with updatedAfter).',
    params: z.strictObject({
      ...listFilters,
      mine: z.boolean().optional().describe('Only those you authored.'),
      pending: z.boolean().optional().describe('Only open ones (posted, not expired) others authored that you have not responded to.'),
    }),
    result: listResult,
    example: { channelId: 'ch_0123456789abcdef', state: 'posted', limit: 50 },
  }),
};

/** GET /api/v1/artifacts…: the same answers as list, catalog and get, as bare payloads. */
export const artifactReads = {
  artifacts: read({
    summary: 'artifact.list as a GET (bare payload).',
    query: z.strictObject({ slug, ...listFilters, mine: boolQuery, pending: boolQuery }),
    result: listResult,
    example: { state: 'posted', limit: 50 },
  }),
  'artifacts/catalog': read({
    summary: 'artifact.catalog as a GET (bare payload).',
    query: z.strictObject({ slug }),
    result: catalogResult,
    example: {},
  }),
  'artifacts/{id}': read({
    summary: 'artifact.get as a GET (bare payload).',
    query: z.strictObject({
      slug,
      id: artifactId,
      responsesAfter: z.coerce
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(INT32_MAX, `must be at most ${INT32_MAX}`)
        .optional(),
      waitMs: z.coerce
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(MAX_WAIT_MS, `must be at most ${MAX_WAIT_MS}`)
        .optional(),
    }),
    result: getResult,
    example: { id: 'art_0123456789abcdef' },
  }),
};

export * from './catalog.js';
