import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';
import type { Deps } from '../core/deps.js';

/*
 * What a message embeds that another family keeps (artifacts: messaging.send artifactIds). Messaging names no such
 * family: one contributes `messageEmbeds` with the params field it serves, and messaging calls it in the send's own
 * transaction (check before posting, attach once the message has its id) and when a message is erased.
 */

export interface MessageEmbeds {
  /** The send and schedule params field these ids come in (`artifactIds`). */
  field: 'artifactIds';
  /** BAD_REQUEST naming `<field>.<i>` unless every id may be embedded by this author now. */
  check(deps: Deps, q: Queryable, orgId: string, author: Principal, ids: readonly string[]): Promise<void>;
  /**
   * The message is posted: embed them. `strict` (a send): refused as check refuses; a scheduled message posting
   * later embeds those still embeddable and skips the rest.
   */
  attach(
    deps: Deps,
    q: Queryable,
    orgId: string,
    input: { authorId: string; ids: readonly string[]; channelId: string; messageId: string; at: string; strict: boolean },
  ): Promise<void>;
  /** The message is erased (deleted): so is what it embeds. */
  erase(deps: Deps, q: Queryable, orgId: string, messageId: string, at: string): Promise<void>;
}

declare module '../core/family.js' {
  interface Contributions {
    /** What messages embed from other families (domain/messaging/embeds.ts). */
    messageEmbeds: MessageEmbeds;
  }
}

const embedsOf = (deps: Deps | undefined): MessageEmbeds[] => deps?.families.contributions('messageEmbeds').map((c) => c.value) ?? [];

/** Check every embedded id a send or schedule names. */
export async function checkEmbeds(deps: Deps, q: Queryable, orgId: string, author: Principal, params: { artifactIds?: readonly string[] }) {
  for (const e of embedsOf(deps)) {
    const ids = params[e.field];
    if (ids?.length) await e.check(deps, q, orgId, author, ids);
  }
}

/** Embed what a posted message names. */
export async function attachEmbeds(
  deps: Deps,
  q: Queryable,
  orgId: string,
  input: { authorId: string; artifactIds: readonly string[]; channelId: string; messageId: string; at: string; strict: boolean },
) {
  for (const e of embedsOf(deps)) {
    const ids = input[e.field];
    if (ids.length) await e.attach(deps, q, orgId, { ...input, ids });
  }
}

/** Erase what an erased message embedded. */
export async function eraseEmbeds(deps: Deps | undefined, q: Queryable, orgId: string, messageId: string, at: string) {
  for (const e of embedsOf(deps)) if (deps) await e.erase(deps, q, orgId, messageId, at);
}
