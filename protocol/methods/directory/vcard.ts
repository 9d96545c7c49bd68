import { z } from 'zod';
import { method } from '../../contract.js';
import { limit, proofFields } from '../../schema.js';
import { coId, listId, personId } from './common.js';

/*
 * directory.exportVcard: parties as vCard 4.0 or 3.0 text, or jCard (RFC 7095). Bulk personal data leaving the
 * workspace is a human's call: an agent exporting more than MAX_AGENT_EXPORT parties, or a list, is held
 * (directory.signature.hold, actionClass directory.export_vcard) until a human approves; retried with the
 * approvalId it runs, and its pages follow by cursor.
 */

/** Most parties an agent exports without a human's approval. */
export const MAX_AGENT_EXPORT = 25;
/** Most ids one export names. */
export const MAX_EXPORT_IDS = 500;

export const EXPORT_VERSIONS = ['4.0', '3.0'] as const;
export const EXPORT_FORMATS = ['vcard', 'jcard'] as const;

export const vcard = {
  exportVcard: method({
    hold: { completion: 'retry', when: `an agent exports more than ${MAX_AGENT_EXPORT} parties, or a list` },
    summary: `Export persons, organisations or a list's members as vCard 4.0, 3.0 or jCard. UIDs are stable across exports; merged ids export their survivor. An agent exporting over ${MAX_AGENT_EXPORT} parties, or a list, is held for a human (retry with approvalId); nextCursor pages on.`,
    params: z
      .strictObject({
        personIds: z.array(personId('A person.')).min(1).max(MAX_EXPORT_IDS).describe(`Persons to export (at most ${MAX_EXPORT_IDS}).`).optional(),
        orgIds: z.array(coId('An organisation.')).min(1).max(MAX_EXPORT_IDS).describe(`Organisations to export (at most ${MAX_EXPORT_IDS}).`).optional(),
        listId: listId('A list you can see: its members.').optional(),
        version: z.enum(EXPORT_VERSIONS).default('4.0').describe('4.0 (default) or 3.0.'),
        format: z.enum(EXPORT_FORMATS).default('vcard').describe('vcard (default) or jcard (4.0 only).'),
        includeNotes: z.boolean().default(false).describe('Write each party\u2019s notes as NOTE.'),
        cursor: z.string().max(400).describe('nextCursor of the previous page.').optional(),
        limit: limit(500, 100),
        ...proofFields,
      })
      .superRefine((p, ctx) => {
        const chosen = [p.personIds, p.orgIds, p.listId].filter((x) => x !== undefined).length;
        if (p.listId !== undefined && chosen > 1) ctx.addIssue({ code: 'custom', path: ['listId'], message: 'export a list or ids, not both' });
        else if (chosen === 0) ctx.addIssue({ code: 'custom', path: ['personIds'], message: 'personIds, orgIds or listId is required' });
        if (p.format === 'jcard' && p.version !== '4.0')
          ctx.addIssue({ code: 'custom', path: ['format'], message: 'jcard is vCard 4.0 as JSON (RFC 7095); use version 4.0' });
      }),
    result: z.strictObject({
      exportId: z.string().describe('vcx_…: this export (the same on every page; the hold\u2019s subject).'),
      count: z.number().int().describe('Cards in this page.'),
      total: z.number().int().describe('Parties in the whole export.'),
      version: z.enum(EXPORT_VERSIONS),
      format: z.enum(EXPORT_FORMATS),
      mediaType: z.string().describe('text/vcard; charset=utf-8, or application/vcard+json.'),
      body: z.string().describe('The cards: vCard text (CRLF lines), or a JSON array of jCards.'),
      nextCursor: z.string().nullable().describe('The next page of this export; null when done.'),
    }),
    events: ['directory.vcard.export'],
    example: { personIds: ['per_0123456789abcdef'], version: '4.0', format: 'vcard' },
  }),
};
