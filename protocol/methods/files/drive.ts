import { z } from 'zod';
import { method } from '../../contract.js';
import { id, INT32_MAX, limit, proofFields, text } from '../../schema.js';

/**
 * The drive (docs/families/files.md): folders, native files and uploads the org owns, their place, trash, stars,
 * shares and exports. Roles viewer < commenter < editor < manager come from grants along the file's path; a file
 * you hold no role on does not exist for you (NOT_FOUND), too low a role is FORBIDDEN_SCOPE naming it.
 */

export const FILE_KINDS = ['folder', 'doc', 'sheet', 'deck', 'upload'] as const;
export const FILE_ROLES = ['viewer', 'commenter', 'editor', 'manager'] as const;
export const LIST_VIEWS = ['starred', 'shared', 'recent', 'trash'] as const;
/**
 * Largest inline upload (contentBase64), in bytes before encoding: what fits the API's 1 MiB bound on params
 * (protocol/json-bounds.ts) once base64-encoded. Larger files go through PUT /api/v1/blobs.
 */
export const MAX_INLINE_UPLOAD_BYTES = 750 * 1024;
/** Email grants: default and longest life. */
export const EMAIL_GRANT_DEFAULT_DAYS = 14;
export const EMAIL_GRANT_MAX_DAYS = 90;
/** Lifetime of an export's download URL. */
export const EXPORT_URL_TTL_MS = 15 * 60 * 1000;

export const fileId = (description: string) => id('fil', description);
const fileName = (description: string) => text({ min: 1, max: 255, description });
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits');
const changed = z.boolean().describe('false when it was already so (the event says noop).');

export const File = z.strictObject({
  id: z.string().describe('fil_…'),
  kind: z.enum(FILE_KINDS),
  name: z.string(),
  parentId: z.string().nullable().describe('The folder it is in; null at the org root.'),
  restricted: z.boolean().describe('Folders: grants above it do not reach inside.'),
  reviewMode: z.boolean(),
  revision: z.number().int().describe('Native head revision, or upload version (0: folder).'),
  sizeBytes: z.number().int(),
  sha256: z.string().nullable(),
  contentType: z.string().nullable(),
  status: z.enum(['active', 'trashed', 'purged']),
  trashedRoot: z.string().nullable().describe('The delete that trashed it (itself or a folder above): recover that one.'),
  trashedAt: z.string().nullable(),
  starred: z.boolean().describe('By you.'),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedBy: z.string(),
  updatedAt: z.string(),
});

export const Grant = z.strictObject({
  id: z.string().describe('shr_…'),
  fileId: z.string().describe('The file it is on: an ancestor for an inherited grant.'),
  inherited: z.boolean(),
  granteeKind: z.enum(['principal', 'team', 'org', 'email']),
  grantee: z.string().nullable().describe('usr_/agt_/team_ id, the email (managers; others see its domain), null for the org.'),
  role: z.enum(FILE_ROLES),
  expiresAt: z.string().nullable(),
  views: z.number().int().describe('Guest page views (email grants).'),
  status: z.enum(['active', 'revoked', 'expired']),
  createdBy: z.string(),
  createdAt: z.string(),
});

export const Export = z.strictObject({
  id: z.string().describe('exp_…'),
  fileId: z.string(),
  format: z.string(),
  revision: z.number().int(),
  sha256: z.string(),
  sizeBytes: z.number().int(),
  contentType: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
});

const uploadSource = {
  sha256: sha256.describe('A blob you PUT to /api/v1/blobs (with sizeBytes).').optional(),
  sizeBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('Its size in bytes.').optional(),
  contentBase64: z
    .string()
    .max(Math.ceil(MAX_INLINE_UPLOAD_BYTES / 3) * 4, 'must be at most 750 KiB of bytes: PUT larger files to /api/v1/blobs')
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')
    .describe('Or the bytes inline, at most 750 KiB.')
    .optional(),
};

