import type { Fact, HoldActDescriber } from '../../core/hold-acts.js';

/*
 * How a held message reads in the approval inbox: who it is from, to whom, the subject, the start of the text, the
 * files and why it waits (the reasons end the summary the review was filed with, after "held because").
 */

interface Person {
  address?: unknown;
  name?: unknown;
}

const people = (v: unknown): string =>
  Array.isArray(v)
    ? (v as Person[]).map((p) => (typeof p.name === 'string' && p.name ? `${p.name} <${String(p.address)}>` : String(p.address))).join(', ')
    : '';

const snippet = (text: unknown): string => (typeof text === 'string' ? text.replace(/\s+/g, ' ').trim().slice(0, 200) : '');

function facts(summary: string, params: Record<string, unknown>, redirect: boolean): Fact[] {
  const out: Fact[] = [];
  const add = (label: string, value: string) => {
    if (value) out.push({ label, value });
  };
  add('From', people([params.from]));
  add(redirect ? 'Redirected to' : 'To', people(params.to));
  add('Cc', people(params.cc));
  add('Bcc', people(params.bcc));
  add('Subject', typeof params.subject === 'string' ? params.subject : '');
  add('Text', snippet(params.text));
  add('Files', Array.isArray(params.fileIds) ? params.fileIds.join(', ') : '');
  const why = /: held because (?<why>.+)$/s.exec(summary)?.groups?.why;
  for (const reason of why ? why.split('; ') : []) add('Held because', reason);
  return out;
}

export const emailHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'email.send': (summary, params) => ({ title: "Send an agent's email", facts: facts(summary, params, false) }),
  'email.redirect': (summary, params) => ({ title: "Redirect an email (an agent's)", facts: facts(summary, params, true) }),
};
