// `npm start` never mixes a configured endpoint for one service with real AWS for the other: an
// S3 endpoint alone (or a DynamoDB one alone) fails at start with a message naming the variables,
// before any client is created; both, AWS_ENDPOINT_URL, or none are accepted.
import { describe, expect, it } from 'vitest';
import { storageTarget } from '../../lib/local/endpoint-config.js';
import { startMain } from './main-process.js';

describe('endpoint configuration', () => {
  it('refuses one service configured and the other left to real AWS', () => {
    expect(() => storageTarget({ AWS_ENDPOINT_URL_S3: 'http://localhost:4566' })).toThrow(/AWS_ENDPOINT_URL_S3 is set but neither AWS_ENDPOINT_URL_DYNAMODB nor AWS_ENDPOINT_URL/);
    expect(() => storageTarget({ AWS_ENDPOINT_URL_DYNAMODB: 'http://localhost:8000' })).toThrow(/AWS_ENDPOINT_URL_DYNAMODB is set but neither AWS_ENDPOINT_URL_S3/);
  });

  it('accepts both per-service endpoints, one shared endpoint, or none', () => {
    expect(storageTarget({})).toEqual({ kind: 'embedded' });
    expect(storageTarget({ AWS_ENDPOINT_URL: 'http://ls:4566' })).toEqual({ kind: 'endpoint', s3: 'http://ls:4566', dynamodb: 'http://ls:4566' });
    expect(storageTarget({ AWS_ENDPOINT_URL_S3: 'http://s3:1', AWS_ENDPOINT_URL_DYNAMODB: 'http://ddb:2' })).toEqual({ kind: 'endpoint', s3: 'http://s3:1', dynamodb: 'http://ddb:2' });
    // A per-service variable overrides the shared one for its service; the other keeps the shared one.
    expect(storageTarget({ AWS_ENDPOINT_URL: 'http://ls:4566', AWS_ENDPOINT_URL_S3: 'http://s3:1' })).toEqual({ kind: 'endpoint', s3: 'http://s3:1', dynamodb: 'http://ls:4566' });
  });

  it('npm start exits with that message instead of serving', async () => {
    const started = startMain({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y' });
    await expect(started).rejects.toThrow(/exited \(1\) before listening[\s\S]*AWS_ENDPOINT_URL_S3 is set but neither/);
  });
});
