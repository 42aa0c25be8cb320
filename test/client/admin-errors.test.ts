// Admin.groupLag reads the group's description for the owners column. A group that never had
// members (standalone commits) is GROUP_ID_NOT_FOUND: no owners. Any other failure surfaces — it
// used to be swallowed, so a throttled or failing describe silently reported every owner as null.
import { describe, expect, it } from 'vitest';
import { Admin } from '../../lib/client/admin.js';
import { SluiceClientError } from '../../lib/client/errors.js';
import type { SluiceApi } from '../../lib/client/wire.js';

function api(describeGroup: () => Promise<unknown>): SluiceApi {
  return {
    describeGroup,
    fetchOffsets: async () => ({ offsets: [{ topic: 't', partition: 0, offset: 3 }] }),
    describeTopic: async () => ({ name: 't', partitions: [{ partition: 0, logStartOffset: 0, highWatermark: 5 }], config: {} }),
  } as unknown as SluiceApi;
}

describe('Admin.groupLag', () => {
  it('treats a group without membership as having no owners', async () => {
    const admin = new Admin(api(async () => Promise.reject(new SluiceClientError('GROUP_ID_NOT_FOUND', 'no such group'))));
    expect(await admin.groupLag('g')).toEqual([{ topic: 't', partition: 0, currentOffset: 3, logEndOffset: 5, lag: 2, memberId: null }]);
  });

  it('surfaces any other failure of describeGroup', async () => {
    const admin = new Admin(api(async () => Promise.reject(new SluiceClientError('THROTTLING', 'slow down', { retriable: true, status: 429 }))));
    await expect(admin.groupLag('g')).rejects.toMatchObject({ code: 'THROTTLING' });
  });
});
