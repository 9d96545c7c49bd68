import type { FastifyInstance } from 'fastify';
import { errorFrame } from '../protocol/frames.js';
import type { Runtime } from '../domain/deployed.js';
import { applyLivekitWebhook } from '../domain/messaging/calling/webhook.js';

/**
 * POST /api/v1/calling/livekit-webhook: LiveKit's webhook, which marks a call's recording ready or failed
 * (domain/messaging/calling/webhook.ts). Trusted only when signed with this server's LiveKit API secret: the body's SHA-256
 * in a JWT issued by the API key (WebhookReceiver), so the body is read as it came, byte for byte. Without
 * LiveKit configured the route answers NOT_FOUND.
 */
export const LIVEKIT_WEBHOOK_PATH = '/api/v1/calling/livekit-webhook';

export async function livekitWebhookRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { deps } = opts.runtime;
  // This plugin's own parsers: the signed bytes, whatever the content type (LiveKit sends application/webhook+json).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.post(LIVEKIT_WEBHOOK_PATH, async (req, reply) => {
    const cfg = deps.config.livekit;
    if (!cfg) return reply.code(404).send(errorFrame('NOT_FOUND', 'no LiveKit is configured on this server (LIVEKIT_URL)'));
    const body = typeof req.body === 'string' ? req.body : '';
    const auth = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    // The SDK is loaded by the first webhook, not with the server (domain/messaging/calling/media.ts loads it likewise).
    const { WebhookReceiver } = await import('livekit-server-sdk');
    let event;
    try {
      event = await new WebhookReceiver(cfg.apiKey, cfg.apiSecret).receive(body, auth);
    } catch {
      return reply.code(401).send(errorFrame('UNAUTHORIZED', "authorization: not a webhook signed with this server's LiveKit API key and secret"));
    }
    const outcome = await applyLivekitWebhook(deps, event);
    req.log.info({ event: event.event, outcome }, 'LiveKit webhook');
    return reply.send({ ok: true, result: { outcome } });
  });
}
