import { pick } from './directory-names.js';

/*
 * The words of the governance bench's decision log. Titles come from per-area topics; context, decision and
 * consequences from sentence templates whose slots take vendors, customers, regions, products, teams, metrics and
 * months, so a body is a few of thousands of distinct sentences, as a log written by many people over years is:
 * an area's word (pricing) is in a tenth of the decisions, a topic in about one in a hundred, a phrase naming a
 * customer or a region rarer still (the bench prints how many decisions each of its searches matches).
 */

export const AREAS = [
  'pricing', 'pricing', 'pricing.eu', 'pricing.apac', 'hiring', 'hiring.engineering', 'security', 'security', 'product', 'product',
  'product.mobile', 'finance', 'finance.budget', 'vendors', 'ops', 'ops', 'legal', 'marketing', 'people', 'facilities', 'data', 'charter',
];

export const OBJECTS: Readonly<Record<string, readonly string[]>> = {
  pricing: ['usage-based pricing', 'annual prepay discounts', 'reseller margins', 'the free tier', 'enterprise minimums', 'list prices', 'volume tiers', 'pricing for nonprofits', 'the pricing page', 'seat-based pricing'],
  hiring: ['a hiring freeze', 'the graduate programme', 'contractor day rates', 'remote-first hiring', 'the referral bonus', 'take-home exercises', 'the interview panel', 'relocation support'],
  security: ['SSO for all staff', 'hardware security keys', 'quarterly access reviews', 'the bug bounty', 'laptop disk encryption', 'vendor security reviews', 'the penetration test', 'secrets rotation'],
  product: ['the mobile app', 'the public API v2', 'offline sync', 'dark mode', 'the onboarding checklist', 'multi-currency invoices', 'audit exports', 'the partner portal', 'bulk import'],
  finance: ['the FY27 budget', 'quarterly reforecasts', 'the travel policy', 'supplier payment terms', 'the corporate card limits', 'FX hedging', 'the expense tool', 'budget sign-off limits'],
  vendors: ['the payroll provider', 'cloud hosting', 'the CRM vendor', 'office cleaning', 'the accounting firm', 'the recruitment agency', 'the telephony provider', 'procurement of laptops'],
  ops: ['the on-call rotation', 'the incident process', 'the release train', 'database backups', 'the status page', 'capacity planning', 'the change freeze', 'runbooks'],
  legal: ['the standard MSA', 'data retention', 'the privacy policy', 'contract sign-off limits', 'trademark filings', 'the DPA template'],
  marketing: ['the brand refresh', 'the trade show budget', 'the newsletter', 'paid search', 'the café sponsorship in Zürich', 'the customer conference', 'case studies'],
  people: ['the parental leave policy', 'four-day weeks', 'the learning budget', 'performance reviews', 'the salary bands', 'the wellbeing allowance'],
  facilities: ['the Sydney office lease', 'hot desking', 'the Melbourne fit-out', 'bike storage', 'the Auckland co-working desks'],
  data: ['the data warehouse', 'event tracking', 'the BI tool', 'customer data residency in the EU', 'the retention of analytics data'],
  charter: ['the mission statement', 'the clause on agent autonomy', 'the decision rights of the board', 'the values section'],
};
export const VERBS = ['Adopt', 'Retire', 'Standardise on', 'Pilot', 'Pause', 'Consolidate', 'Outsource', 'Bring in-house', 'Approve', 'Replace', 'Extend', 'Review', 'Cap', 'Fund'];
export const WHEN = ['for EU customers', 'in Q3', 'for APAC', 'from July', 'across all teams', 'for new hires', 'for the Sydney office', 'from next quarter', 'for enterprise plans', '', '', ''];

const SLOTS: Readonly<Record<string, readonly string[]>> = {
  vendor: ['Northwind Payroll', 'Brightwater Cloud', 'Kestrel CRM', 'Meridian Legal', 'Halcyon Security', 'Ironbark Telecom', 'Bluegum Analytics', 'Summit Recruitment', 'Harbour Freight', 'Copperleaf Accounting', 'Vega Hosting', 'Atlas Insurance', 'Orion Print', 'Lotus Cleaning', 'Polaris Travel'],
  customer: ['Müller GmbH', 'Acme Pty Ltd', 'Café Lumière', 'Søndergaard ApS', 'Kauri Health', 'Tasman Freight', 'Groupe Mercier', 'Hernández y Hijos', 'Sakura Foods', 'Redgum Builders', 'Fitzroy Dental', 'Peña Logistics', 'Zürich Re', 'Kraków Labs', 'Bellevue Hotels'],
  region: ['the EU', 'APAC', 'New Zealand', 'the UK', 'North America', 'Queensland', 'Victoria', 'Germany', 'France', 'Japan', 'Singapore', 'the Nordics'],
  product: ['the mobile app', 'the public API', 'the billing engine', 'the reporting suite', 'the partner portal', 'the admin console', 'the search service', 'the import tool', 'the notifications service', 'the desktop client'],
  team: ['sales', 'support', 'platform', 'finance', 'people', 'security', 'design', 'data', 'legal', 'marketing', 'operations', 'customer success'],
  metric: ['churn', 'gross margin', 'NPS', 'time to first response', 'cash runway', 'deployment frequency', 'win rate', 'ticket backlog', 'hosting cost per customer', 'attrition'],
  month: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  competitor: ['Globex', 'Initech', 'Umbrella Systems', 'Hooli', 'Vandelay Industries', 'Stark Analytics'],
  regulator: ['ACCC', 'OAIC', 'European Commission', 'ICO', 'ASIC', 'APRA', 'CNIL'],
  city: ['Sydney', 'Melbourne', 'Brisbane', 'Auckland', 'London', 'Berlin', 'Paris', 'Tokyo', 'Singapore', 'Zürich'],
};

