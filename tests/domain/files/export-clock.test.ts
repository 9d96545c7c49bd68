import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../helpers/calls.js';
import { OffsetClock } from '../../helpers/clock.js';
import { download, driveOrg, folder, upload, type DriveOrg } from './drive-kit.js';

/*
 * A grant's expiresAt is business time: the runtime's clock decides it in every handler, and a signed export URL's
 * check at each download (the signed record check runs with deps.clock), not the machine's time.
 */

const clock = new OffsetClock();
let o: DriveOrg;
beforeAll(async () => {
  o = await driveOrg({ clock });
});
afterAll(() => o.s.close());

describe('an export URL under a grant that expires', () => {
  it('serves while the grant lives by the clock and stops once the clock passes its expiresAt', async () => {
    const dir = await folder(o.s, o.mia.key, 'Audit', { restricted: true });
    const f = await upload(o.s, o.mia.key, 'ledger.txt', 'the ledger', { parentId: dir.id });
    const expiresAt = new Date(clock.now().getTime() + 3_600_000).toISOString();
    await ok(o.s, 'files.shareGrant', { fileId: dir.id, grantee: { principalId: o.max.id }, role: 'viewer', expiresAt }, o.mia.key);
    const url = (await ok(o.s, 'files.exportRequest', { fileId: f.id, format: 'original' }, o.max.key)).url as string;
    expect((await download(o.s, url)).status).toBe(200);
    // Two hours later by the clock (the URL's own 15 minutes are the machine's and have not passed).
    clock.advance(2 * 3_600_000);
    expect((await download(o.s, url)).status).toBe(404);
    const again = await o.s.client.rpc('files.exportRequest', { fileId: f.id, format: 'original' }, { key: o.max.key });
    expect(again.body.error?.code).toBe('NOT_FOUND');
  });
});
