import { badRequest } from '../../protocol/errors.js';
import { wellFormedText } from '../../protocol/input-rules.js';
import type { ActionDef } from './model.js';

/*
 * An act's values against its action's inputs, as the components declare them: every key an input of the action,
 * required ones present, each of its input's type and bounds (`values.amount: must be >= 1`).
 */

type Input = Record<string, unknown> & { type: string; name: string };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const validDate = (v: string) => DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

function checkValue(input: Input, value: unknown, field: string): void {
  switch (input.type) {
    case 'NumberInput': {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest(field, 'must be a number');
      if (input.integer && !Number.isInteger(value)) throw badRequest(field, 'must be an integer');
      if (typeof input.min === 'number' && value < input.min) throw badRequest(field, `must be >= ${input.min}`);
      if (typeof input.max === 'number' && value > input.max) throw badRequest(field, `must be <= ${input.max}`);
      return;
    }
    case 'TextInput': {
      const max = typeof input.maxLength === 'number' ? input.maxLength : 2000;
      if (typeof value !== 'string' || !wellFormedText(value)) throw badRequest(field, 'must be text');
      if (value.length > max) throw badRequest(field, `must be at most ${max} characters`);
      return;
    }
    case 'Select': {
      const options = (input.options as { value: string }[]).map((o) => o.value);
      if (typeof value !== 'string' || !options.includes(value)) throw badRequest(field, `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}`);
      return;
    }
    case 'Checkbox':
      if (typeof value !== 'boolean') throw badRequest(field, 'must be true or false');
      return;
    case 'DateInput': {
      if (typeof value !== 'string' || !validDate(value)) throw badRequest(field, 'must be a date YYYY-MM-DD');
      if (typeof input.min === 'string' && value < input.min) throw badRequest(field, `must be on or after ${input.min}`);
      if (typeof input.max === 'string' && value > input.max) throw badRequest(field, `must be on or before ${input.max}`);
      return;
    }
  }
}

/** The values as stored: only the action's inputs, each checked. */
export function checkValues(components: readonly Record<string, unknown>[], action: ActionDef, values: Record<string, unknown>): Record<string, unknown> {
  const inputs = new Map(
    components.filter((c) => typeof c.name === 'string' && action.inputs.includes(c.name)).map((c) => [c.name as string, c as Input] as const),
  );
  for (const key of Object.keys(values)) {
    if (!inputs.has(key)) throw badRequest(`values.${key}`, `not an input of action ${action.actionId}`);
  }
  const out: Record<string, unknown> = {};
  for (const [name, input] of inputs) {
    const value = values[name];
    if (value === undefined || value === null) {
      if (input.required) throw badRequest(`values.${name}`, 'required');
      continue;
    }
    checkValue(input, value, `values.${name}`);
    out[name] = value;
  }
  return out;
}
