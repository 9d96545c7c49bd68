import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * FORBIDDEN_SCOPE means one thing (spec, Errors): the caller lacks a permission a grant would give it, and the
 * message names it: a scope of its key (`missing scope <scope> for <method or record>`) or a role on a resource
 * (`missing role <role> on <id>`). A rule about who acts (an agent where a human's decision is needed, the wrong
 * party to a record, nobody able to decide) is GOVERNANCE_NOT_READY or CONFLICT. This reads every place in
 * domain/ that answers FORBIDDEN_SCOPE and checks its message says what is missing, so a rule cannot take the
 * code again; each rule site's own code is tested in its family's tests (decision, approval, escalation,
 * handoff, compact, policy, governance rights).
 */

const DOMAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../domain');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Every `new ApiError('FORBIDDEN_SCOPE', <message>)` in domain/: where, and the start of its message literal. */
function sites(): { where: string; message: string }[] {
  const out: { where: string; message: string }[] = [];
  for (const file of sourceFiles(DOMAIN)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/new ApiError\(\s*'FORBIDDEN_SCOPE'\s*,\s*([`'"])([^`'"]*)/g)) {
      const line = text.slice(0, m.index).split('\n').length;
      out.push({ where: `${relative(DOMAIN, file)}:${line}`, message: m[2] });
    }
    // Any other use of the code must be a comparison (reading an error), never a throw in another form.
    for (const m of text.matchAll(/'FORBIDDEN_SCOPE'/g)) {
      const before = text.slice(Math.max(0, m.index - 40), m.index);
      if (!/new ApiError\(\s*$/.test(before) && !/===\s*$/.test(before)) {
        out.push({
          where: `${relative(DOMAIN, file)}:${text.slice(0, m.index).split('\n').length}`,
          message: '(not a throw of the form new ApiError(FORBIDDEN_SCOPE, message))',
        });
      }
    }
  }
  return out;
}

describe('FORBIDDEN_SCOPE in domain/', () => {
  const found = sites();

  it('is answered in more than a handful of places (the scan sees them)', () => {
    expect(found.length).toBeGreaterThanOrEqual(10);
  });

  it.each(found.map((s) => [s.where, s.message] as const))('%s names what is missing', (_where, message) => {
    expect(message).toMatch(/^missing (scope|role) /);
  });
});