const CONTEXT = [
  'Costs for {product} rose {n}% over the last year.', '{customer} asked for this at the {month} account review.', 'Our contract with {vendor} expires in {month}.',
  'Support tickets about {product} doubled since {month}.', 'The {month} audit flagged {metric} as a gap.', '{competitor} moved first in {region} and we lost two deals.',
  'The {team} team ran a six-week trial in {region}.', '{vendor} announced a price increase of {n}%.', 'The {regulator} published new guidance for {region}.',
  'Headcount in {team} grew to {n} people.', '{customer} raised it at the partner summit in {city}.', 'The board asked for a recommendation on {product} before {month}.',
  '{metric} fell for three months in a row.', 'A survey of {n} customers in {region} ranked it first.', 'Our insurer requires it from {month}.',
  'The {team} lead proposed it after the incident in {month}.', 'Usage of {product} in {region} grew {n}% quarter on quarter.', 'Legal reviewed the {vendor} terms and found two issues.',
  'Finance modelled three options; this one pays back in {n} months.', 'Staff feedback from the {city} office was mixed.', '{customer} is our largest account in {region}.',
  'We spend {n}k a year with {vendor}.', 'The {team} team has asked for it since {month}.', '{competitor} cut its prices in {region} by {n}%.',
  'An outage of {product} in {month} cost us {n} hours.', 'The {regulator} opened a consultation that closes in {month}.', 'Our {metric} is below target in {region}.',
  'Two senior people in {team} left in {month}.', '{vendor} was acquired by {competitor}.', 'The pilot with {customer} ended in {month}.',
];
const DECISION = [
  'We will {verb} {object} {when}.', 'Owners: the {team} lead, with finance reviewing monthly.', 'The change applies to new contracts; existing ones renew on the new terms.',
  'Budget of ${n}k is approved for the first year.', 'We will revisit after {n} weeks with data on {metric}.', 'Exceptions need the CFO’s sign-off.',
  'The rollout starts in {region}, then the rest of the world from {month}.', 'Customers get {n} days’ notice by email.', '{vendor} takes over from {month}.',
  'The {team} team owns the rollout; {city} goes first.', 'We keep {product} as it is for {customer} until renewal.', 'The target for {metric} is {n}% better within a year.',
  'We tell {customer} before the public announcement.', 'The old arrangement ends in {month}.', 'Spend above ${n}k needs a second approver from {team}.',
];
const CONSEQUENCES = [
  'Revenue per account in {region} should rise by about {n}%.', 'Some customers will churn; we accept that risk.', 'Engineering loses {n} weeks of roadmap time on {product}.',
  'The policy page and the help centre need updating.', 'Procurement renegotiates the contracts with {vendor}.', 'We need one more on-call engineer in {team}.',
  'Reporting gets simpler for the finance team.', 'Onboarding takes a day longer for new staff in {city}.', '{metric} may worsen for a quarter.',
  '{customer} needs a migration plan.', 'The {team} budget grows by ${n}k.', 'We exit the contract with {vendor} in {month}.', 'Sales in {region} get new collateral.',
];
export const REASONS = ['Superseded by events: the vendor withdrew the offer.', 'The pilot did not meet its targets.', 'Withdrawn by the driver after review.', 'The board decided otherwise.'];
export const COMMENTS = ['Can we see the numbers behind this?', 'Support from the sales team.', 'What happens to existing customers?', 'Please add a review date.', 'Looks good to me.'];

/** A template with its slots filled ({n} a number; {verb}, {object}, {when} from `vars`). */
const fill = (r: () => number, s: string, vars: Record<string, string>) =>
  s.replace(/\{(\w+)\}/g, (_, k: string) => (k === 'n' ? String(2 + Math.floor(r() * 40)) : (vars[k] ?? (SLOTS[k] ? pick(r, SLOTS[k]) : '')))).replace(/\s+\./g, '.');

const sentences = (r: () => number, bank: readonly string[], n: number, vars: Record<string, string>) =>
  Array.from({ length: n }, () => fill(r, pick(r, bank), vars)).join(' ');

export const contextText = (r: () => number, vars: Record<string, string>) => sentences(r, CONTEXT, 2 + Math.floor(r() * 3), vars);
export const decisionText = (r: () => number, vars: Record<string, string>) => sentences(r, DECISION, 2 + Math.floor(r() * 3), vars);
export const consequencesText = (r: () => number, vars: Record<string, string>, n = 1 + Math.floor(r() * 3)) => sentences(r, CONSEQUENCES, n, vars);
