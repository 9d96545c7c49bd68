import { describe, expect, it } from 'vitest';
import { FAMILY_AREAS } from '../../protocol/methods/areas.js';
import { METHODS } from '../../protocol/registry.js';

/*
 * A family split into areas (toolsets `<family>.<area>`) must put each of its methods in exactly one area: a method
 * in none would be listed by no area desk, one in two would be counted twice in a desk's token budget.
 */

describe('family areas', () => {
  it.each(Object.entries(FAMILY_AREAS))('%s: every method of the registry in exactly one area', (family, areas) => {
    const seen = new Map<string, string>();
    for (const [area, contracts] of Object.entries(areas)) {
      for (const name of Object.keys(contracts)) {
        expect(seen.get(name), `${family}.${name} is in areas ${seen.get(name)} and ${area}`).toBeUndefined();
        seen.set(name, area);
      }
    }
    const registry = [...METHODS.values()].filter((m) => m.family === family).map((m) => m.name.slice(family.length + 1));
    expect([...seen.keys()].sort()).toEqual(registry.sort());
  });
});
