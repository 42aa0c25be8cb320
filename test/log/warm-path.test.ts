import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTestContext } from '../support/storage.js';
import { observeSdk } from './sdk-faults.js';

const records = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: 1000 + i, key: null, value: Buffer.from(`${tag}-${i}`) }));

describe('warm append path', () => {
  it('takes the lease once, then costs exactly PutObject ∥ PutItem(SEG) followed by UpdateItem(STATE), with no reads', async () => {
    const ctx = await createTestContext({ leaseMs: 60_000 });
    const sdk = observeSdk(ctx);

    await appendToPartitions(ctx, 't', [{ partition: 0, records: records(3, 'cold') }]);
    expect(sdk.calls.map((c) => c.command)).toEqual(['UpdateItem', 'PutObject', 'PutItem', 'UpdateItem']);

    for (let i = 0; i < 3; i++) {
      sdk.calls.length = 0;
      sdk.events.length = 0;
      const [result] = await appendToPartitions(ctx, 't', [{ partition: 0, records: records(2, `warm${i}`) }]);
      expect(result).toEqual({ partition: 0, baseOffset: 3 + 2 * i, count: 2 });
      expect(sdk.calls.map((c) => `${c.client}:${c.command}`)).toEqual(['s3:PutObject', 'ddb:PutItem', 'ddb:UpdateItem']);
      // Round trip 1 is both writes in flight together; the commit starts only after both ended.
      expect(sdk.events.slice(0, 2).sort()).toEqual(['start PutItem', 'start PutObject']);
      expect(sdk.events.slice(2, 4).sort()).toEqual(['end PutItem', 'end PutObject']);
      expect(sdk.events.slice(4)).toEqual(['start UpdateItem', 'end UpdateItem']);
      // A one-batch segment has no index entries, so no .index PUT.
      expect(String(sdk.calls[0].input.Key)).toMatch(/^t\/0\/\d{20}-\d+-[0-9a-f]{16}\.log$/);
    }
  });
});
