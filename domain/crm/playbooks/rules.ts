import { FACTS, MAX_DEPTH, STAGES } from '../../../protocol/methods/crm/index.js';

/*
 * The rule evaluator: JSON Logic syntax, our own typed implementation (no eval, no json-logic-js, whose `method` op
 * ran code and whose operations are global). check() turns a raw `when` into a typed tree or path diagnostics
 * (`rules[2].when.>[0]: unknown fact deal.amout`); evaluate() is total and deterministic over any facts: a missing
 * or mistyped fact reads as null, and a comparison with null is false.
 */

export type Literal = number | string | boolean | null;
export type Facts = Readonly<Record<string, Literal>>;

export type Node =
  | { k: 'lit'; v: Literal }
  | { k: 'var'; name: string }
  | { k: 'and' | 'or'; args: Node[] }
  | { k: 'not'; arg: Node }
  | { k: 'cmp'; op: '<' | '<=' | '>' | '>='; args: Node[] }
  | { k: 'eq'; op: '==' | '!='; a: Node; b: Node }
  | { k: 'in'; a: Node; set: Literal[] };

/** A node's type: number? may be null; null is the literal null. */
type Type = 'number' | 'number?' | 'boolean' | 'stage' | 'string' | 'null';

export interface Diagnostic {
  path: string;
  message: string;
}

const OPS = ['and', 'or', '!', '==', '!=', '<', '<=', '>', '>=', 'in', 'var'] as const;
const MAX_OPERANDS = 50;
/**
 * Operations and values in one condition: depth and operands alone allow 50^8 nodes, and the evaluator runs every
 * rule against every deal of a next-best-action run, so a condition's size is bounded too.
 */
export const MAX_NODES = 500;
const STAGE_SET: ReadonlySet<string> = new Set(STAGES);

const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `${typeof v} ${short(v)}`;
const short = (v: unknown): string => JSON.stringify(v)?.slice(0, 40) ?? String(v);

