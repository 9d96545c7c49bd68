import { ApiError } from '../../protocol/errors.js';
import { METHODS } from '../../protocol/registry.js';
import { parseParams } from '../../protocol/schema.js';
import type { Principal } from '../../domain/core/auth.js';
import type { Pipeline } from '../../domain/core/pipeline.js';
import { fromFrame, ScimError } from './errors.js';

/**
 * The registry calls one SCIM write makes, each through the pipeline as the provisioner (its own transaction,
 * scope check and one ledger event). Every call's params are checked against its contract before the first
 * runs, so a bad value fails the request with nothing written; the calls are ordered so that cutting access
 * comes first and granting it last, and a request retried after a failure part-way converges (each SCIM write
 * is computed as the difference between the stored member and the asked one).
 */
export interface PlannedCall {
  method: string;
  params: Record<string, unknown>;
}

/**
 * The registry methods a SCIM write makes, and so the only ones the provisioner may call. Its key holds no
 * /api/v1 scope (protocol/scopes.ts, tier scim): each of these calls runs as the provisioner with a capability
 * that exists only in this process, built per call below, holding the scopes these methods need: theirs
 * (org.write; admin for admin.* and user.deactivate) and the admin scope member.update asks of a change to
 * another member's email. A key minted on /api/v1 can never carry it.
 */
export const SCIM_METHODS: ReadonlySet<string> = new Set([
  'member.create',
  'member.update',
  'member.assignTeam',
  'admin.deactivate',
  'admin.reactivate',
  'user.deactivate',
  'team.create',
  'team.update',
  'team.delete',
]);
const CAPABILITY_SCOPES: ReadonlySet<string> = new Set(['org.read', 'admin', ...[...SCIM_METHODS].map((m) => METHODS.get(m)!.scope)]);

/** The provisioner as one SCIM call acts: its principal with the capability's scopes, for a method of SCIM_METHODS only. */
function acting(principal: Principal, method: string): Principal {
  if (!SCIM_METHODS.has(method)) throw new Error(`gateway/scim calls ${method}, which is not among SCIM_METHODS`);
  return { ...principal, scopes: CAPABILITY_SCOPES };
}

/** Registry field names -> the SCIM attributes they came from, for error details. */
export type Renamer = (message: string) => string;

export function renamer(fields: Readonly<Record<string, string>>): Renamer {
  const names = Object.keys(fields).join('|');
  const pattern = new RegExp(`^(?:params\\.)?(${names})(\\[\\d+\\])?(?=[:.\\s])`);
  return (message) => message.replace(pattern, (_m, field: string) => fields[field]);
}

export class RegistryCalls {
  /** The methods called, in order (tests and logs; each appended exactly one event). */
  readonly made: string[] = [];

  constructor(
    private readonly pipeline: Pipeline,
    private readonly principal: Principal,
    private readonly requestId: string,
    private readonly rename: Renamer,
  ) {}

  /** Check every call's params against its method's contract, as the pipeline will. */
  check(calls: readonly PlannedCall[]): void {
    for (const c of calls) {
      acting(this.principal, c.method);
      const handler = this.pipeline.handlers.get(c.method);
      if (!handler) throw new ScimError(501, `${c.method} is not deployed on this server`);
      try {
        parseParams(handler.contract.params, c.params);
      } catch (err) {
        if (err instanceof ApiError) throw fromFrame({ code: err.code, message: err.message }, this.rename);
        throw err;
      }
    }
  }

  /** Run one call; its result, or the SCIM error its frame says. */
  async run<T = any>(method: string, params: Record<string, unknown>): Promise<T> {
    const outcome = await this.pipeline.call({ method, params, principal: acting(this.principal, method), requestId: this.requestId });
    if (!outcome.frame.ok) throw fromFrame(outcome.frame.error, this.rename, outcome.retryAfterSeconds);
    if (outcome.event) this.made.push(method);
    const result = outcome.frame.result as { status?: string; message?: string };
    // The provisioner is exempt from holds (domain/people/member/lane.ts); a hold here means a human must decide first.
    if (result?.status === 'approval_required') throw new ScimError(409, `${method} needs a human's approval: ${result.message ?? ''}`);
    return result as T;
  }

  async runAll(calls: readonly PlannedCall[]): Promise<void> {
    this.check(calls);
    for (const c of calls) await this.run(c.method, c.params);
  }
}
