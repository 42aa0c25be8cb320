// POST /v1/producers — Kafka's InitProducerId: a fresh producer id (epoch 0) for idempotent
// producing. The producer then sends producerId, producerEpoch and per-partition sequences
// with each produce, and a retried batch is acknowledged with its original offsets.
import * as z from 'zod';
import { allocateProducerId } from '../metadata/producer-ids.js';
import type { Operation } from './operation.js';
import { parseInput } from './validation.js';

const initProducerIdOperation: Operation = {
  name: 'initProducerId',
  method: 'POST',
  path: '/v1/producers',
  summary: 'A new producer id for idempotent produce (Kafka InitProducerId)',
  input: z.strictObject({}),
  response: { status: 200, body: z.strictObject({ producerId: z.int().min(0), producerEpoch: z.int().min(0) }) },
  async run(ctx, raw) {
    parseInput(z.strictObject({}), raw);
    const { producerId, producerEpoch } = await allocateProducerId(ctx);
    return { status: 200, body: { producerId, producerEpoch } };
  },
};

export const producerOperations: readonly Operation[] = [initProducerIdOperation];
