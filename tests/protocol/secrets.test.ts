import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import { METHODS } from '../../protocol/registry.js';

/*
 * Contracts declare which result fields are secrets (`secrets`): those never reach the idempotency table in
 * clear, and a withheld replay sets them null and adds `secretWithheld`. A secret-looking field of an I method
 * that is not declared would be stored as it is, so it fails here.
 */

/** Fields that look like a secret but are not one, and why. */
const NOT_SECRETS: Record<string, string> = {
  // A proof bound to one approved act; its approvalId, which is not secret, is an equal proof on its own. (And
  // approval.request, the I method whose result may carry it, answers only pending approvals: it never does.)
  signatureToken: 'proof equal to approvalId',
};
const SECRET_LOOKING = /(apikey|adminkey|secret|password|token)$/i;

const shapeOf = (schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined => (schema as { shape?: Record<string, z.ZodType> } | undefined)?.shape;

describe('secret result fields', () => {
  it('the key-minting methods declare their secrets', () => {
    expect(METHOD_HANDLERS.get('org.create')?.contract.secrets?.fields).toEqual(['adminKey']);
    expect(METHOD_HANDLERS.get('org.mintApiKey')?.contract.secrets?.fields).toEqual(['apiKey']);
    expect(METHOD_HANDLERS.get('settings.mintApiKey')?.contract.secrets?.fields).toEqual(['apiKey']);
  });

  it('every declared secret may be null in the result, which also allows secretWithheld; ifLost names only result fields', () => {
    const declared = [...METHOD_HANDLERS].filter(([, h]) => h.contract.secrets);
    expect(declared.length).toBeGreaterThan(0);
    for (const [name, h] of declared) {
      const shape = shapeOf(h.contract.result);
      expect(shape, `${name}: an object result`).toBeDefined();
      for (const field of h.contract.secrets!.fields) {
        expect(shape![field]?.safeParse('wops_x').success, `${name}.${field} is a string`).toBe(true);
        expect(shape![field].safeParse(null).success, `${name}.${field} accepts null`).toBe(true);
      }
      expect(shape!.secretWithheld?.safeParse('why').success, `${name}.secretWithheld`).toBe(true);
      expect(shape!.secretWithheld.safeParse(undefined).success, `${name}.secretWithheld is optional`).toBe(true);
      for (const [, field] of h.contract.secrets!.ifLost.matchAll(/\{(\w+)\}/g)) expect(shape, `${name}: ifLost {${field}}`).toHaveProperty(field);
    }
  });

  it('no idempotent method returns a secret-looking field it does not declare', () => {
    const undeclared: string[] = [];
    for (const [name, h] of METHOD_HANDLERS) {
      if (!METHODS.get(name)?.idempotent) continue;
      for (const field of Object.keys(shapeOf(h.contract.result) ?? {})) {
        if (field === 'secretWithheld' || field in NOT_SECRETS || !SECRET_LOOKING.test(field)) continue;
        if (!h.contract.secrets?.fields.includes(field)) undeclared.push(`${name}.${field}`);
      }
    }
    expect(undeclared).toEqual([]);
  });
});
