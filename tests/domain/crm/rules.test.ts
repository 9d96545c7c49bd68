import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FACTS, OPEN_STAGES, PlaybookDefinition, RISK_FLAGS } from '../../../protocol/methods/crm/index.js';
import { compile } from '../../../domain/crm/playbooks/compile.js';
import { checkWhen, evaluate, type Facts } from '../../../domain/crm/playbooks/rules.js';

/*
 * The playbook evaluator (domain/crm/playbooks/rules.ts): path diagnostics for what it refuses, JSON Logic's
 * meaning for what it accepts, and, over random rule trees and random facts (fast-check), total (never throws) and
 * deterministic.
 */

const when = (raw: unknown) => checkWhen(raw, 'rules[0].when');
const run = (raw: unknown, facts: Facts) => {
  const c = when(raw);
  expect(c.diagnostics).toEqual([]);
  return evaluate(c.node!, facts);
};
const v = (name: string) => ({ var: name });
const base: Facts = {
  'deal.stage': 'proposal',
  'deal.amountCents': 5_000_000,
  'deal.daysInStage': 22,
  'deal.daysSinceActivity': 3,
  'deal.daysToClose': 40,
  'deal.closeDatePushes': 1,
  'hasRole.champion': true,
  'hasRole.economic_buyer': false,
  'offer.discountBps': null,
  'room.daysSinceGuestView': 9,
  'risk.stalled': true,
  'risk.overdue': false,
};

describe('checkWhen: what it refuses, with the path', () => {
  it('the design’s unknown fact, with a hint', () => {
    const def = { '>': [v('deal.amout'), 100] };
    expect(checkWhen(def, 'rules[2].when').diagnostics).toEqual([
      { path: 'rules[2].when.>[0]', message: 'unknown fact deal.amout; did you mean deal.amountCents?' },
    ]);
  });

  it.each([
    [{ '>': [v('deal.stage'), 3] }, 'rules[0].when.>[0]', 'must be a number, not a stage'],
    [{ '==': [v('deal.stage'), 'won-ish'] }, 'rules[0].when.==[1]', 'unknown stage "won-ish"'],
    [{ '==': [v('deal.amountCents'), 'x'] }, 'rules[0].when.==', 'compares a number with a string'],
    [{ '==': [v('deal.amountCents'), null] }, 'rules[0].when.==', 'compares a number with null'],
    [{ and: [v('risk.stalled'), 3] }, 'rules[0].when.and[1]', 'must be a condition (true or false), not a number'],
    [{ '!': [v('risk.stalled'), v('risk.overdue')] }, 'rules[0].when.!', '! takes one condition'],
    [{ max: [1, 2] }, 'rules[0].when', 'unknown operation "max"'],
    [{ method: [1, 'toString'] }, 'rules[0].when', 'unknown operation "method"'],
    [{ '<': [1, v('deal.daysInStage'), 3, 4] }, 'rules[0].when.<', '< takes two or three operands'],
    [{ '>': [1, 2, 3] }, 'rules[0].when.>', '> takes two operands'],
    [{ in: [v('deal.stage'), 'proposal'] }, 'rules[0].when.in[1]', 'must be an array of literals'],
    [{ in: [v('deal.stage'), ['proposal', 'nope']] }, 'rules[0].when.in[1][1]', 'unknown stage "nope"'],
    [{ in: [v('deal.stage'), [{ var: 'x' }]] }, 'rules[0].when.in[1][0]', 'must be a literal'],
    [v('deal.amountCents'), 'rules[0].when', 'must be a condition (true or false), not a number'],
    [{ var: ['deal.stage', 'lead'] }, 'rules[0].when', 'var takes one fact name'],
    [{ var: '__proto__' }, 'rules[0].when', 'unknown fact __proto__'],
    [{ var: 'constructor' }, 'rules[0].when', 'unknown fact constructor'],
    [{ '>': [v('a'), 1], '<': [v('b'), 2] }, 'rules[0].when', 'must have exactly one operation'],
    [[1, 2], 'rules[0].when', 'an array is only the second operand of in'],
    ['text', 'rules[0].when', 'must be a condition (true or false), not a string'],
  ])('%j -> %s: %s', (raw, path, message) => {
    const d = when(raw).diagnostics;
    expect(d[0]?.path).toBe(path);
    expect(d[0]?.message).toContain(message);
    expect(when(raw).node).toBeNull();
  });

  it('depth 8 passes, 9 is refused at the ninth level', () => {
    let deep: unknown = v('risk.stalled');
    for (let i = 0; i < 7; i++) deep = { '!': deep };
    expect(when(deep).diagnostics).toEqual([]);
    const nine = { '!': deep };
    expect(when(nine).diagnostics).toEqual([{ path: 'rules[0].when.!.!.!.!.!.!.!.!', message: 'nested deeper than 8 levels' }]);
  });

  it('a condition of at most 500 operations and values passes; one more is refused once, whatever its width', () => {
    // or(10 x and(49 x var)): 1 + 10 + 490 = 501 nodes; 9 and-groups and one of 40: 1 + 10 + 9 * 49 + 40 = 492.
    const group = (n: number) => ({ and: Array.from({ length: n }, () => v('risk.stalled')) });
    const fits = { or: [...Array.from({ length: 9 }, () => group(49)), group(40)] };
    expect(when(fits).diagnostics).toEqual([]);
    const big = { or: Array.from({ length: 10 }, () => group(49)) };
    expect(when(big).diagnostics).toEqual([{ path: 'rules[0].when.or[9].and[48]', message: expect.stringMatching(/^too large: more than 500 operations/) }]);
    // An in list's values count: 500 nodes of literals never reach the evaluator.
    const wide = { or: Array.from({ length: 10 }, () => ({ in: [v('deal.stage'), Array.from({ length: 50 }, () => 'lead')] })) };
    expect(when(wide).diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/^too large/)]);
  });
});

