// Replies lost after DynamoDB or S3 applied the request (a timeout, a dropped connection, a 503
// from a proxy): the append matrix of test/proof/faults.ts (appendFaultMatrix, every request of
// every append of its script, see test/proof/append-faults.test.ts) with these kinds, and the
// protocol's answer to a commit whose reply is lost, one case at a time:
//   - never re-sent (by the SDK, whose retry loop the fault sits inside, or by append.ts);
//   - acknowledged when a consistent read finds its entry: in the tail (the matrix), or in the SEG
//     item another writer spilled it into meanwhile;
//   - REQUEST_TIMED_OUT (retriable, "may still be applied") when the entry is nowhere.
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { TAIL_MAX_ENTRIES } from '../../lib/log/spill.js';
import { allSegmentItems } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { type FaultKind, appendFaultMatrix } from '../proof/faults.js';
import { readLog, startProcess, toRecords } from '../proof/processes.js';
import { createTestContext } from '../support/storage.js';
import { entryOf, holdNext, isCommit, isStateRead, observeSdk, serverError, timeoutError, type SdkCall } from './sdk-faults.js';

describe('fault injection at every AWS request of an append: replies lost after the server applied the request', () => {
  it.each(['timeout-after', 'network-after', '5xx-after'] as const)(
    '%s at every request: invariants hold, a commit is never re-sent and is acknowledged through the search',
    async (kind: FaultKind) => appendFaultMatrix(await createTestContext(), kind),
  );
});

describe('a commit whose reply is lost', () => {
  it('is acknowledged from the SEG item when another writer spilled its entry before the search read STATE', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 1);
    const writer = startProcess(shared);
    const other = startProcess(shared);
    const sdk = observeSdk(writer);
    let lost: SdkCall | undefined;
    sdk.fault = (call) => {
      if (!lost && isCommit(call)) {
        lost = call;
        return { when: 'after', error: timeoutError() };
      }
      return undefined;
    };
    const searchRead = holdNext(sdk, isStateRead);
    const pending = appendToPartitions(writer, topic, [{ partition: 0, records: toRecords(['mine-0', 'mine-1']) }]);
    await searchRead.reached;
    expect(lost?.outcome).toBe('applied');
    // Meanwhile another writer fills the tail: its spill moves the lost commit's entry into SEG#0.
    for (let i = 0; i < TAIL_MAX_ENTRIES - 1; i++) await appendToPartitions(other, topic, [{ partition: 0, records: toRecords([`other-${i}`]) }]);
    const state = await getPartitionState(shared, topic, 0);
    expect(state.tail).not.toContain(entryOf(lost!));
    const items = [];
    for await (const item of allSegmentItems(shared, topic, 0)) items.push(item);
    expect(items.map((i) => i.entries?.includes(entryOf(lost!)!))).toEqual([true]);

    searchRead.release();
    expect(await pending).toEqual([{ partition: 0, baseOffset: 0, count: 2 }]);
    // Once, at the acknowledged offsets; the commit was sent once.
    expect(sdk.calls.filter((c) => isCommit(c))).toHaveLength(1);
    const { records } = await readLog(shared, topic, 0);
    expect(records.slice(0, 2)).toEqual([
      { offset: 0, value: 'mine-0' },
      { offset: 1, value: 'mine-1' },
    ]);
    expect(records.filter((r) => r.value.startsWith('mine'))).toHaveLength(2);
  });

  it('is REQUEST_TIMED_OUT, never "not written", when the entry is nowhere (a 5xx before DynamoDB applied it); a retry then lands once', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 1);
    const writer = startProcess(shared);
    const sdk = observeSdk(writer);
    let failed = 0;
    sdk.fault = (call) => (isCommit(call) && failed++ === 0 ? { when: 'before', error: serverError(500) } : undefined);
    const [first] = await appendToPartitions(writer, topic, [{ partition: 0, records: toRecords(['a']) }]);
    expect(first).toMatchObject({ partition: 0, error: { code: 'REQUEST_TIMED_OUT', retriable: true } });
    // One attempt only (the SDK would have retried a 500), then the search's consistent read.
    expect(sdk.calls.filter(isCommit)).toHaveLength(1);
    expect(sdk.calls.filter(isStateRead)).toHaveLength(1);
    expect(sdk.calls.find(isStateRead)!.input.ConsistentRead).toBe(true);
    const [retry] = await appendToPartitions(writer, topic, [{ partition: 0, records: toRecords(['a']) }]);
    expect(retry).toEqual({ partition: 0, baseOffset: 0, count: 1 });
    expect((await readLog(shared, topic, 0)).records).toEqual([{ offset: 0, value: 'a' }]);
  });
});
