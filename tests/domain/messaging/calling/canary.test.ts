import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of calling (a
 * call's title, chat text and its idempotencyId, a reaction's shortcode, a transcript line's text and speaker label)
 * shows in no ledger event, no log line and no stored idempotency frame, across every method, the held recording
 * included.
 */

const CANARY = 'Okapi-Canary-7719';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary', () => {
  it('no title, chat, emoji, label or transcript text in any event or log line', async () => {
    const mint = async (spec: object, name: string) => s.client.ok('settings.mintApiKey', { name, ...spec });
    const mia = await mint({ tier: 'member' }, 'mia');
    const agent = await mint({ tier: 'agent' }, 'agent');
    const text = (field: string) => `${field} ${CANARY}`;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const ch = (await call('channel.create', { name: 'canary-calls', memberIds: [mia.principal.id, agent.principal.id] })).channel.id;
    const started = await call('calling.start', { channelId: ch, title: text('title') }, agent.apiKey);
    const callId = started.call.id;
    await call('calling.join', { callId }, mia.apiKey);
    const owner = (await s.client.get('org/whoami')).body.principal.id;
    await call('calling.invite', { callId, principalIds: [owner] }, agent.apiKey);
    await call('calling.react', { callId, emoji: `:${CANARY.toLowerCase()}:` }, mia.apiKey);
    await call('calling.chat', { callId, text: text('chat'), idempotencyId: text('idem') }, mia.apiKey);
    await call('calling.chat', { callId, text: text('chat'), idempotencyId: text('idem') }, mia.apiKey);
    await call('calling.setMute', { callId, principalId: mia.principal.id, muted: true }, agent.apiKey);
    await call('calling.raiseHand', { callId }, mia.apiKey);
    await call('calling.lowerHand', { callId, principalId: mia.principal.id }, agent.apiKey);
    await call('calling.setLock', { callId, locked: true }, agent.apiKey);
    const hold = await call('calling.recordingStart', { callId }, agent.apiKey);
    expect(hold.status).toBe('approval_required');
    await call('calling.addTranscriptLine', { callId, speakerLabel: text('label'), text: text('line'), startMs: 0, endMs: 10 }, mia.apiKey);
    await call('calling.addTranscriptLine', { callId, speaker: mia.principal.id, text: text('line 2'), startMs: 20, endMs: 30 }, agent.apiKey);
    const vtt = await call('calling.getTranscript', { callId, format: 'webvtt' }, mia.apiKey);
    expect(vtt.webvtt).toContain(CANARY);
    await call('calling.getDetails', { callId }, mia.apiKey);
    await call('calling.removeParticipant', { callId }, mia.apiKey);
    await call('calling.end', { callId }, agent.apiKey);

    const ledger = await s.ledgerText();
    for (const kind of [
      'calling.call.start',
      'calling.chat.send',
      'calling.reaction.send',
      'calling.signature.hold',
      'calling.transcript.add_line',
      'calling.call.end',
    ]) {
      expect(ledger).toContain(kind);
    }
    expectNoCanary(CANARY, { ledger, logs: s.logs(), idempotency: await s.idempotencyText() });
  });
});
