import type { CountryCode } from 'libphonenumber-js/max';
import { directory as c } from '../../protocol/methods/directory/index.js';
import { conflict, notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { CHANNEL_COLUMNS, insertChannel, lockKeys, toChannel, type ChannelRow } from './channel-store.js';
import { refuseHeldEmail } from './dedupe.js';
import { bumpParty, requireWritableParty } from './model.js';
import { DEFAULT_COUNTRY, normaliseChannel } from './normalise.js';

/* directory.addChannel, removeChannel, setPrimaryChannel. Every write locks the party first (one writer per party). */

async function getChannel(q: Queryable, orgId: string, channelId: string): Promise<ChannelRow> {
  const [row] = await q.query<ChannelRow>(`SELECT ${CHANNEL_COLUMNS} FROM directory_channels c WHERE c.org_id = $1 AND c.channel_id = $2`, [orgId, channelId]);
  if (!row) throw notFound(`channel ${channelId}`);
  return row;
}

/** Make a channel its kind's primary (contact.update too); returns the previous primary's id. */
export async function makePrimary(q: Queryable, orgId: string, ch: ChannelRow): Promise<string | null> {
  const [previous] = await q.query<{ channel_id: string }>(
    `UPDATE directory_channels SET is_primary = false WHERE org_id = $1 AND party_id = $2 AND kind = $3 AND is_primary RETURNING channel_id`,
    [orgId, ch.party_id, ch.kind],
  );
  await q.query('UPDATE directory_channels SET is_primary = true WHERE org_id = $1 AND channel_id = $2', [orgId, ch.channel_id]);
  return previous?.channel_id ?? null;
}

export const addChannel = handler(c.addChannel, async (ctx, p) => {
  const party = await requireWritableParty(ctx.q, ctx.orgId, p.partyId);
  const ck = normaliseChannel(p, '', (party.country ?? DEFAULT_COUNTRY) as CountryCode);
  await lockKeys(ctx.q, ctx.orgId, [`${ck.kind}:${ck.key}`]);
  const [held] = await ctx.q.query<ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM directory_channels c WHERE c.org_id = $1 AND c.party_id = $2 AND c.kind = $3 AND c.key = $4 AND c.status = 'active'`,
    [ctx.orgId, p.partyId, ck.kind, ck.key],
  );
  if (held && !(p.primary && !held.is_primary)) {
    await ctx.emit('directory.channel.add', held.channel_id, {
      channelId: held.channel_id,
      partyId: p.partyId,
      kind: ck.kind,
      primary: held.is_primary,
      noop: true,
    });
    return { channel: toChannel(held), changed: false };
  }
  let channel: ChannelRow;
  if (held) {
    // Already held, asked to be primary: that is the change.
    await makePrimary(ctx.q, ctx.orgId, held);
    channel = await getChannel(ctx.q, ctx.orgId, held.channel_id);
  } else {
    await refuseHeldEmail(ctx.q, ctx.orgId, party.kind, ck, p.partyId, 'value');
    channel = await insertChannel(ctx.q, ctx.orgId, p.partyId, ck, { label: p.label, primary: p.primary, source: 'manual', createdBy: ctx.principal.id });
  }
  await bumpParty(ctx.q, ctx.orgId, p.partyId);
  await ctx.emit('directory.channel.add', channel.channel_id, {
    channelId: channel.channel_id,
    partyId: p.partyId,
    kind: ck.kind,
    primary: channel.is_primary,
  });
  return { channel: toChannel(channel), changed: true };
});

export const removeChannel = handler(c.removeChannel, async (ctx, p) => {
  const found = await getChannel(ctx.q, ctx.orgId, p.channelId);
  await requireWritableParty(ctx.q, ctx.orgId, found.party_id);
  const ch = await getChannel(ctx.q, ctx.orgId, p.channelId);
  const base = { channelId: ch.channel_id, partyId: ch.party_id, kind: ch.kind };
  if (ch.status === 'removed') {
    await ctx.emit('directory.channel.remove', ch.channel_id, { ...base, newPrimaryId: null, noop: true });
    return { channel: toChannel(ch), newPrimaryId: null, changed: false };
  }
  await ctx.q.query(`UPDATE directory_channels SET status = 'removed', is_primary = false, removed_at = now() WHERE org_id = $1 AND channel_id = $2`, [
    ctx.orgId,
    ch.channel_id,
  ]);
  let newPrimaryId: string | null = null;
  if (ch.is_primary) {
    const [next] = await ctx.q.query<{ channel_id: string }>(
      `UPDATE directory_channels SET is_primary = true
        WHERE org_id = $1 AND channel_id = (SELECT channel_id FROM directory_channels
                                             WHERE org_id = $1 AND party_id = $2 AND kind = $3 AND status = 'active'
                                             ORDER BY n LIMIT 1)
        RETURNING channel_id`,
      [ctx.orgId, ch.party_id, ch.kind],
    );
    newPrimaryId = next?.channel_id ?? null;
  }
  await bumpParty(ctx.q, ctx.orgId, ch.party_id);
  const channel = toChannel(await getChannel(ctx.q, ctx.orgId, ch.channel_id));
  await ctx.emit('directory.channel.remove', ch.channel_id, { ...base, newPrimaryId });
  return { channel, newPrimaryId, changed: true };
});

export const setPrimaryChannel = handler(c.setPrimaryChannel, async (ctx, p) => {
  const found = await getChannel(ctx.q, ctx.orgId, p.channelId);
  await requireWritableParty(ctx.q, ctx.orgId, found.party_id);
  const ch = await getChannel(ctx.q, ctx.orgId, p.channelId);
  if (ch.status === 'removed') throw conflict(`channel ${ch.channel_id} is removed; add it again (directory.addChannel) to use it`);
  const base = { channelId: ch.channel_id, partyId: ch.party_id, kind: ch.kind };
  if (ch.is_primary) {
    await ctx.emit('directory.channel.primary', ch.channel_id, { ...base, previousPrimaryId: null, noop: true });
    return { channel: toChannel(ch), changed: false };
  }
  const previousPrimaryId = await makePrimary(ctx.q, ctx.orgId, ch);
  await bumpParty(ctx.q, ctx.orgId, ch.party_id);
  const channel = toChannel(await getChannel(ctx.q, ctx.orgId, ch.channel_id));
  await ctx.emit('directory.channel.primary', ch.channel_id, { ...base, previousPrimaryId });
  return { channel, changed: true };
});
