import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane Studio's shared memory (docs/families/knowledge.md): what the team knows about its clients, with
 * sources (Grace's facts verified, the agent's cited and waiting for a human's confirmation), a shared house-style
 * block every agent loads with an amendment the agent proposed for Grace to merge, and the month-end SOP the agent
 * drafted and published once a human approved it.
 */

export async function demoKnowledge(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  progress('Knowledge: sourced entries, a shared memory block with an open amendment, an active SOP');
  const m = await desk.memberIds();
  const grace = m.get('Grace Lin')!;
  const graceKey = desk.keys.admin;
  const fact = (body: string, sources: unknown[], key: string, extra: Record<string, unknown> = {}) =>
    desk.call('knowledge.append', { body, sources, ...extra }, key);
  const terms = await fact(
    'Bayside Dental pays on 30-day terms; invoices go to accounts@baysidedental.example.',
    [{ kind: 'document', ref: 'https://harbourlane.example/clients/bayside-terms.pdf', quote: 'Payment terms: 30 days from invoice.' }],
    graceKey,
  );
  await fact(
    'Northwind Print quotes include delivery in the Sydney metro area only.',
    [{ kind: 'url', ref: 'https://northwind.example/terms#delivery', quote: 'Free delivery within Sydney metro.' }],
    desk.keys.agent,
  );
  await fact('The studio closes between Christmas and New Year; no invoices are chased in that week.', [{ kind: 'person', ref: grace }], graceKey, {
    kind: 'preference',
  });
  await desk.call('knowledge.search', { q: 'Bayside payment terms' }, desk.keys.agent);

  const block = (
    await desk.call(
      'memory.author',
      {
        label: 'house-style',
        description: 'How Harbour Lane writes to clients: read before drafting any email.',
        value: 'Plain words, no jargon.\nSign off as "The Harbour Lane team".\nQuote amounts with GST included.',
        audience: 'org',
      },
      graceKey,
    )
  ).block;
  const amendment = (
    await desk.call(
      'memory.proposeAmendment',
      {
        blockId: block.id,
        op: 'append',
        newText: 'Never promise a delivery date before the studio confirms it.',
        reason: 'A client was promised Friday twice.',
      },
      desk.keys.agent,
    )
  ).amendment;

  const steps = [
    { text: 'Reconcile the bank feed to the statement', method: 'books.matchAccept' },
    { text: 'Chase invoices more than 7 days overdue (first nudge only)', method: 'books.invoiceChaseStep' },
    { text: 'Run the trial balance and check the bank line', method: 'books.reports', kind: 'check' },
    { text: 'Grace signs off the month', requiresHuman: true, kind: 'decision' },
  ];
  const sop = (
    await desk.signed('sop.create', {
      title: 'Month-end close',
      purpose: 'Close the books by the 5th of each month.',
      trigger: 'First working day of the month',
      steps,
      status: 'active',
    })
  ).sop;
  return [
    `Knowledge: 3 entries (Grace's verified, the agent's cited: ${terms.entry.id} and others); search them with knowledge.search {"q":"payment terms"}`,
    `  Memory block ${block.id} (house-style, every agent loads it) has an open amendment ${amendment.id} from the agent: merge it as Grace with memory.mergeAmendment {"amendmentId":"${amendment.id}","decision":"merge"}`,
    `  SOP ${sop.slug} (${sop.id}) is ${sop.status}, version ${sop.version}: the agent drafted it and a human approved publishing it`,
  ];
}
