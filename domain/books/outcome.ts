import type { HandlerCtx } from '../core/handler.js';

/**
 * End a books mutation: append its one ledger event (last, so the head lock is held only to commit) and
 * return the result with `ledgerId` and a message quoting `ledger #<ledgerId>`.
 */
export async function finish<T extends object>(
  ctx: HandlerCtx,
  event: { kind: string; entityId: string; payload: Record<string, unknown> },
  result: T,
  message: string,
): Promise<T & { ledgerId: string; message: string }> {
  const appended = await ctx.emitAndWait(event.kind, event.entityId, event.payload);
  return { ...result, ledgerId: appended.ledgerId, message: `${message} (ledger #${appended.ledgerId})` };
}
