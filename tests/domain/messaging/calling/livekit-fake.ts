import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessToken, TokenVerifier } from 'livekit-server-sdk';
import { createHash } from 'node:crypto';
import type { LivekitConfig } from '../../../../domain/messaging/calling/config.js';

/*
 * A stand-in for LiveKit, since no livekit-server is in Debian or npm: a loopback HTTP server speaking
 * LiveKit's Twirp JSON endpoints that calling uses (RoomService GetParticipant, MutePublishedTrack,
 * RemoveParticipant, DeleteRoom; Egress StartRoomCompositeEgress, StopEgress). Every request's bearer token is
 * verified with the SDK's own TokenVerifier and recorded with its grant; rooms hold whoever the test puts in.
 */

export interface TwirpCall {
  service: string;
  method: string;
  body: any;
  /** The verified token's video grant. */
  grant: Record<string, unknown>;
}

export interface FakeLivekit {
  config: LivekitConfig;
  calls: TwirpCall[];
  /** Egress ids started, in order. */
  egressIds: string[];
  /** Put a participant with a microphone (and camera) track in a room. */
  seat(room: string, identity: string): void;
  /** The next StartRoomCompositeEgress answers this HTTP status (a Twirp error) instead of starting. */
  refuseNextEgress(status: number): void;
  /** A webhook body and Authorization header signed as LiveKit signs them (the SDK's AccessToken with sha256). */
  signWebhook(event: Record<string, unknown>, secret?: string): Promise<{ body: string; authorization: string }>;
  of(method: string): TwirpCall[];
  close(): Promise<void>;
}

type Track = { sid: string; type: string; muted: boolean };

const API_KEY = 'APIfake0123';
const API_SECRET = 'secret-for-the-loopback-livekit-0123456789';

export async function fakeLivekit(): Promise<FakeLivekit> {
  const verifier = new TokenVerifier(API_KEY, API_SECRET);
  const calls: TwirpCall[] = [];
  const rooms = new Map<string, Map<string, Track[]>>();
  const egressIds: string[] = [];
  let refuse: number | null = null;
  const twirpError = (res: import('node:http').ServerResponse, status: number, code: string, msg: string) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ code, msg }));
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on(
      'end',
      () =>
        void (async () => {
          const m = /^\/twirp\/livekit\.(RoomService|Egress)\/(\w+)$/.exec(req.url ?? '');
          if (req.method !== 'POST' || !m) return twirpError(res, 404, 'bad_route', `no route ${req.url}`);
          let grant: Record<string, unknown>;
          try {
            const claims = await verifier.verify((req.headers.authorization ?? '').replace(/^Bearer /, ''));
            grant = (claims.video ?? {}) as Record<string, unknown>;
          } catch {
            return twirpError(res, 401, 'unauthenticated', 'invalid token');
          }
          const body = JSON.parse(raw || '{}');
          const [, service, method] = m;
          calls.push({ service, method, body, grant });
          const room = rooms.get(body.room) ?? new Map<string, Track[]>();
          const ok = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
          switch (`${service}.${method}`) {
            case 'RoomService.GetParticipant': {
              const tracks = room.get(body.identity);
              if (!tracks) return twirpError(res, 404, 'not_found', 'participant not found');
              return ok({ identity: body.identity, state: 'ACTIVE', tracks });
            }
            case 'RoomService.MutePublishedTrack': {
              const track = room.get(body.identity)?.find((t) => t.sid === body.trackSid);
              if (!track) return twirpError(res, 404, 'not_found', 'track not found');
              track.muted = body.muted === true;
              return ok({ track });
            }
            case 'RoomService.RemoveParticipant':
              if (!room.delete(body.identity)) return twirpError(res, 404, 'not_found', 'participant not found');
              return ok({});
            case 'RoomService.DeleteRoom':
              rooms.delete(body.room);
              return ok({});
            case 'Egress.StartRoomCompositeEgress': {
              if (refuse !== null) {
                const status = refuse;
                refuse = null;
                return twirpError(res, status, status >= 500 ? 'internal' : 'invalid_argument', 'egress refused by the test');
              }
              egressIds.push(`EG_${egressIds.length + 1}`);
              return ok({ egressId: egressIds.at(-1), roomName: body.roomName, status: 'EGRESS_STARTING' });
            }
            case 'Egress.StopEgress':
              return ok({ egressId: body.egressId, status: 'EGRESS_ENDING' });
            default:
              return twirpError(res, 404, 'bad_route', `${service}.${method} is not served here`);
          }
        })().catch((err: Error) => twirpError(res, 500, 'internal', err.message)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    config: { url: `http://127.0.0.1:${port}`, apiKey: API_KEY, apiSecret: API_SECRET, tokenTtlSeconds: 3600, requestTimeoutSeconds: 5 },
    calls,
    egressIds,
    seat(room, identity) {
      const r = rooms.get(room) ?? new Map<string, Track[]>();
      r.set(identity, [
        { sid: `TR_mic_${identity}`, type: 'AUDIO', muted: false },
        { sid: `TR_cam_${identity}`, type: 'VIDEO', muted: false },
      ]);
      rooms.set(room, r);
    },
    refuseNextEgress(status) {
      refuse = status;
    },
    async signWebhook(event, secret = API_SECRET) {
      const body = JSON.stringify(event);
      const token = new AccessToken(API_KEY, secret);
      token.sha256 = createHash('sha256').update(body).digest('base64');
      return { body, authorization: await token.toJwt() };
    },
    of: (method) => calls.filter((c) => c.method === method),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
