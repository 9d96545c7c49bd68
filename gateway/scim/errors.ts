import type { FastifyReply } from 'fastify';
import { ERROR_STATUS, isErrorCode } from '../../protocol/errors.js';

/** SCIM's error response (RFC 7644 section 3.12) and the one content type of every /scim/v2 answer. */

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_JSON = 'application/scim+json; charset=utf-8';

/** The scimType values of RFC 7644 table 9 this face answers with. */
export type ScimType = 'invalidFilter' | 'invalidSyntax' | 'invalidPath' | 'invalidValue' | 'mutability' | 'noTarget' | 'uniqueness' | 'tooMany';

export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}

export const invalid = (detail: string, scimType: ScimType = 'invalidValue') => new ScimError(400, detail, scimType);

/**
 * A registry error frame as a SCIM error: the same status; a taken unique value is `uniqueness` (RFC 7644:
 * 409 for a POST or PUT that would duplicate), any other BAD_REQUEST `invalidValue`. `rename` turns the
 * registry's field names in the message into the SCIM attributes they came from.
 */
export function fromFrame(error: { code: string; message: string }, rename: (message: string) => string, retryAfterSeconds?: number): ScimError {
  const status = isErrorCode(error.code) ? ERROR_STATUS[error.code] : 500;
  const detail = rename(error.message);
  if (error.code === 'BAD_REQUEST') return new ScimError(400, detail, 'invalidValue');
  if (error.code === 'CONFLICT' && /already used by/.test(error.message)) return new ScimError(409, detail, 'uniqueness');
  return new ScimError(status, detail, undefined, retryAfterSeconds);
}

export function sendScimError(reply: FastifyReply, err: ScimError) {
  if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
  return reply
    .code(err.status)
    .type(SCIM_JSON)
    .send({ schemas: [ERROR_SCHEMA], status: String(err.status), ...(err.scimType ? { scimType: err.scimType } : {}), detail: err.message });
}
