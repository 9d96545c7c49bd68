import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane's sales desk (docs/families/crm.md): two of the books' clients as accounts (the directory's
 * organisations, not copies) with Michael Brennan as the Coastal Realty contact, two deals on the pipeline, the
 * kickoff call logged and pinned, terms in policy offered and the agent's deeper discount held for a human's
 * signature, a deal room with a guest link for Michael, a playbook and its next best action, and Chloe's quarterly
 * target (Grace set it: nobody sets their own).
 */

const DAY = 86_400_000;
const plusDays = (date: string, n: number) => new Date(new Date(`${date}T00:00:00Z`).getTime() + n * DAY).toISOString().slice(0, 10);

export async function demoCrm(desk: DemoDesk, at: { monday: string; kickoffId: string }, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  progress('CRM: accounts, deals, the timeline, terms offered and held, a deal room, a playbook, a target');
  const m = await desk.memberIds();
  const chloe = m.get('Chloe Martin')!;
  const coastal = (await desk.call('crm.createAccount', { name: 'Coastal Realty' })).account;
  const wren = (await desk.call('crm.createAccount', { name: 'Blue Wren Studio' })).account;
  const contact = (
    await desk.call('crm.createContact', { name: 'Michael Brennan', email: 'michael.brennan@coastalrealty.example', accountId: coastal.id, title: 'Principal' })
  ).contact;
  const close = plusDays(at.monday, 45);
  const deal = (
    await desk.call('crm.createDeal', {
      name: 'Coastal Realty website relaunch',
      accountId: coastal.id,
      amountCents: 2_400_000,
      currency: 'AUD',
      closeDate: close,
      ownerId: chloe,
    })
  ).deal;
  await desk.call('crm.linkContact', { dealId: deal.id, contactId: contact.id, role: 'decision_maker' });
  await desk.call('crm.moveStage', { dealId: deal.id, stage: 'proposal' });
  const catalogue = (
    await desk.call('crm.createDeal', {
      name: 'Blue Wren autumn catalogue',
      accountId: wren.id,
      amountCents: 1_150_000,
      currency: 'AUD',
      closeDate: close,
      ownerId: chloe,
    })
  ).deal;
  await desk.call('crm.moveStage', { dealId: catalogue.id, stage: 'qualified' });

  const call = (
    await desk.call('crm.logInteraction', {
      kind: 'meeting',
      summary: `Kickoff (${at.kickoffId}): two design routes agreed; Michael signs off; live before the autumn auction season.`,
      dealId: deal.id,
      contactIds: [contact.id],
      direction: 'outbound',
    })
  ).interaction;
  await desk.call('crm.pinNote', { interactionId: call.id, pinned: true });
  const offered = await desk.call('crm.proposeTerms', { dealId: deal.id, listCents: 2_400_000, discountBps: 1000, paymentDays: 30, termMonths: 12 });
  const held = await desk.call(
    'crm.proposeTerms',
    { dealId: deal.id, listCents: 2_400_000, discountBps: 2500, paymentDays: 45, termMonths: 12, rationale: 'Matches the competing quote.' },
    desk.keys.agent,
  );
  const room = (await desk.call('crm.shareDeal', { dealId: deal.id, show: { offer: true, contacts: true }, expiresInDays: 14 })).room;
  const guest = await desk.call('crm.mintGuestToken', { shareId: room.id, personId: contact.personId, expiresInDays: 7 });
  const playbook = (
    await desk.call('crm.savePlaybook', {
      definition: {
        name: 'Keep deals moving',
        rules: [
          { id: 'single-threaded', when: { var: 'risk.singleThreaded' }, then: { action: 'task', title: 'Meet a second person at the client', dueInDays: 5 } },
        ],
      },
    })
  ).playbook;
  await desk.call('crm.togglePlaybook', { playbookId: playbook.id, enabled: true });
  const nba = await desk.call('crm.runNextBestAction', { dealId: deal.id });
  const quarter = `${close.slice(0, 4)}-Q${Math.floor((Number(close.slice(5, 7)) - 1) / 3) + 1}`;
  await desk.call('crm.setTarget', { ownerId: chloe, period: quarter, currency: 'AUD', amountCents: 6_000_000 });
  return [
    `CRM: the books' clients Coastal Realty (${coastal.id}, Michael Brennan its contact: the directory's person) and Blue Wren Studio as accounts, deals ${deal.id} (proposal) and ${catalogue.id} (qualified), Chloe's ${quarter} target: crm.getTargets {"period":"${quarter}"}`,
    `  Terms ${offered.terms.id} (10% off) are offered; the agent's 25% (${held.terms.id}) waits in escalation ${held.escalation?.id} for a human's signature: crm.listEscalations {"status":"open"}`,
    `  Deal room ${room.id}: Michael's guest link (shown once) ${guest.url}; next best action recorded ${nba.run.count} recommendation(s) for ${deal.id} (playbook ${playbook.id})`,
  ];
}
