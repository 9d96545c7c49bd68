import { parse, Tester, type Compare, type Filter } from 'scim2-parse-filter';
import { invalid } from './errors.js';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from './schemas.js';

/**
 * SCIM filters (RFC 7644 section 3.4.2.2), parsed and evaluated by scim2-parse-filter. The equality tests an
 * identity provider looks users up by (userName, externalId, emails.value, employeeNumber, id, active) become
 * database criteria; every filter is then evaluated in full on the candidates with the library's Tester, told
 * SCIM's two rules it leaves out: string values compare ignoring case unless the attribute is case-exact, and a
 * core schema URN before an attribute (`urn:…:core:2.0:User:userName`) names the resource itself.
 */

export function parseFilter(text: string): Filter {
  try {
    return parse(text);
  } catch (err) {
    throw invalid(`filter: ${(err as Error).message}`, 'invalidFilter');
  }
}

const CORE = [USER_SCHEMA, GROUP_SCHEMA].map((s) => `${s.toLowerCase()}:`);
const stripCore = (path: string) => {
  const core = CORE.find((c) => path.toLowerCase().startsWith(c));
  return core ? path.slice(core.length) : path;
};

/** The eq tests of a filter's top-level conjunction, by lowercased attribute path. */
export function equalities(f: Filter): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const add = (key: string, v: unknown) => out.set(key, [...(out.get(key) ?? []), v]);
  const visit = (g: Filter) => {
    if (g.op === 'and') g.filters.forEach(visit);
    else if (g.op === 'eq') add(stripCore(g.attrPath).toLowerCase(), g.compValue);
    // emails[value eq "x"] is emails.value eq "x"
    else if (g.op === '[]' && g.valFilter.op === 'eq' && g.valFilter.attrPath.toLowerCase() === 'value')
      add(`${stripCore(g.attrPath).toLowerCase()}.value`, g.valFilter.compValue);
  };
  visit(f);
  return out;
}

/** Attribute paths (lowercased, full URN for extension attributes) compared exactly. */
const CASE_EXACT = new Set([
  'id',
  'externalid',
  'members.value',
  'groups.value',
  `${ENTERPRISE_SCHEMA}:employeeNumber`.toLowerCase(),
  `${ENTERPRISE_SCHEMA}:manager.value`.toLowerCase(),
]);

const fold = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

/** The library's evaluator, case-insensitive for strings except on case-exact attributes. */
class ScimTester extends Tester {
  private exact = true;

  override test(r: any, f: Filter): boolean {
    if (f.op === 'and' || f.op === 'or' || f.op === 'not' || f.op === 'pr') return super.test(r, f);
    if (f.op === '[]') return super.test(r, { ...f, attrPath: stripCore(f.attrPath) });
    const c = f as Compare;
    const path = stripCore(c.attrPath);
    const outer = this.exact;
    this.exact = CASE_EXACT.has(path.toLowerCase()) || typeof c.compValue !== 'string';
    try {
      return super.test(r, { ...c, attrPath: path });
    } finally {
      this.exact = outer;
    }
  }

  override eq(r: unknown, v: unknown) {
    return this.exact ? r === v : fold(r) === fold(v);
  }
  override ne(r: unknown, v: unknown) {
    return !this.eq(r, v);
  }
  override co(r: unknown, v: unknown) {
    return this.text(r, v, (a, b) => a.includes(b));
  }
  override sw(r: unknown, v: unknown) {
    return this.text(r, v, (a, b) => a.startsWith(b));
  }
  override ew(r: unknown, v: unknown) {
    return this.text(r, v, (a, b) => a.endsWith(b));
  }
  override gt(r: any, v: any) {
    return v !== null && (fold(r) as any) > (fold(v) as any);
  }
  override lt(r: any, v: any) {
    return v !== null && (fold(r) as any) < (fold(v) as any);
  }
  override ge(r: any, v: any) {
    return v !== null && (fold(r) as any) >= (fold(v) as any);
  }
  override le(r: any, v: any) {
    return v !== null && (fold(r) as any) <= (fold(v) as any);
  }

  private text(r: unknown, v: unknown, op: (a: string, b: string) => boolean): boolean {
    if (typeof r !== 'string' || typeof v !== 'string') return false;
    return this.exact ? op(r, v) : op(r.toLowerCase(), v.toLowerCase());
  }
}

/** Whether `resource` (a SCIM resource as this face renders it) matches the filter. */
export function matches(f: Filter, resource: unknown): boolean {
  return new ScimTester().test(resource, f);
}
