/**
 * An org's answers leave this process in the order of their events' seq. A call with seq s appended only after the
 * transaction holding s - 1 ended, but PostgreSQL releases the head lock a moment before it sends that COMMIT's
 * answer, so two transactions' answers (a batch and a call run alone, or two processes' worth of load on a busy
 * machine) can arrive here the other way round. Waiting is short and cannot deadlock: every smaller seq still
 * listed belongs to a transaction that has already committed or is being rolled back.
 */
export class AnswerOrder {
  /** org -> call -> the seq its current attempt appended. */
  private readonly appended = new Map<string, Map<object, number>>();
  private readonly waiting = new Map<string, Set<() => void>>();

  /** The call's attempt appended `seq` (inside its transaction). */
  note(orgId: string, call: object, seq: number): void {
    let calls = this.appended.get(orgId);
    if (!calls) this.appended.set(orgId, (calls = new Map()));
    calls.set(call, seq);
  }

  /** The call's attempt was rolled back, or it was answered: it holds no one up any more. */
  forget(orgId: string, call: object): void {
    const calls = this.appended.get(orgId);
    if (!calls?.delete(call)) return;
    if (!calls.size) this.appended.delete(orgId);
    const waiting = this.waiting.get(orgId);
    if (waiting) for (const wake of [...waiting]) wake();
  }

  /** Resolves once no smaller seq of the org waits for its answer; the call is then forgotten. */
  async turn(orgId: string, call: object, seq: number): Promise<void> {
    while (this.ahead(orgId, call, seq)) {
      await new Promise<void>((resolve) => {
        let waiting = this.waiting.get(orgId);
        if (!waiting) this.waiting.set(orgId, (waiting = new Set()));
        const wake = () => {
          waiting.delete(wake);
          if (!waiting.size && this.waiting.get(orgId) === waiting) this.waiting.delete(orgId);
          resolve();
        };
        waiting.add(wake);
      });
    }
    this.forget(orgId, call);
  }

  private ahead(orgId: string, call: object, seq: number): boolean {
    for (const [other, s] of this.appended.get(orgId) ?? []) if (other !== call && s < seq) return true;
    return false;
  }
}
