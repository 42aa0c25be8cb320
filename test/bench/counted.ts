// Section (b)'s request counts as the cost model takes them, of the shape a full bench run measures: the
// fixture of the bench model's tests.
import type { CountedRequests } from '../../bench/cost-model.js';

/** Counts of the shape requests.ts measures (those of a full bench run). */
export const COUNTED: CountedRequests = {
  perProduce: {
    keyed: { plain: { 'ddb:UpdateItem': 16, 's3:PutObject': 1 }, plainWriteUnits: 16, spillWriteUnits: 32, spillsPerPartitionAppend: 0.125 },
    keyless: { plain: { 'ddb:UpdateItem': 1, 's3:PutObject': 1 }, plainWriteUnits: 1, spillWriteUnits: 2, spillsPerPartitionAppend: 0.125 },
  },
  perFetchTail: { 'ddb:GetItem': 1, 's3:GetObject': 1 },
  perFetchMerged: { 'ddb:Query': 1, 's3:GetObject': 1 },
  maintenance: {
    partitions: 16,
    merges: 16,
    replacedRanges: 384,
    intakeObjects: 24,
    intakeObjectsRead: 24,
    segmentObjectsRead: 0,
    counts: { 'ddb:DeleteItem': 160, 'ddb:PutItem': 16, 'ddb:UpdateItem': 48, 'ddb:GetItem': 16, 'ddb:Query': 16, 's3:GetObject': 24, 's3:PutObject': 48, 's3:ListObjectsV2': 16 },
    writeUnits: 224,
    readUnits: 32,
  },
};
