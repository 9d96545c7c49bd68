import { paramFacts as facts, type HoldActDescriber } from '../../core/hold-acts.js';

/*
 * How the deal desk's signature reads in the approval inbox: terms beyond policy to offer, or a next step an agent
 * stopped at. The facts are the held call's (model.ts signRequest: the escalation's exact terms or step).
 */

export const deskHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'crm.sign_escalation': (_s, p) =>
    p.kind === 'next_step'
      ? {
          title: 'Approve a deal’s next step',
          facts: facts(p, [
            ['dealId', 'Deal'],
            ['stepKind', 'Step'],
            ['title', 'What'],
            ['reason', 'Why'],
          ]),
        }
      : {
          title: 'Sign deal terms beyond the desk policy',
          facts: facts(p, [
            ['dealId', 'Deal'],
            ['version', 'Terms version'],
            ['currency', 'Currency'],
            ['listCents', 'List (minor units)'],
            ['discountBps', 'Discount (bps)'],
            ['netCents', 'Net (minor units)'],
            ['paymentDays', 'Payment days'],
            ['termMonths', 'Term (months)'],
            ['clauses', 'Clauses'],
            ['breaches', 'Breaches'],
          ]),
        },
};
