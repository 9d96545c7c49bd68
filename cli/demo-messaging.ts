import type { DemoDesk } from './demo.js';

/*
 * How Harbour Lane Studio talks (docs/families/messaging.md): a public #studio channel with a thread, reactions, a
 * pin, a bookmark and a poll; a private #finance channel where the bookkeeping agent reports and Priya's team
 * answers; a DM and a group conversation; a scheduled reminder; and a finished call with its transcript. Tom and
 * Sofia post with keys of their own, so the history reads as a team's. Every step is an API call through the
 * pipeline.
 */

export async function demoMessaging(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  const m = await desk.memberIds();
  const id = (name: string) => m.get(name)!;
  const [grace, priya, tom, sofia, mia, ava, bookkeeper, coordinator] = [
    'Grace Lin',
    'Priya Nair',
    'Tom Okafor',
    'Sofia Rossi',
    'Mia Chen',
    'Ava Singh',
    'Bookkeeping agent',
    'Studio coordinator',
  ].map(id);
  // Tom and Sofia post with keys of their own for the story, revoked at its end: they stay directory-only, seat-free.
  const minted: string[] = [];
  const keyOf = async (name: string, principalId: string) => {
    const key = await desk.call('org.mintApiKey', { name: `${name} (demo messaging)`, tier: 'member', principalId });
    minted.push(key.keyId);
    return key.apiKey as string;
  };
  const tomKey = await keyOf('Tom Okafor', tom);
  const sofiaKey = await keyOf('Sofia Rossi', sofia);
  const agent = desk.keys.agent;
  let n = 0;
  const say = async (channelId: string, text: string, key = desk.keys.admin, extra: Record<string, unknown> = {}) =>
    (await desk.call('messaging.send', { channelId, idempotencyId: `demo-${++n}`, text, ...extra }, key)).message;

  progress('Messaging: channels, threads, reactions, a poll and a call');
  const everyone = [...m.values()].filter((v) => v !== grace && v.startsWith('usr_'));
  const studio = (
    await desk.call('channel.create', { name: 'studio', topic: 'The whole studio: news, questions, Friday drinks', memberIds: [...everyone, coordinator] })
  ).channel;
  const finance = (
    await desk.call('channel.create', { name: 'finance', private: true, topic: 'Bills, invoices and the books', memberIds: [priya, ava, bookkeeper] })
  ).channel;

  const launch = await say(studio.id, 'The Tidewater rebrand goes to the client on Thursday. Final files in the shared folder by Wednesday noon, please.');
  await say(studio.id, `Logo lock-ups are done; <@${mia}> is finishing the colour specs.`, tomKey, { threadId: launch.id });
  await say(studio.id, 'Colour specs uploaded. One open question on the dark-mode palette: I will bring it to Wednesday review.', tomKey, {
    threadId: launch.id,
    alsoToChannel: true,
  });
  await desk.call('messaging.react', { messageId: launch.id, emoji: ':thumbsup:' }, tomKey);
  await desk.call('messaging.react', { messageId: launch.id, emoji: '🎉' }, sofiaKey);
  await desk.call('messaging.pin', { messageId: launch.id });
  await desk.call('messaging.bookmark', { channelId: studio.id, title: 'Studio handbook', url: 'https://harbourlane.example/handbook' });
  const poll = (
    await desk.call(
      'messaging.createPoll',
      { channelId: studio.id, question: 'Friday drinks: where?', options: ['The Rooftop', 'Bar Italia', 'In the studio'], anonymous: false },
      sofiaKey,
    )
  ).message;
  const [rooftop, , inStudio] = poll.poll.options.map((o: { id: string }) => o.id);
  await desk.call('messaging.votePoll', { messageId: poll.id, optionIds: [rooftop] }, tomKey);
  await desk.call('messaging.votePoll', { messageId: poll.id, optionIds: [inStudio] }, sofiaKey);
  const tomorrow9 = new Date(Date.now() + 86_400_000);
  tomorrow9.setUTCHours(22, 0, 0, 0); // 9 am in Sydney (UTC+11 in summer)
  if (tomorrow9.getTime() - Date.now() < 3_600_000) tomorrow9.setTime(tomorrow9.getTime() + 86_400_000);
  const reminder = (
    await desk.call(
      'messaging.schedule',
      {
        channelId: studio.id,
        idempotencyId: 'demo-timesheets',
        text: 'Reminder: timesheets are due by 5 pm today <!channel>',
        postAt: tomorrow9.toISOString(),
      },
      sofiaKey,
    )
  ).message;

  const report = await say(
    finance.id,
    'Reconciled the October bank feed: 3 items left to match, all under $100. Cloud Hosting charged twice for September (escalated).',
    agent,
  );
  await say(finance.id, `Thanks. Leave the Cloud Hosting one with <@${priya}>; she will call their billing team.`, desk.keys.admin, { threadId: report.id });
  await desk.call('messaging.react', { messageId: report.id, emoji: ':white_check_mark:' }, agent);

  const dm = (await desk.call('channel.resolveOrCreateDm', { principalIds: [tom] })).channel;
  await say(dm.id, 'Can you cover the Tidewater call on Thursday if I am still in Melbourne?');
  await say(dm.id, 'Yes, I will take it. Send me the agenda?', tomKey);
  const group = (await desk.call('channel.createConversation', { principalIds: [tom, sofia], title: 'Studio move' }, desk.keys.admin)).channel;
  await say(group.id, 'The landlord confirmed 1 March for the new floor. Sofia, can you get quotes from two movers?');

  const call = (await desk.call('calling.start', { channelId: studio.id, title: 'Wednesday review' })).call;
  await desk.call('calling.join', { callId: call.id }, tomKey);
  await desk.call('calling.chat', { callId: call.id, text: 'Dark-mode palette options are in the thread above.' }, tomKey);
  const lines: [string, string, number][] = [
    [grace, 'Let us start with Tidewater. Tom, where are we?', 0],
    [tom, 'Lock-ups and colour specs are done; the dark-mode palette needs a decision.', 6_000],
    [grace, 'Go with the deeper navy. Send it Thursday as planned.', 15_000],
  ];
  for (const [speaker, text, startMs] of lines) {
    await desk.call('calling.addTranscriptLine', { callId: call.id, speaker, text, startMs, endMs: startMs + 5_000 });
  }
  await desk.call('calling.end', { callId: call.id });

  const { channels } = await desk.call('messaging.channels', {}, tomKey);
  const unread = channels.reduce((s: number, c: { membership: { unreadCount: number } | null }) => s + (c.membership?.unreadCount ?? 0), 0);
  for (const keyId of minted) await desk.call('settings.revokeApiKey', { keyId });
  return [
    `Messaging (messaging.channels, messaging.history, channel.*, calling.*):`,
    `  #studio (${studio.id}): the Tidewater thread (pinned, reactions), a bookmark, Sofia's poll on Friday drinks (2 votes), and the ended call "Wednesday review" (${call.id}) with its transcript: calling.getTranscript {"callId":"${call.id}","format":"webvtt"}`,
    `  #finance (${finance.id}, private): the bookkeeping agent's reconciliation report; a DM with Tom (${dm.id}); a group conversation "Studio move" (${group.id})`,
    `  Sofia's reminder ${reminder.id} is scheduled for ${reminder.postAt}: the server's worker posts it then; Tom has ${unread} unread messages across his channels`,
    `  messaging.history {"query":"\\"dark-mode palette\\""} finds the thread; messaging.history {"channelId":"${studio.id}","after":0,"waitMs":30000} long-polls for the next message`,
  ];
}
