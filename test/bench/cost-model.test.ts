// bench/cost-model.ts: a keyless request touching several partitions (a Kafka gateway's window)
// pays one S3 PUT and, per partition, the counted keyless DynamoDB requests and a replaced range in
// maintenance; without the option every number is what it was (pinned here by hand-computed values).
import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES, PRICES, distinctPartitions, modelCost, type Workload } from '../../bench/cost-model.js';
import { COUNTED } from './counted.js';

const GB = 2 ** 30;
const keyless: Workload = { recordBytes: 1024, mbPerSecond: 1, partitions: 16, shape: 'keyless', lingerMs: 100 };
const keyed: Workload = { ...keyless, shape: 'keyed' };

describe('cost model: partitions per request', () => {
  it('keeps every number without the option: keyless 1 partition, keyed all of them', () => {
    const requestsPerGb = GB / (2 ** 20 / 10);
    const line = modelCost(keyless, COUNTED);
    expect(line.produceRequestsPerGb).toBe(requestsPerGb);
    expect(line.ingest.s3Put).toBeCloseTo(requestsPerGb * PRICES.s3Put, 12);
    // 1 STATE update + 2 write units of spill in 1 of 8 appends.
    expect(line.ingest.dynamodb).toBeCloseTo(requestsPerGb * 1.25 * PRICES.ddbWriteUnit, 12);
    expect(modelCost({ ...keyless, partitionsPerRequest: 1 }, COUNTED)).toEqual({ ...line, workload: { ...keyless, partitionsPerRequest: 1 } });

    const keyedLine = modelCost(keyed, COUNTED);
    expect(keyedLine.ingest.dynamodb).toBeCloseTo(requestsPerGb * 20 * PRICES.ddbWriteUnit, 12);
    expect(modelCost({ ...keyed, partitionsPerRequest: 16 }, COUNTED)).toEqual({ ...keyedLine, workload: { ...keyed, partitionsPerRequest: 16 } });
  });

  it('scales DynamoDB and maintenance ranges by the partitions, not the S3 PUT', () => {
    const one = modelCost({ ...keyless, lingerMs: 1000 }, COUNTED);
    const many = modelCost({ ...keyless, lingerMs: 1000, partitionsPerRequest: 7.5 }, COUNTED);
    expect(many.produceRequestsPerGb).toBe(one.produceRequestsPerGb);
    expect(many.ingest.s3Put).toBe(one.ingest.s3Put);
    expect(many.ingest.dynamodb).toBeCloseTo(one.ingest.dynamodb * 7.5, 12);
    // Each further range costs the run's item deletes per range, at its write units per write.
    const m = COUNTED.maintenance;
    const writes = m.counts['ddb:DeleteItem'] + m.counts['ddb:PutItem'] + m.counts['ddb:UpdateItem'];
    const perRange = (m.counts['ddb:DeleteItem'] * (m.writeUnits / writes) * PRICES.ddbWriteUnit) / m.replacedRanges;
    expect(many.ingest.maintenance - one.ingest.maintenance).toBeCloseTo(one.produceRequestsPerGb * 6.5 * perRange, 12);
    // A tailing consumer reads one partition's range of the object per fetch.
    expect(many.readTail).toBeGreaterThan(one.readTail);
  });

  it('refuses partitions a request cannot touch', () => {
    expect(() => modelCost({ ...keyless, partitionsPerRequest: 0.5 }, COUNTED)).toThrow(RangeError);
    expect(() => modelCost({ ...keyless, partitionsPerRequest: 17 }, COUNTED)).toThrow(RangeError);
    expect(() => modelCost({ ...keyed, partitionsPerRequest: 4 }, COUNTED)).toThrow(/all 16 partitions/);
  });

  it('caps a request at MAX_REQUEST_BYTES unless told otherwise', () => {
    const big = { ...keyless, mbPerSecond: 50, lingerMs: 1000 };
    expect(modelCost(big, COUNTED).requestBytes).toBe(MAX_REQUEST_BYTES);
    expect(modelCost({ ...big, maxRequestBytes: Infinity }, COUNTED).requestBytes).toBe(50 * 2 ** 20);
  });
});

describe('distinctPartitions', () => {
  it('is the expected count of distinct uniform choices', () => {
    expect(distinctPartitions(16, 0)).toBe(0);
    expect(distinctPartitions(16, 1)).toBeCloseTo(1, 12);
    // Two choices: 1 + P(second differs) = 1 + 15/16.
    expect(distinctPartitions(16, 2)).toBeCloseTo(1 + 15 / 16, 12);
    expect(distinctPartitions(16, 1000)).toBeCloseTo(16, 9);
    expect(distinctPartitions(1, 5)).toBe(1);
  });

  it('matches sampling', () => {
    let seed = 42;
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const trials = 20_000;
    let sum = 0;
    for (let t = 0; t < trials; t++) sum += new Set(Array.from({ length: 8 }, () => Math.floor(random() * 16))).size;
    expect(sum / trials).toBeCloseTo(distinctPartitions(16, 8), 1);
  });
});
