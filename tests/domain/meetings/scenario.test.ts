import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../helpers/calls.js';
import { addLine, call, callWith, list, mtgOrg, mutateMtg, type MtgOrg } from './kit.js';

/*
 * Design scenario 3: `record {callId}` makes a triage task for Ben and an
 * unverified entry; the offline `recapFile` cites mtl_ lines; a new line makes revision 2 of the same fil_.
 */

let o: MtgOrg;
beforeAll(async () => {
  o = await mtgOrg();
});
afterAll(() => o.s.close());

describe('scenario 3: a call becomes a meeting, a task for Ben, an entry and a recap', () => {
  it('record {callId} -> task for Ben, unverified entry; recap cites mtl_; a new line -> revision 2 of the same fil_', async () => {
    const { callId } = await callWith(
      o,
      [
        { speaker: o.owner, text: 'Thanks for joining, this is the Acme renewal call.' },
        { speaker: o.ben, text: 'We agreed to offer Acme a two-year term.' },
        { speaker: o.mia, text: 'Ben will send Acme the revised quote by Thursday.' },
      ],
      { title: 'Acme renewal' },
    );
    const { result: recorded, event } = await mutateMtg(
      o,
      'meetings.record',
      { callId, decisions: ['Offer Acme a two-year term.'], actionItems: [{ text: 'Send Acme the revised quote', assignee: 'Ben', createTask: true }] },
      'meetings.meeting.record',
    );
    const meeting = recorded.meeting;
    expect(event.payload).toMatchObject({ meetingId: meeting.id, revision: 1, lines: 3, decisions: 1, actions: 1, tasksCreated: 1 });

    // A triage task for Ben.
    const [task] = await o.s.runtime.db.query<{ col: string; assignee: string; title: string }>(
      'SELECT col, assignee, title FROM board_tasks WHERE org_id = $1 AND task_id = $2',
      [o.s.org.orgId, recorded.taskIds[0]],
    );
    expect(task).toEqual({ col: 'triage', assignee: o.ben.id, title: 'Send Acme the revised quote' });
    // An unverified entry citing the meeting.
    const [entry] = (await ok(o.s, 'knowledge.search', { entryIds: recorded.entryIds })).results;
    expect(entry.entry).toMatchObject({ kind: 'decision', verified: false, sources: [{ kind: 'meeting', ref: meeting.id }] });

    // The offline recap cites the lines it quotes.
    const lines = (await list(o, { id: meeting.id, include: 'transcript' })).lines;
    const first = (await mutateMtg(o, 'meetings.recapFile', { meetingId: meeting.id }, 'meetings.recap.file')).result;
    expect(first).toMatchObject({ status: 'answered', revision: 1, meetingRevision: 1 });
    expect(first.recap.points).toEqual([
      { text: 'We agreed to offer Acme a two-year term.', cites: [lines[1].id] },
      { text: 'Ben will send Acme the revised quote by Thursday.', cites: [lines[2].id] },
    ]);
    const doc = await ok(o.s, 'files.docRead', { fileId: first.fileId, format: 'markdown' });
    expect(JSON.stringify(doc)).toContain('two-year term');

    // A new line: the meeting's revision 2, the recap's revision 2 of the same file.
    await addLine(o, callId, o.owner, 'Next step: legal reviews the contract.', 9000);
    const amended = (await call(o, 'meetings.record', { meetingId: meeting.id })).meeting;
    expect(amended).toMatchObject({ revision: 2, lineCount: 4, status: 'recorded' });
    const second = (await mutateMtg(o, 'meetings.recapFile', { meetingId: meeting.id }, 'meetings.recap.file')).result;
    expect(second).toMatchObject({ fileId: first.fileId, revision: 2, meetingRevision: 2, changed: true });
    expect(second.recap.points.at(-1).text).toBe('Next step: legal reviews the contract.');
    const file = await ok(o.s, 'files.get', { fileId: first.fileId });
    expect(file.file.revision).toBe(2);
    // Still one task and one entry.
    expect(amended.actions.map((a: any) => a.taskId)).toEqual(recorded.taskIds);
    expect(amended.decisions.map((d: any) => d.entryId)).toEqual(recorded.entryIds);
  });
});
