import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createOrgs, rpc } from '../fixture.js';
import { latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import type { BenchRun } from '../steps.js';
import { remoteFixture } from '../../tests/domain/vault/remote-fixture.js';

/*
 * The vault's targets (docs/families/runtime.md, Secrets and integrations): credential.lease under 30 ms p95 on
 * PostgreSQL (grant check, open the sealed version, insert the lease, the event), and invokeTool's overhead under
 * 15 ms p95 over calling the same remote tool directly with the SDK (both over a kept session). The remote is
 * the tests' SDK McpServer on 127.0.0.1, which the bench server reaches through INTEGRATION_ALLOW_HOSTS (bench/run.ts).
 * invokeTool allows 60 calls a minute per integration, so the calls are spread over several integrations.
 */

const SAMPLES = Number(process.env.BENCH_VAULT_SAMPLES ?? 200);
const PER_INTEGRATION = 50;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** 21: credential.lease p95, invokeTool overhead over a direct call. */
export async function vaultStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-vault`);
  const call = async (method: string, params: unknown) => {
    const { body } = await rpc(ctx.baseUrl, org.key, method, params);
    if (!body.ok) throw new Error(`${method}: ${JSON.stringify(body).slice(0, 300)}`);
    return body.result;
  };
  const remote = await remoteFixture();
  try {
    const token = (await call('credential.put', { name: 'bench.token', value: remote.token, leasableBy: ['*'] })).credential.id;
    for (let i = 0; i < 20; i++) await call('credential.lease', { name: 'bench.token', purpose: 'warm' });
    const leases = await latencies(SAMPLES, () => call('credential.lease', { name: 'bench.token', purpose: 'bench' }).then(() => undefined));
    log(`21. credential.lease: p50 ${leases.p50Ms.toFixed(1)} p95 ${leases.p95Ms.toFixed(1)} ms`);

    const integrations: string[] = [];
    for (let i = 0; i * PER_INTEGRATION < SAMPLES; i++) {
      const connected = await call('integration.connect', { name: `bench-${i}`, url: remote.url, auth: { kind: 'bearer', credentialId: token } });
      integrations.push(connected.integration.id);
    }
    // The direct call keeps its session, as invokeTool's pool does (integration/pool.ts): the overhead is the server's own.
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(remote.url), { requestInit: { headers: { Authorization: `Bearer ${remote.token}` } } }));
    const direct = await latencies(SAMPLES, async () => {
      await client.callTool({ name: 'echo', arguments: { text: 'bench' } });
    });
    await client.close();
    const invoked = await latencies(SAMPLES, async (i) => {
      const out = await call('integration.invokeTool', {
        integrationId: integrations[Math.floor(i / PER_INTEGRATION)],
        tool: 'echo',
        arguments: { text: 'bench' },
      });
      if (out.status !== 'ok') throw new Error(`invokeTool: ${JSON.stringify(out).slice(0, 300)}`);
    });
    const overhead = { p50Ms: invoked.p50Ms - direct.p50Ms, p95Ms: invoked.p95Ms - direct.p95Ms };
    log(`21. invokeTool: p95 ${invoked.p95Ms.toFixed(1)} ms; direct p95 ${direct.p95Ms.toFixed(1)} ms; overhead p95 ${overhead.p95Ms.toFixed(1)} ms`);
    run.raw.vault = { leases, direct, invoked };
    run.rows.push(latencyRow('21 credential.lease', leases, 30));
    run.rows.push(latencyRow('21 integration.invokeTool overhead over a direct SDK call', overhead, 15));
  } finally {
    await remote.close();
  }
}
