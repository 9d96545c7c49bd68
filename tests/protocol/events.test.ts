import { readFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEPLOYED } from '../../domain/deployed.js';
import { currentKind, kindMatches, kindProblem, matchKind, RENAMED_KINDS, SIGNATURE_HOLD, SYSTEM_EVENTS } from '../../protocol/events.js';
import { FAMILIES, METHODS } from '../../protocol/registry.js';

/*
 * One event grammar (protocol/events.ts), declared where each kind comes from: a method's contract (`events`), a
 * job's definition, or SYSTEM_EVENTS. The pipeline and the scheduler refuse an undeclared kind at run time; this
 * file checks the declarations themselves and that no kind written in the domain's source goes undeclared.
 */

const familyOf = (kind: string) => kind.slice(0, kind.indexOf('.'));
const declared = new Map<string, string>(); // kind -> where it is declared
for (const [name, h] of DEPLOYED.methods) for (const k of h.contract.events ?? []) declared.set(k, name);
for (const job of DEPLOYED.jobs) for (const k of job.events) declared.set(k, `job ${job.name}`);
for (const k of Object.keys(SYSTEM_EVENTS)) declared.set(k, 'system');

describe('event kinds', () => {
  it('every deployed method that is not read-only declares the kinds it appends, and a read-only one none', () => {
    const wrong: string[] = [];
    for (const [name, h] of DEPLOYED.methods) {
      const spec = METHODS.get(name)!;
      const events = h.contract.events ?? [];
      if (spec.readOnly && events.length) wrong.push(`${name} is R but declares ${events.join(', ')}`);
      if (!spec.readOnly && events.length === 0) wrong.push(`${name} declares no events`);
      if (new Set(events).size !== events.length) wrong.push(`${name} declares a kind twice`);
    }
    expect(wrong).toEqual([]);
  });

  it('every declared kind follows the grammar in its own family (the board keeps item.* and workstream.*)', () => {
    const wrong: string[] = [];
    for (const [name, h] of DEPLOYED.methods) {
      for (const k of h.contract.events ?? []) {
        const problem = kindProblem(METHODS.get(name)!.family, k);
        if (problem) wrong.push(`${name}: ${problem}`);
      }
    }
    for (const job of DEPLOYED.jobs) {
      for (const k of job.events) {
        const problem = kindProblem(familyOf(job.name), k);
        if (problem) wrong.push(`job ${job.name}: ${problem}`);
      }
    }
    for (const k of Object.keys(SYSTEM_EVENTS)) {
      const problem = kindProblem(familyOf(k), k);
      if (problem) wrong.push(`system: ${problem}`);
    }
    expect(wrong).toEqual([]);
    expect(kindProblem('board', 'item.created')).toBeNull();
    expect(kindProblem('files', 'files.file.created')).toMatch(/present tense/);
    expect(kindProblem('settings', 'org.key.mint')).toMatch(/does not start with its family/);
    expect(kindProblem('approval', 'approval.approved')).toMatch(/not <family>.<noun>.<verb>/);
  });

  it('a renamed kind is never appended again, and every rename leads to a declared kind of its family', () => {
    const olds = new Set(RENAMED_KINDS.map((r) => r.was));
    expect([...declared.keys()].filter((k) => olds.has(k) && !RENAMED_KINDS.some((r) => r.now === k))).toEqual([]);
    for (const r of RENAMED_KINDS) {
      expect(FAMILIES, r.family).toContain(r.family);
      expect(kindProblem(r.family, r.now), r.now).toBeNull();
      expect(declared.has(r.now), `${r.was} -> ${r.now} is declared nowhere`).toBe(true);
      expect(currentKind(r.family, r.was)).toBe(r.now);
    }
    expect(new Set(RENAMED_KINDS.map((r) => `${r.family} ${r.was}`)).size).toBe(RENAMED_KINDS.length);
  });

  it('?kind= finds a kind under its current name and under the name it had, in its own family', () => {
    const byNew = matchKind('approval.request.approve');
    expect(kindMatches(byNew, 'approval', 'approval.request.approve')).toBe(true);
    expect(kindMatches(byNew, 'approval', 'approval.approved')).toBe(true);
    expect(kindMatches(byNew, 'approval', 'approval.request.reject')).toBe(false);
    const byOld = matchKind('approval.approved');
    expect(kindMatches(byOld, 'approval', 'approval.request.approve')).toBe(true);
    expect(kindMatches(byOld, 'approval', 'approval.approved')).toBe(true);
    // settings' key methods once appended the org family's kinds: the settings name finds only the settings family's.
    const settingsMint = matchKind('settings.key.mint');
    expect(kindMatches(settingsMint, 'settings', 'org.key.minted')).toBe(true);
    expect(kindMatches(settingsMint, 'org', 'org.key.minted')).toBe(false);
    expect(kindMatches(matchKind('org.key.minted'), 'org', 'org.key.mint')).toBe(true);
    expect(kindMatches(matchKind('org.key.minted'), 'settings', 'settings.key.mint')).toBe(true);
    expect(matchKind('item.created')).toEqual({ kinds: ['item.created'], pairs: [] });
  });

  it('every kind written in the domain source is declared by a contract, a job or SYSTEM_EVENTS', () => {
    const files = execSync('git ls-files "domain/*.ts" "domain/**/*.ts"', { encoding: 'utf8' }).trim().split('\n');
    const families = new Set(FAMILIES);
    const undeclared: string[] = [];
    let seen = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // A kind is the first argument of an emit or the value of a `kind:` field, on its line or after a line break.
      for (const m of text.matchAll(/(?:emit\(\s*|kind:\s*)'([a-z]+\.[a-z_]+\.[a-z_]+)'/g)) {
        const kind = m[1];
        seen += 1;
        if (!families.has(familyOf(kind)) && !/^(item|workstream)\./.test(kind)) continue;
        if (kind.endsWith(`.${SIGNATURE_HOLD}`)) continue;
        if (!declared.has(kind)) undeclared.push(`${file}:${text.slice(0, m.index).split('\n').length} ${kind}`);
      }
    }
    expect(undeclared).toEqual([]);
    expect(seen, 'kinds found in the source: the scan still matches how emits are written').toBeGreaterThan(200);
  });
});
