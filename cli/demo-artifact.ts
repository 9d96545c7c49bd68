import type { DemoDesk } from './demo.js';

/*
 * The demo company's artifact: the agent posts a small approval form (an amount, a note, Approve) in a channel it
 * shares with the admin; a human's submit returns to the agent through artifact.get (waitMs).
 */

export async function demoArtifact(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  progress('Artifact: the agent posts an approval form in #spend for a human to submit');
  const { channel } = await desk.call('channel.create', { name: 'spend', topic: 'Small spends the agent asks about', memberIds: [await desk.agentId()] });
  const components = [
    { id: 'root', type: 'Card', title: 'New monitor for the studio', tone: 'brand', children: ['facts', 'amount', 'note', 'approve'] },
    { id: 'facts', type: 'KeyValue', items: { path: '/facts' } },
    { id: 'amount', type: 'NumberInput', name: 'amount', label: 'Approved amount (AUD)', min: 1, max: 2000, required: true },
    { id: 'note', type: 'TextInput', name: 'note', label: 'Note for the agent' },
    { id: 'approve', type: 'Button', actionId: 'approve', label: 'Approve', tone: 'positive' },
  ];
  const data = {
    facts: [
      { label: 'Supplier', value: 'Officeworks' },
      { label: 'Quoted', value: 'AUD 649.00' },
    ],
  };
  const actions = [{ actionId: 'approve', label: 'Approve', inputs: ['amount', 'note'], once: true, closes: true, audience: 'humans' }];
  const { artifact } = await desk.call(
    'artifact.create',
    { idempotencyId: 'demo-monitor', title: 'Monitor purchase', components, data, actions, fallbackText: 'Approve the AUD 649 monitor in the app.' },
    desk.keys.agent,
  );
  await desk.call(
    'messaging.send',
    { channelId: channel.id, idempotencyId: 'demo-monitor-post', text: 'May I order this monitor?', artifactIds: [artifact.id] },
    desk.keys.agent,
  );
  return [
    `Artifact: ${artifact.id}, an approval form the agent posted in #spend: submit it with artifact.act {"artifactId":"${artifact.id}","actionId":"approve","revision":1,"values":{"amount":649},"idempotencyId":"me-1"}; the agent waits with artifact.get {"artifactId":"${artifact.id}","waitMs":25000}`,
  ];
}