export const drive = {
  get: method({
    summary: 'A file with your role, its grants (inherited ones too) and its latest exports.',
    params: z.strictObject({ fileId: fileId('The file.') }),
    result: z.strictObject({
      file: File,
      myRole: z.enum(FILE_ROLES),
      path: z.array(z.strictObject({ id: z.string(), name: z.string() })).describe('Readable folders above it, top first.'),
      grants: z.array(Grant),
      exports: z.array(Export),
    }),
    example: { fileId: 'fil_0123456789abcdef' },
  }),
  list: method({
    summary: 'Files you can read: a folder’s children (no parentId: the root), a view, or a full-text query.',
    params: z.strictObject({
      parentId: fileId('List this folder.').optional(),
      view: z.enum(LIST_VIEWS).describe('Instead of a folder.').optional(),
      query: text({ min: 1, max: 256, description: 'Full-text search (websearch syntax), best first.' }).optional(),
      kind: z.enum(FILE_KINDS).describe('Only this kind.').optional(),
      cursor: z.string().max(500).describe('nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({
      files: z.array(File),
      hits: z
        .array(z.strictObject({ fileId: z.string(), matched: z.enum(['text', 'fuzzy']), snippet: z.string() }))
        .describe('query: why each file matched.')
        .optional(),
      nextCursor: z.string().nullable(),
    }),
    example: { parentId: 'fil_0123456789abcdef', limit: 100 },
  }),
  create: method({
    summary:
      'Create a folder, doc, sheet, deck or upload (root by default); you become its manager. content: a doc’s, sheet’s or deck’s first content, an upload’s {sha256,sizeBytes}.',
    params: z.strictObject({
      kind: z.enum(FILE_KINDS).describe('What to create.'),
      name: fileName('Its name.'),
      parentId: fileId('The folder (an active one you edit).').optional(),
      restricted: z.boolean().describe('Folders: grants above do not reach inside.').optional(),
      reviewMode: z.boolean().describe("Docs: agents' edits become suggestions a human accepts.").optional(),
      content: z
        .unknown()
        .describe(
          'doc: {markdown} or ProseMirror JSON; sheet: {tabs:[{title, cells:{A1: input}}]} (inputs are literals or =formulas); deck: {slides:[{layout?, title?, body?, notes?, elements?}]}; upload: {sha256, sizeBytes}.',
        )
        .optional(),
    }),
    result: z.strictObject({ file: File }),
    events: ['files.file.create'],
    example: { kind: 'folder', name: 'Contracts 2025' },
  }),
  uploadRegister: method({
    summary:
      'Register bytes as an upload: sha256+sizeBytes of a blob you PUT to /api/v1/blobs, or contentBase64 ≤750 KiB. With fileId: a new version (editor). The type is sniffed from the bytes; PDF and Office text becomes searchable.',
    params: z.strictObject({
      ...uploadSource,
      name: fileName('Its name (new files; a new version may rename).').optional(),
      parentId: fileId('The folder of a new file.').optional(),
      fileId: fileId('An upload to add a version to.').optional(),
    }),
    result: z.strictObject({ file: File, changed }),
    events: ['files.upload.register'],
    example: { sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', sizeBytes: 0, name: 'notes.pdf' },
  }),
  rename: method({
    summary: 'Rename a file (editor).',
    params: z.strictObject({ fileId: fileId('The file.'), name: fileName('The new name.') }),
    result: z.strictObject({ file: File, changed }),
    events: ['files.file.rename'],
    example: { fileId: 'fil_0123456789abcdef', name: 'Q3 plan (final)' },
  }),
  move: method({
    summary: 'Move a file and its subtree into a folder you edit, or to the root (null).',
    params: z.strictObject({ fileId: fileId('The file.'), parentId: fileId('The new folder.').nullable().describe('The new folder; null: the root.') }),
    result: z.strictObject({ file: File, changed }),
    events: ['files.file.move'],
    example: { fileId: 'fil_0123456789abcdef', parentId: 'fil_fedcba9876543210' },
  }),
  duplicate: method({
    summary: 'Copy a file (not a folder); an upload’s bytes are shared.',
    params: z.strictObject({
      fileId: fileId('The file.'),
      name: fileName('The copy’s name (default "Copy of …").').optional(),
      parentId: fileId('The copy’s folder (default the original’s).').optional(),
    }),
    result: z.strictObject({ file: File }),
    events: ['files.file.duplicate'],
    example: { fileId: 'fil_0123456789abcdef' },
  }),
  delete: method({
    hold: { completion: 'retry', when: 'an agent purges (permanent)' },
    summary: 'Trash a file and its subtree (editor); permanent:true purges a trashed one for good (manager; an agent’s purge holds).',
    params: z.strictObject({
      fileId: fileId('The file.'),
      permanent: z.boolean().describe('Purge a trashed file and its subtree.').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ file: File, status: z.enum(['trashed', 'purged']), files: z.number().int().describe('Files affected.'), changed }),
    events: ['files.file.purge', 'files.file.trash'],
    example: { fileId: 'fil_0123456789abcdef' },
  }),
  recover: method({
    summary: 'Untrash a file with its subtree, or make toRevision the head again (editor).',
    params: z.strictObject({
      fileId: fileId('The file.'),
      toRevision: z.number().int().min(1).max(INT32_MAX, `must be at most ${INT32_MAX}`).describe('Restore this revision as a new head.').optional(),
    }),
    result: z.strictObject({ file: File, files: z.number().int().describe('Files recovered.'), changed }),
    events: ['files.file.recover'],
    example: { fileId: 'fil_0123456789abcdef' },
  }),
  star: method({
    summary: 'Star or unstar a file for yourself.',
    params: z.strictObject({ fileId: fileId('The file.'), starred: z.boolean().describe('true to star.') }),
    result: z.strictObject({ file: File, changed }),
    events: ['files.star.set'],
    example: { fileId: 'fil_0123456789abcdef', starred: true },
  }),
  shareGrant: method({
    hold: { completion: 'retry', when: 'an agent shares with an outside email' },
    summary: 'Share a file (manager) with a member, team, the org or an outside email (viewer, expiring, guest link shown once; an agent’s holds).',
    params: z.strictObject({
      fileId: fileId('The file.'),
      grantee: z
        .union([
          z.strictObject({
            principalId: z
              .string()
              .max(64)
              .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be usr_… or agt_…')
              .describe('A member.'),
          }),
          z.strictObject({ teamId: id('team', 'A team.') }),
          z.strictObject({ org: z.literal(true).describe('Everyone in the org.') }),
          z.strictObject({ email: z.email({ message: 'must be an email address' }).max(254).describe('Someone outside.') }),
        ])
        .describe('One of these.'),
      role: z.enum(FILE_ROLES).describe('Email grants: viewer only.'),
      expiresAt: z.iso.datetime({ offset: true, message: 'must be an ISO date-time' }).describe('Email default 14 days, at most 90.').optional(),
      notify: z.boolean().describe('Email grants: mail the link.').optional(),
      ...proofFields,
    }),
    result: z.strictObject({
      grant: Grant,
      guestUrl: z.string().nullable().describe('Email grants: the guest link, shown once.').optional(),
      secretWithheld: z.string().optional().describe('On a replay by another key: why guestUrl is null.'),
      changed,
    }),
    secrets: { fields: ['guestUrl'], ifLost: 'revoke this grant (files.shareRevoke) and grant again for a new link' },
    events: ['files.share.grant'],
    example: { fileId: 'fil_0123456789abcdef', grantee: { teamId: 'team_0123456789abcdef' }, role: 'editor' },
  }),
  shareRevoke: method({
    summary: 'Revoke a grant on the file it is on (manager): its guest link stops at once.',
    params: z.strictObject({ fileId: fileId('The file the grant is on.'), grantId: id('shr', 'The grant.') }),
    result: z.strictObject({ grant: Grant, changed }),
    events: ['files.share.revoke'],
    example: { fileId: 'fil_0123456789abcdef', grantId: 'shr_0123456789abcdef' },
  }),
  exportRequest: method({
    summary:
      'Download a file (viewer): upload original; doc docx/pdf/md/html; sheet xlsx (every tab, formulas and values), csv (the first tab’s values) or pdf; deck pdf (a page per slide), md (an outline) or pptx (a slide per slide, with speaker notes). Returns a URL valid 15 minutes; every export is ledgered.',
    params: z.strictObject({
      fileId: fileId('The file.'),
      format: z
        .string()
        .min(1)
        .max(16)
        .regex(/^[a-z0-9]+$/, 'must be a format such as original, pdf or docx')
        .describe(
          'By kind: upload original; doc docx, pdf, md, html; sheet xlsx, csv, pdf; deck pdf, md, pptx. Another is BAD_REQUEST naming the kind’s formats.',
        ),
      revision: z.number().int().min(1).max(INT32_MAX, `must be at most ${INT32_MAX}`).describe('Native files: this revision (default head).').optional(),
    }),
    result: z.strictObject({ export: Export, url: z.string().describe('Signed download path, valid 15 minutes.'), expiresAt: z.string() }),
    events: ['files.export.create'],
    example: { fileId: 'fil_0123456789abcdef', format: 'pdf' },
  }),
};