describe('evaluate: JSON Logic’s meaning', () => {
  it.each([
    [{ '>': [v('deal.daysInStage'), 21] }, true],
    [{ '<': [10, v('deal.daysToClose'), 30] }, false],
    [{ '<=': [10, v('deal.daysToClose'), 40] }, true],
    [{ and: [v('risk.stalled'), { '!': v('risk.overdue') }] }, true],
    [{ or: [v('hasRole.economic_buyer'), v('hasRole.decision_maker')] }, false],
    [{ '==': [v('deal.stage'), 'proposal'] }, true],
    [{ '!=': [v('deal.stage'), 'proposal'] }, false],
    [{ in: [v('deal.stage'), ['proposal', 'negotiation']] }, true],
    [{ in: [v('deal.closeDatePushes'), [2, 3]] }, false],
    // null facts: a comparison is false, == null is true
    [{ '>': [v('offer.discountBps'), 1000] }, false],
    [{ '<=': [v('offer.discountBps'), 1000] }, false],
    [{ '==': [v('offer.discountBps'), null] }, true],
    [{ '>=': [v('room.daysSinceGuestView'), 7] }, true],
    // a fact the facts lack (hasRole.legal) reads as null: false
    [v('hasRole.legal'), false],
    [{ '!': v('hasRole.legal') }, true],
    [true, true],
  ])('%j -> %s', (raw, expected) => {
    expect(run(raw, base)).toBe(expected);
  });

  it('compile: duplicate rule ids, calls checked against their contracts, facts read', () => {
    const def = PlaybookDefinition.parse({
      name: 'p',
      rules: [
        { id: 'a', when: v('risk.stalled'), then: { action: 'suggest', text: 'move it', call: { method: 'crm.moveStage', params: { stage: 'won' } } } },
        { id: 'a', when: { '>': [v('deal.amountCents'), 1] }, then: { action: 'task', title: 't' } },
        { id: 'b', when: v('risk.stalled'), then: { action: 'suggest', text: 'x', call: { method: 'crm.getDeal', params: { dealId: 'deal_x' } } } },
      ],
    });
    const c = compile(def);
    expect(c.valid).toBe(false);
    expect(c.diagnostics.map((d) => d.path)).toEqual(['rules[0].then.call.params.stage', 'rules[1].id', 'rules[2].then.call.params.dealId']);
    const good = compile(
      PlaybookDefinition.parse({
        name: 'p',
        rules: [{ id: 'a', when: { and: [v('risk.stalled'), { '>': [v('deal.amountCents'), 1] }] }, then: { action: 'task', title: 't' } }],
      }),
    );
    expect(good).toMatchObject({ valid: true, diagnostics: [] });
    expect(good.rules[0].facts).toEqual(['deal.amountCents', 'risk.stalled']);
  });
});

