// The SDK's public surface: the Consumer exposes kafkajs's methods only. The group session reaches
// the consumer's internals through a host interface (as the partition fetchers do), so none of
// startPartitions/stopPartitions/commitPositions/forgetPositions/reportError, nor the api and
// options it holds, is callable by users. Checked by the type checker (npm run typecheck) and at
// run time on what the package index exports.
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as client from '../../lib/client/index.js';
import type { Consumer } from '../../lib/client/consumer.js';

type Public =
  | 'connect'
  | 'subscribe'
  | 'assign'
  | 'run'
  | 'disconnect'
  | 'commitOffsets'
  | 'seek'
  | 'pause'
  | 'resume'
  | 'paused'
  | 'assignment';

describe('consumer public surface', () => {
  it('has only the documented members', () => {
    expectTypeOf<keyof Consumer>().toEqualTypeOf<Public>();
  });

  it('the index exports no group-session internals', () => {
    expect(Object.keys(client)).not.toContain('GroupSession');
    expect(Object.keys(client)).not.toContain('PartitionFetcher');
  });

  it('group-session.ts does not import the consumer', () => {
    const source = readFileSync(new URL('../../lib/client/group-session.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/from '\.\/consumer\.js'/);
  });
});
