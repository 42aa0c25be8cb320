// Validation of subscription requests: every option's bounds and defaults (Lambda event source
// mapping names), targets, dead-letter destinations; bad input is a clear error naming the field.
import { describe, expect, it } from 'vitest';
import { SluiceError } from '../../lib/errors.js';
import { DEFAULT_SUBSCRIPTION_CONFIG, resolveSubscriptionInput, subscriptionGroup } from '../../lib/subscriptions/subscription.js';

const base = { name: 'orders-to-fn', topic: 'orders', target: { type: 'lambda', functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:handler' } };

function refused(input: unknown): SluiceError {
  try {
    resolveSubscriptionInput(input);
  } catch (e) {
    expect(e).toBeInstanceOf(SluiceError);
    return e as SluiceError;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('resolveSubscriptionInput', () => {
  it('fills the defaults of a Lambda event source mapping', () => {
    const resolved = resolveSubscriptionInput(base);
    expect(resolved).toEqual({ ...DEFAULT_SUBSCRIPTION_CONFIG, ...base });
    expect(DEFAULT_SUBSCRIPTION_CONFIG).toEqual({
      batchSize: 100,
      maximumBatchingWindowMs: 0,
      startingPosition: 'LATEST',
      bisectBatchOnFunctionError: false,
      functionResponseTypes: [],
      maximumRetryAttempts: -1,
      maximumRecordAgeMs: -1,
      parallelizationFactor: 1,
      enabled: true,
    });
    expect(subscriptionGroup('orders-to-fn')).toBe('sluice-subscription.orders-to-fn');
  });

  it('keeps every option given within its bounds', () => {
    const options = {
      batchSize: 10_000,
      maximumBatchingWindowMs: 300_000,
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestamp: 1_700_000_000_000,
      bisectBatchOnFunctionError: true,
      functionResponseTypes: ['ReportBatchItemFailures'],
      maximumRetryAttempts: 0,
      maximumRecordAgeMs: 60_000,
      onFailure: { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:123456789012:dead-letters' },
      parallelizationFactor: 10,
      enabled: false,
    };
    expect(resolveSubscriptionInput({ ...base, ...options })).toEqual({ ...base, ...options });
    expect(resolveSubscriptionInput({ ...base, onFailure: { type: 'sns', topicArn: 'arn:aws:sns:us-east-1:123456789012:failures' } }).onFailure?.type).toBe('sns');
    expect(resolveSubscriptionInput({ ...base, onFailure: { type: 'topic', topic: 'orders.dlq' } }).onFailure).toEqual({ type: 'topic', topic: 'orders.dlq' });
    expect(resolveSubscriptionInput({ ...base, target: { type: 'lambda', functionArn: 'handler:live' } }).target).toEqual({ type: 'lambda', functionArn: 'handler:live' });
  });

  it.each([
    [{ batchSize: 0 }, 'batchSize must be an integer from 1 to 10000'],
    [{ batchSize: 10_001 }, 'batchSize'],
    [{ batchSize: 1.5 }, 'batchSize'],
    [{ batchSize: '100' }, 'batchSize'],
    [{ maximumBatchingWindowMs: -1 }, 'maximumBatchingWindowMs must be an integer from 0 to 300000'],
    [{ maximumBatchingWindowMs: 300_001 }, 'maximumBatchingWindowMs'],
    [{ startingPosition: 'EARLIEST' }, 'startingPosition must be one of TRIM_HORIZON, LATEST, AT_TIMESTAMP'],
    [{ startingPosition: 'AT_TIMESTAMP' }, 'AT_TIMESTAMP needs startingPositionTimestamp'],
    [{ startingPositionTimestamp: 5 }, 'only for startingPosition AT_TIMESTAMP'],
    [{ startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: -5 }, 'startingPositionTimestamp must be'],
    [{ bisectBatchOnFunctionError: 'yes' }, 'bisectBatchOnFunctionError must be true or false'],
    [{ functionResponseTypes: ['Partial'] }, 'functionResponseTypes must be'],
    [{ maximumRetryAttempts: -2 }, 'maximumRetryAttempts must be an integer from 0 to 10000, or -1 (forever)'],
    [{ maximumRetryAttempts: 10_001 }, 'maximumRetryAttempts'],
    [{ maximumRecordAgeMs: 59_999 }, 'maximumRecordAgeMs must be an integer from 60000 to 604800000, or -1'],
    [{ maximumRecordAgeMs: 604_800_001 }, 'maximumRecordAgeMs'],
    [{ parallelizationFactor: 0 }, 'parallelizationFactor must be an integer from 1 to 10'],
    [{ parallelizationFactor: 11 }, 'parallelizationFactor'],
    [{ enabled: 1 }, 'enabled must be true or false'],
    [{ onFailure: { type: 'sqs', queueArn: 'dead-letters' } }, 'onFailure.queueArn must be an SQS queue ARN'],
    [{ onFailure: { type: 'sns', topicArn: 'arn:aws:sqs:eu-west-1:123456789012:q' } }, 'onFailure.topicArn must be an SNS topic ARN'],
    [{ onFailure: { type: 'topic', topic: 'bad name' } }, 'onFailure.topic must be a topic name'],
    [{ onFailure: { type: 'topic', topic: 'orders' } }, 'must not be the subscribed topic'],
    [{ onFailure: { type: 'email' } }, 'onFailure must be'],
    [{ onFailure: { type: 'topic', topic: 'dlq', extra: 1 } }, "unknown field 'extra'"],
    [{ maxBatchSize: 5 }, "unknown subscription option 'maxBatchSize'; supported: name, topic, target"],
  ])('refuses %j with INVALID_CONFIG', (options, message) => {
    const e = refused({ ...base, ...options });
    expect(e.code).toBe('INVALID_CONFIG');
    expect(e.message).toContain(message);
  });

  it.each([
    [null, 'must be an object with name, topic and target'],
    [{ ...base, name: undefined }, 'subscription name must be a string'],
    [{ ...base, name: '' }, 'subscription name must be 1 to 249 characters'],
    [{ ...base, name: 'a'.repeat(250) }, '1 to 249'],
    [{ ...base, name: 'has space' }, "subscription name 'has space' is illegal"],
    [{ ...base, name: '..' }, 'is illegal'],
    [{ ...base, topic: 'bad/topic' }, 'topic must be a topic name'],
    [{ ...base, target: undefined }, 'target must be'],
    [{ ...base, target: { type: 'ftp', url: 'ftp://x' } }, "target.type must be 'lambda' or 'https'"],
    [{ ...base, target: { type: 'lambda', functionArn: 'arn:aws:s3:::bucket' } }, 'target.functionArn must be a Lambda function name or ARN'],
    [{ ...base, target: { type: 'lambda', functionArn: 'fn', url: 'x' } }, "unknown field 'url'"],
    [{ ...base, target: { type: 'https', url: 'not a url' } }, 'target.url must be an absolute URL'],
    [{ ...base, target: { type: 'https', url: 'http://example.com/hook' } }, 'target.url must be https://'],
    [{ ...base, target: { type: 'https', url: 'https://user:pw@example.com/hook' } }, 'must not carry credentials'],
    [{ ...base, signingSecret: 'x'.repeat(32) }, 'signingSecret is only for https targets'],
    [{ ...base, target: { type: 'https', url: 'https://example.com/' }, signingSecret: 'short' }, 'signingSecret must be a string of 16 to 256'],
  ])('refuses %j with INVALID_REQUEST', (input, message) => {
    const e = refused(input);
    expect(e.code).toBe('INVALID_REQUEST');
    expect(e.message).toContain(message);
  });

  it('takes https targets, and plain http only on a loopback host', () => {
    expect(resolveSubscriptionInput({ ...base, target: { type: 'https', url: 'https://hooks.example.com/sluice' } }).target).toEqual({ type: 'https', url: 'https://hooks.example.com/sluice' });
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost:9/', 'http://[::1]:3000/']) {
      expect(resolveSubscriptionInput({ ...base, target: { type: 'https', url } }).target).toEqual({ type: 'https', url });
    }
    const secret = 's'.repeat(16);
    expect(resolveSubscriptionInput({ ...base, target: { type: 'https', url: 'https://h.example.com/' }, signingSecret: secret }).signingSecret).toBe(secret);
  });
});