// Random rule trees: mostly well-typed, with unknown facts, wrong types, odd ops and odd shapes mixed in.
const factNames = Object.keys(FACTS);
const literal = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.boolean(), fc.constant(null), fc.constantFrom(...OPEN_STAGES, 'won', 'nope', ''));
const { tree } = fc.letrec<{ tree: unknown; leaf: unknown }>((tie) => ({
  leaf: fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...factNames).map((n) => ({ var: n })) },
    { weight: 1, arbitrary: fc.constantFrom('deal.amout', 'risk.nope', '', '__proto__', 'constructor').map((n) => ({ var: n })) },
    { weight: 3, arbitrary: literal },
  ),
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc.record({ and: fc.array(tie('tree'), { maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('tree'), { maxLength: 3 }) }),
    fc.record({ '!': tie('tree') }),
    fc.tuple(fc.constantFrom('==', '!=', '<', '<=', '>', '>='), fc.array(tie('tree'), { minLength: 1, maxLength: 3 })).map(([op, args]) => ({ [op]: args })),
    fc.tuple(tie('leaf'), fc.array(literal, { maxLength: 4 })).map(([a, set]) => ({ in: [a, set] })),
    fc.constantFrom({ method: ['x', 'y'] }, { var: 1 }, {}, [], { '==': 1 }),
  ),
}));

const anyFacts: fc.Arbitrary<Facts> = fc.dictionary(
  fc.constantFrom(...factNames, 'deal.amout'),
  fc.oneof(fc.integer({ min: -50, max: 50 }), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(...OPEN_STAGES), fc.string({ maxLength: 5 })),
);

describe('over random rule trees and facts', () => {
  it('check is total: a typed tree, or diagnostics under the rule’s path, never both, never a throw', () => {
    fc.assert(
      fc.property(tree, (raw) => {
        const c = when(raw);
        expect((c.node === null) !== (c.diagnostics.length === 0)).toBe(true);
        for (const d of c.diagnostics) expect(d.path.startsWith('rules[0].when')).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('evaluate is total and deterministic: a boolean, the same twice and on a copy of the facts', () => {
    fc.assert(
      fc.property(tree, anyFacts, (raw, facts) => {
        const c = when(raw);
        fc.pre(c.node !== null);
        const a = evaluate(c.node, facts);
        expect(typeof a).toBe('boolean');
        expect(evaluate(c.node, facts)).toBe(a);
        expect(evaluate(structuredClone(c.node), { ...facts })).toBe(a);
      }),
      { numRuns: 2000 },
    );
  });

  it('! flips, and = and != disagree, on well-typed facts', () => {
    const facts = fc.record(
      Object.fromEntries(
        factNames.map((n) => [
          n,
          FACTS[n] === 'stage'
            ? fc.constantFrom(...OPEN_STAGES)
            : FACTS[n] === 'boolean'
              ? fc.boolean()
              : FACTS[n] === 'number'
                ? fc.integer()
                : fc.option(fc.integer()),
        ]),
      ),
    ) as fc.Arbitrary<Facts>;
    fc.assert(
      fc.property(tree, facts, (raw, f) => {
        const c = when(raw);
        fc.pre(c.node !== null);
        expect(evaluate({ k: 'not', arg: c.node }, f)).toBe(!evaluate(c.node, f));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...RISK_FLAGS), facts, (flag, f) => {
        const eq = when({ '==': [v(`risk.${flag}`), true] }).node!;
        const ne = when({ '!=': [v(`risk.${flag}`), true] }).node!;
        expect(evaluate(eq, f)).toBe(!evaluate(ne, f));
      }),
    );
  });
});
