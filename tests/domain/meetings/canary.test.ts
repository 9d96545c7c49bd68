import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger) for meetings: a canary in every free-text field
 * (a call's title, transcript lines and speaker labels, notes, decisions, action items and the names they are
 * assigned by, the recap filed from them) shows in no event and no log line; the caller gets its words back.
 */

const CANARY = 'Quokka-Canary-4417';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('meetings redaction canary', () => {
  it('no title, line, label, note, decision, action or name in any event or log line', async () => {
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const ben = await s.client.mint({ tier: 'member' }, `Ben ${CANARY}`);
    const channel = (await call('channel.create', { name: `canary-${Date.now()}`, private: false, memberIds: [ben.principal.id] })).channel;
    const { call: started } = await call('calling.start', { channelId: channel.id, title: `Call ${CANARY}` });
    await call('calling.join', { callId: started.id }, ben.apiKey);
    await call('calling.addTranscriptLine', { callId: started.id, speaker: ben.principal.id, text: `We agreed on ${CANARY}.`, startMs: 0, endMs: 10 });
    await call('calling.addTranscriptLine', {
      callId: started.id,
      speakerLabel: `Guest ${CANARY}`,
      text: `I will send ${CANARY} next step.`,
      startMs: 20,
      endMs: 30,
    });
    const recorded = await call('meetings.record', {
      callId: started.id,
      notes: `Notes ${CANARY}`,
      decisions: [`Decision ${CANARY}`],
      actionItems: [{ text: `Action ${CANARY}`, assignee: `Ben ${CANARY}`, createTask: true }],
    });
    expect(recorded.meeting.actions[0].assigneeId).toBe(ben.principal.id);
    const recap = await call('meetings.recapFile', { meetingId: recorded.meeting.id });
    expect(JSON.stringify(recap)).toContain(CANARY);
    await call('calling.addTranscriptLine', { callId: started.id, speaker: ben.principal.id, text: `Then ${CANARY} will follow.`, startMs: 40, endMs: 50 });
    await call('meetings.record', { meetingId: recorded.meeting.id, decisions: [`Other ${CANARY}`] });
    await call('meetings.recapFile', { meetingId: recorded.meeting.id });
    const listed = await s.client.get('meetings.list', { id: recorded.meeting.id, include: 'transcript' });
    expect(listed.raw).toContain(CANARY);

    const ledger = await s.ledgerText();
    for (const kind of ['meetings.meeting.record', 'meetings.recap.file']) expect(ledger).toContain(kind);
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });
});
