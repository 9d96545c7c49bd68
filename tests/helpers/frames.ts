import { expect } from 'vitest';
import { ERROR_STATUS, isErrorCode } from '../../protocol/errors.js';

/**
 * Assert that an HTTP response is a well-formed call frame (spec: Resources, "Call frame"; Errors):
 * `{ok:true, result}` with 200, or `{ok:false, error:{code, message}}` with exactly the status of its code.
 * Returns the parsed frame.
 */
export function expectFrame(res: { status: number; raw: string }, context = ''): any {
  let frame: any;
  try {
    frame = JSON.parse(res.raw);
  } catch {
    throw new Error(`${context}: body is not JSON (${res.status}): ${res.raw.slice(0, 200)}`);
  }
  expect(frame, `${context}: frame is an object`).toBeTypeOf('object');
  expect(frame, context).not.toBeNull();
  if (frame.ok === true) {
    expect(res.status, `${context}: ok frame status`).toBe(200);
    expect(Object.keys(frame).sort(), `${context}: ok frame keys`).toEqual(['ok', 'result']);
    return frame;
  }
  expect(frame.ok, `${context}: ok is a boolean`).toBe(false);
  expect(Object.keys(frame).sort(), `${context}: error frame keys (${res.raw.slice(0, 200)})`).toEqual(['error', 'ok']);
  expect(Object.keys(frame.error).sort(), `${context}: error keys`).toEqual(['code', 'message']);
  expect(isErrorCode(frame.error.code), `${context}: known code ${frame.error.code}`).toBe(true);
  expect(frame.error.message, `${context}: message`).toBeTypeOf('string');
  expect(frame.error.message.length, `${context}: non-empty message`).toBeGreaterThan(0);
  expect(res.status, `${context}: status of ${frame.error.code}`).toBe(ERROR_STATUS[frame.error.code as keyof typeof ERROR_STATUS]);
  return frame;
}

/** Assert an error frame with this code (and, when given, a message matching). */
export function expectError(res: { status: number; raw: string }, code: keyof typeof ERROR_STATUS, message?: string | RegExp, context = '') {
  const frame = expectFrame(res, context);
  expect(frame.ok, `${context}: expected ${code}, got ${res.raw.slice(0, 300)}`).toBe(false);
  expect(frame.error.code, `${context}: ${res.raw.slice(0, 300)}`).toBe(code);
  if (typeof message === 'string') expect(frame.error.message, context).toBe(message);
  else if (message) expect(frame.error.message, context).toMatch(message);
  return frame.error as { code: string; message: string };
}
