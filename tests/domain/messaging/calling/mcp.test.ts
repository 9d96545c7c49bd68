import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { connectInMemory, structured, toolError } from '../../../mcp/fixtures.js';
import { approved, ok } from '../../../helpers/calls.js';
import { participant } from './kit.js';

/* Calls over MCP: an agent starts, chats, reads and asks to record through tools; the recording holds for a human. */

describe('calling over MCP', () => {
  it("an agent hosts through tools; a human joins; the agent's recording holds until approved", async ({ calling: o }) => {
    const a = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'calling' });
    try {
      const tools = (await a.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(
        expect.arrayContaining(['calling_start', 'calling_join', 'calling_getDetails', 'calling_getTranscript', 'calling_recordingStart', 'calling_end']),
      );
      const started = structured(await a.client.callTool({ name: 'calling_start', arguments: { channelId: o.channelId, title: 'Standup' } }));
      expect(started).toMatchObject({ changed: true, media: null, call: { hostId: o.agent.id, status: 'live' } });
      const callId = started.call.id;
      await ok(o.s, 'calling.join', { callId }, o.mia.key);
      const said = structured(await a.client.callTool({ name: 'calling_chat', arguments: { callId, text: 'Notes follow.' } }));
      expect(said.message.threadId).toBe(started.call.rootMessageId);
      expect(toolError(await a.client.callTool({ name: 'calling_setMute', arguments: { callId, principalId: o.mia.id, muted: false } })).code).toBe('CONFLICT');
      const hold = structured(await a.client.callTool({ name: 'calling_recordingStart', arguments: { callId } }));
      expect(hold).toMatchObject({ status: 'approval_required', approval: { actionClass: 'calling.recording_start' } });
      const approvalId = await approved(o.s, hold.approval, o.agent.key, o.owner.key);
      const recording = structured(await a.client.callTool({ name: 'calling_recordingStart', arguments: { callId, approvalId } }));
      expect(recording.call.recording).toMatchObject({ status: 'active', approvalId });
      const details = structured(await a.client.callTool({ name: 'calling_getDetails', arguments: { callId } }));
      expect(participant(details.call, o.mia.id).state).toBe('joined');
      expect(structured(await a.client.callTool({ name: 'calling_end', arguments: { callId } })).call.status).toBe('ended');
    } finally {
      await a.close();
    }
  });
});