/** The known fact nearest to a misspelt one (edit distance <= 3), for the diagnostic's hint. */
function nearest(name: string): string | null {
  let best: string | null = null;
  let bestD = 4;
  for (const known of Object.keys(FACTS)) {
    // Whole names, or the known name cut near the given one's length (deal.amout: deal.amountCents).
    const [a, b] = [name.toLowerCase(), known.toLowerCase()];
    const d = Math.min(distance(a, b), distance(a, b.slice(0, a.length + 1)) + 1);
    if (d < bestD) [best, bestD] = [known, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 4;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

const numeric = (t: Type) => t === 'number' || t === 'number?';
const stringy = (t: Type) => t === 'stage' || t === 'string';

/** Can a value of type a be compared for equality with one of type b? */
function comparable(a: Type, b: Type): boolean {
  if (a === 'null' || b === 'null') return a === 'number?' || b === 'number?' || (a === 'null' && b === 'null');
  return (numeric(a) && numeric(b)) || (stringy(a) && stringy(b)) || (a === 'boolean' && b === 'boolean');
}

const TYPE_WORDS: Record<Type, string> = {
  number: 'a number',
  'number?': 'a number (or null)',
  boolean: 'a condition (true or false)',
  stage: 'a stage',
  string: 'a string',
  null: 'null',
};

class Checker {
  readonly diagnostics: Diagnostic[] = [];
  readonly facts = new Set<string>();
  private nodes = 0;

  /** Count `n` more nodes: false (said once) when the condition grows past MAX_NODES. */
  private grow(path: string, n: number): boolean {
    const before = this.nodes;
    this.nodes += n;
    if (this.nodes <= MAX_NODES) return true;
    if (before <= MAX_NODES) this.fail(path, `too large: more than ${MAX_NODES} operations and values in one condition; split it into rules`);
    return false;
  }

  private fail(path: string, message: string): null {
    this.diagnostics.push({ path, message });
    return null;
  }

  /** A literal string compared with a stage must be one. */
  private stageLiteral(path: string, n: Node, other: Type): boolean {
    if (other !== 'stage' || n.k !== 'lit' || typeof n.v !== 'string' || STAGE_SET.has(n.v)) return true;
    this.fail(path, `unknown stage ${short(n.v)} (stages: ${STAGES.join(', ')})`);
    return false;
  }

  check(raw: unknown, path: string, depth: number): { node: Node; type: Type } | null {
    if (!this.grow(path, 1)) return null;
    if (raw === null) return { node: { k: 'lit', v: null }, type: 'null' };
    if (typeof raw === 'boolean') return { node: { k: 'lit', v: raw }, type: 'boolean' };
    if (typeof raw === 'number') return Number.isFinite(raw) ? { node: { k: 'lit', v: raw }, type: 'number' } : this.fail(path, 'must be a finite number');
    if (typeof raw === 'string') return { node: { k: 'lit', v: raw }, type: STAGE_SET.has(raw) ? 'stage' : 'string' };
    if (Array.isArray(raw)) return this.fail(path, 'an array is only the second operand of in');
    if (typeof raw !== 'object') return this.fail(path, `must be a condition, not ${describe(raw)}`);
    const keys = Object.keys(raw);
    if (keys.length !== 1) return this.fail(path, `must have exactly one operation (${OPS.join(', ')}), not ${keys.length}`);
    const op = keys[0];
    if (!(OPS as readonly string[]).includes(op)) return this.fail(path, `unknown operation ${short(op)} (allowed: ${OPS.join(', ')})`);
    if (depth > MAX_DEPTH) return this.fail(path, `nested deeper than ${MAX_DEPTH} levels`);
    const value = (raw as Record<string, unknown>)[op];
    const at = `${path}.${op}`;
    const args = Array.isArray(value) ? value : [value];
    const argAt = (i: number) => (Array.isArray(value) ? `${at}[${i}]` : at);
    if (args.length > MAX_OPERANDS) return this.fail(at, `takes at most ${MAX_OPERANDS} operands`);

    if (op === 'var') {
      const name = args[0];
      if (args.length !== 1 || typeof name !== 'string') return this.fail(path, 'var takes one fact name, such as {"var": "deal.stage"}');
      // Own keys only: __proto__ or constructor are not facts.
      const type = Object.hasOwn(FACTS, name) ? FACTS[name] : undefined;
      if (!type) {
        const hint = nearest(name);
        return this.fail(path, `unknown fact ${name.slice(0, 64)}${hint ? `; did you mean ${hint}?` : ''}`);
      }
      this.facts.add(name);
      return { node: { k: 'var', name }, type };
    }
    if (op === 'in') {
      if (args.length !== 2) return this.fail(at, 'in takes two operands: a value and an array of literals');
      const a = this.check(args[0], argAt(0), depth + 1);
      const list = args[1];
      if (!Array.isArray(list)) return this.fail(argAt(1), 'must be an array of literals');
      if (list.length > MAX_OPERANDS) return this.fail(argAt(1), `takes at most ${MAX_OPERANDS} values`);
      if (!this.grow(argAt(1), list.length)) return null;
      if (!a) return null;
      const set: Literal[] = [];
      let ok = true;
      list.forEach((v: unknown, i) => {
        const where = `${argAt(1)}[${i}]`;
        if (v !== null && typeof v === 'object') ok = !!this.fail(where, 'must be a literal (number, string, true, false or null)');
        else if (typeof v === 'number' && !Number.isFinite(v)) ok = !!this.fail(where, 'must be a finite number');
        else if (typeof v !== 'number' && typeof v !== 'string' && typeof v !== 'boolean' && v !== null) ok = !!this.fail(where, 'must be a literal');
        else {
          const t: Type = v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string';
          if (!comparable(a.type, t)) ok = !!this.fail(where, `cannot be compared with ${TYPE_WORDS[a.type]}`);
          else if (!this.stageLiteral(where, { k: 'lit', v }, a.type)) ok = false;
          else set.push(v);
        }
      });
      return ok ? { node: { k: 'in', a: a.node, set }, type: 'boolean' } : null;
    }

    const checked = args.map((x, i) => this.check(x, argAt(i), depth + 1));
    if (checked.some((x) => x === null)) return null;
    const xs = checked as { node: Node; type: Type }[];
    if (op === 'and' || op === 'or' || op === '!') {
      if (op === '!' ? xs.length !== 1 : xs.length < 1) return this.fail(at, op === '!' ? '! takes one condition' : `${op} takes at least one condition`);
      const bad = xs.findIndex((x) => x.type !== 'boolean');
      if (bad >= 0) return this.fail(argAt(bad), `must be ${TYPE_WORDS.boolean}, not ${TYPE_WORDS[xs[bad].type]}`);
      return { node: op === '!' ? { k: 'not', arg: xs[0].node } : { k: op, args: xs.map((x) => x.node) }, type: 'boolean' };
    }
    if (op === '==' || op === '!=') {
      if (xs.length !== 2) return this.fail(at, `${op} takes two operands`);
      if (!comparable(xs[0].type, xs[1].type)) return this.fail(at, `compares ${TYPE_WORDS[xs[0].type]} with ${TYPE_WORDS[xs[1].type]}`);
      if (!this.stageLiteral(argAt(0), xs[0].node, xs[1].type) || !this.stageLiteral(argAt(1), xs[1].node, xs[0].type)) return null;
      return { node: { k: 'eq', op, a: xs[0].node, b: xs[1].node }, type: 'boolean' };
    }
    // < <= > >=: numbers; < and <= also take three (between).
    const arity = op === '<' || op === '<=' ? 'two or three' : 'two';
    if (xs.length < 2 || xs.length > (arity === 'two' ? 2 : 3)) return this.fail(at, `${op} takes ${arity} operands`);
    const bad = xs.findIndex((x) => !numeric(x.type));
    if (bad >= 0) return this.fail(argAt(bad), `must be a number, not ${TYPE_WORDS[xs[bad].type]}`);
    return { node: { k: 'cmp', op: op as '<' | '<=' | '>' | '>=', args: xs.map((x) => x.node) }, type: 'boolean' };
  }
}

/** A raw condition as a typed tree that reads `facts`, or its diagnostics (paths under `path`). */
export function checkWhen(raw: unknown, path: string): { node: Node | null; facts: string[]; diagnostics: Diagnostic[] } {
  const c = new Checker();
  const out = c.check(raw, path, 1);
  if (out && out.type !== 'boolean') c.diagnostics.push({ path, message: `must be ${TYPE_WORDS.boolean}, not ${TYPE_WORDS[out.type]}` });
  const ok = out !== null && c.diagnostics.length === 0;
  return { node: ok ? out.node : null, facts: [...c.facts].sort(), diagnostics: c.diagnostics };
}

const lit = (v: unknown): Literal => (typeof v === 'number' ? (Number.isFinite(v) ? v : null) : typeof v === 'string' || typeof v === 'boolean' ? v : null);

function value(n: Node, facts: Facts): Literal {
  switch (n.k) {
    case 'lit':
      return n.v;
    case 'var':
      return Object.prototype.hasOwnProperty.call(facts, n.name) ? lit(facts[n.name]) : null;
    default:
      return evaluate(n, facts);
  }
}

/** The condition's truth over these facts: total (never throws) and deterministic. */
export function evaluate(n: Node, facts: Facts): boolean {
  switch (n.k) {
    case 'lit':
      return n.v === true;
    case 'var':
      return value(n, facts) === true;
    case 'and':
      return n.args.every((a) => evaluate(a, facts));
    case 'or':
      return n.args.some((a) => evaluate(a, facts));
    case 'not':
      return !evaluate(n.arg, facts);
    case 'eq': {
      const same = value(n.a, facts) === value(n.b, facts);
      return n.op === '==' ? same : !same;
    }
    case 'in': {
      const v = value(n.a, facts);
      return n.set.some((x) => x === v);
    }
    case 'cmp': {
      const vs = n.args.map((a) => value(a, facts));
      if (!vs.every((v): v is number => typeof v === 'number')) return false;
      for (let i = 1; i < vs.length; i++) {
        const [a, b] = [vs[i - 1], vs[i]];
        const holds = n.op === '<' ? a < b : n.op === '<=' ? a <= b : n.op === '>' ? a > b : a >= b;
        if (!holds) return false;
      }
      return true;
    }
  }
}
