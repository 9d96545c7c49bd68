import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane's vault (docs/families/runtime.md, Secrets and integrations): the bank feed's API token granted to
 * the bookkeeping agent, which leases it for the nightly import; the payroll portal's password as a break-glass
 * secret, whose one lease a human approved (the integration is cli/demo-integration.ts). On
 * PostgreSQL without VAULT_MASTER_KEYS the vault is sealed and this part is skipped, saying so.
 */

export async function demoVault(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  progress('Vault: a secret granted to the bookkeeping agent and leased, a break-glass secret leased with a human’s approval');
  const agentId = await desk.agentId();
  const put = (params: Record<string, unknown>) => desk.call('credential.put', params).catch((err: Error) => err);
  const feed = await put({
    name: 'bank-feed.api-token',
    value: `demo_${Math.random().toString(36).slice(2)}`,
    leasableBy: [agentId],
    defaultTtlSeconds: 600,
    rotationPeriodDays: 90,
  });
  if (feed instanceof Error) {
    if (/vault is sealed/.test(feed.message)) return ['Vault: skipped (PostgreSQL without VAULT_MASTER_KEYS: the vault is sealed; set it to seed secrets)'];
    throw feed;
  }
  const lease = await desk.call('credential.lease', { name: 'bank-feed.api-token', purpose: 'Nightly bank feed import' }, desk.keys.agent);
  await desk.call('credential.put', {
    name: 'payroll-portal.password',
    value: `demo_${Math.random().toString(36).slice(2)}`,
    leasableBy: [agentId],
    approval: 'each_lease',
    maxTtlSeconds: 900,
  });
  const glass = await desk.signed('credential.lease', { name: 'payroll-portal.password', purpose: 'Lodge the STP correction', ttlSeconds: 600 });
  return [
    `Vault: bank-feed.api-token (${feed.credential.id}) leased by the bookkeeping agent (${lease.lease.id}, rotate every 90 days);` +
      ` payroll-portal.password is break-glass: its lease ${glass.lease.id} waited for Priya's approval. Try credential.list as the admin.`,
  ];
}
