import { ok, mutate } from '../../helpers/calls.js';
import type { TestServer } from '../../helpers/harness.js';
import { account, contact, deal, uniq, type CrmOrg } from './kit.js';

/*
 * The deal rooms' words: a deal worth showing (a champion, an uploaded file linked to it, offered terms, a signed next
 * step and an internal note, written as the desk and timeline would leave them), a room and a guest token, and a
 * guest's request with `Authorization: Guest <token>`.
 */

export const NOTE = 'Internal-Note-Wombat-2291';

/** Terms as the desk leaves them (status offered and the deal's offer, or held), written directly. */
export async function terms(s: TestServer, dealId: string, t: { version: number; status: string; listCents: number; discountBps: number; netCents: number }) {
  const termsId = `trm_${uniq()}`;
  await s.runtime.db.query(
    `INSERT INTO crm_terms (org_id, terms_id, deal_id, version, status, list_cents, discount_bps, net_cents, currency, payment_days, term_months, clauses,
       breaches, proposed_by, proposed_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'AUD', 30, 12, '[{"code":"standard_msa","text":null}]', '{}', 'usr_x', now(), now())`,
    [s.org.orgId, termsId, dealId, t.version, t.status, t.listCents, t.discountBps, t.netCents],
  );
  if (t.status === 'offered')
    await s.runtime.db.query('UPDATE crm_deals SET offer_terms_id = $3 WHERE org_id = $1 AND deal_id = $2', [s.org.orgId, dealId, termsId]);
  return termsId;
}

/** A deal in negotiation (75%) with a champion, an upload linked to it, offered terms net 9,000.00, a signed step and a note. */
export async function showableDeal(o: CrmOrg) {
  const acct = await account(o, `Buyer Co ${uniq()}`);
  const champ = await contact(o, { accountId: acct.id });
  const d = await deal(o, acct.id, { amountCents: 1_234_567 });
  await ok(o.s, 'crm.moveStage', { dealId: d.id, stage: 'negotiation' });
  await ok(o.s, 'crm.linkContact', { dealId: d.id, contactId: champ.id, role: 'champion' });
  const file = (await ok(o.s, 'files.uploadRegister', { name: `Proposal ${uniq()}.txt`, contentBase64: Buffer.from('the proposal bytes').toString('base64') }))
    .file;
  const other = (await ok(o.s, 'files.uploadRegister', { name: `Pricing model ${uniq()}.txt`, contentBase64: Buffer.from('internal').toString('base64') }))
    .file;
  const db = o.s.runtime.db;
  const org = o.s.org.orgId;
  // Linked as crm.linkFiles links them (the timeline's method).
  for (const f of [file, other]) {
    await db.query(`INSERT INTO crm_deal_files (org_id, deal_id, file_id, linked_by, linked_at) VALUES ($1, $2, $3, $4, now())`, [org, d.id, f.id, o.owner.id]);
  }
  const offerId = await terms(o.s, d.id, { version: 1, status: 'offered', listCents: 1_000_000, discountBps: 1000, netCents: 900_000 });
  await db.query(
    `INSERT INTO crm_escalations (org_id, escalation_id, deal_id, kind, version, status, step_kind, step_title, step_reason, opened_by, opened_at, resolved_by, resolved_at)
     VALUES ($1, $2, $3, 'next_step', 1, 'signed', 'send_contract', 'Send the contract for signature', $4, 'agt_x', now(), 'usr_x', now())`,
    [org, `desk_${uniq()}`, d.id, `reason ${NOTE}`],
  );
  const ixn = `ixn_${uniq()}`;
  await db.query(
    `INSERT INTO crm_interactions (org_id, interaction_id, kind, occurred_at, summary, created_by, recorded_at) VALUES ($1, $2, 'note', now(), $3, 'usr_x', now())`,
    [org, ixn, `Their budget ceiling: ${NOTE}`],
  );
  await db.query(`INSERT INTO crm_interaction_links (org_id, interaction_id, target_id, target_kind, occurred_at) VALUES ($1, $2, $3, 'deal', now())`, [
    org,
    ixn,
    d.id,
  ]);
  return { account: acct, champion: champ, deal: d, file, other, offerId };
}

export async function share(o: CrmOrg, dealId: string, params: Record<string, unknown> = {}, key?: string) {
  const { result } = await mutate(o.s, 'crm.shareDeal', { dealId, show: { offer: true }, ...params }, 'crm.share.create', { key });
  return result.room;
}

export async function mint(o: CrmOrg, shareId: string, params: Record<string, unknown> = {}, key?: string) {
  const { result } = await mutate(o.s, 'crm.mintGuestToken', { shareId, email: `buyer.${uniq()}@buyer.example`, ...params }, 'crm.guest_token.mint', { key });
  return result as { guestToken: any; token: string; url: string };
}

/** A guest's GET with its token in the Guest header. */
export async function guest(s: TestServer, path: string, token: string) {
  const res = await s.app.inject({ method: 'GET', url: path, headers: { authorization: `Guest ${token}` } });
  return { status: res.statusCode, body: res.body, json: () => res.json(), headers: res.headers, bytes: res.rawPayload };
}
