import { ApiError } from '../../protocol/errors.js';
import { errorFrame, type ErrorFrame } from '../../protocol/frames.js';
import { SQLSTATE, isSqlError } from '../../db/types.js';
import type { Logger } from './deps.js';

/** The one place where anything thrown becomes an error frame. */
export function toErrorFrame(
  err: unknown,
  log: Logger,
  context: { requestId: string; method: string },
): {
  status: number;
  frame: ErrorFrame;
  retryAfterSeconds?: number;
} {
  if (err instanceof ApiError) {
    return { status: err.status, frame: errorFrame(err.code, err.message), retryAfterSeconds: err.retryAfterSeconds };
  }
  if (isSqlError(err, SQLSTATE.lockNotAvailable)) {
    return conflict('the row is busy with another call (lock wait timed out); retry shortly');
  }
  if (isSqlError(err, SQLSTATE.deadlockDetected) || isSqlError(err, SQLSTATE.serializationFailure)) {
    return conflict('lost a race with a concurrent call; retry');
  }
  if (isSqlError(err, SQLSTATE.foreignKeyViolation)) {
    return conflict('a row this call refers to was changed or removed by a concurrent call; retry');
  }
  if (isSqlError(err, SQLSTATE.uniqueViolation)) {
    return conflict('a concurrent call created the same record; retry or read it back');
  }
  log.error({ err, ...context }, 'internal error');
  return { status: 500, frame: errorFrame('INTERNAL', `internal error (request ${context.requestId}); idempotent calls are safe to retry`) };
}

const conflict = (message: string) => ({ status: 409, frame: errorFrame('CONFLICT', message) });
