// A subscription: push delivery of a topic's records to a target (a Lambda function or an HTTPS
// endpoint), as a Lambda event source mapping delivers a Kinesis stream or a Kafka topic. The
// options carry the mapping's names and defaults (BatchSize, MaximumBatchingWindowInSeconds in ms,
// StartingPosition, BisectBatchOnFunctionError, FunctionResponseTypes, MaximumRetryAttempts,
// MaximumRecordAgeInSeconds in ms, DestinationConfig.OnFailure, ParallelizationFactor, Enabled).
//
// `resolveSubscriptionInput` validates a creation request (from the HTTP API, the CLI or CDK)
// before anything is written: a malformed request is INVALID_REQUEST, a bad option value
// INVALID_CONFIG, each with a message naming the field and what it takes.
import { SluiceError } from '../errors.js';

export type SubscriptionTarget =
  | { readonly type: 'lambda'; readonly functionArn: string }
  /** POSTs the event as JSON, signed with HMAC-SHA256 (targets/https-target.ts, README "Subscriptions"). */
  | { readonly type: 'https'; readonly url: string };

/** Where the metadata of records that could not be delivered goes (Lambda's DestinationConfig.OnFailure). */
export type OnFailureDestination =
  | { readonly type: 'sqs'; readonly queueArn: string }
  | { readonly type: 'sns'; readonly topicArn: string }
  /** A Sluice topic (a dead-letter topic): for local use, and for keeping failures in the log. */
  | { readonly type: 'topic'; readonly topic: string };

export type StartingPosition = 'TRIM_HORIZON' | 'LATEST' | 'AT_TIMESTAMP';

export const REPORT_BATCH_ITEM_FAILURES = 'ReportBatchItemFailures';

export interface SubscriptionConfig {
  /** Records per delivered batch at most. 1..10000, @default 100 */
  readonly batchSize: number;
  /** How long to gather records before delivering a batch smaller than batchSize. 0..300000, @default 0 */
  readonly maximumBatchingWindowMs: number;
  /** Where delivery starts when the subscription is created. @default 'LATEST' */
  readonly startingPosition: StartingPosition;
  /** ms since the epoch; required for (and only for) AT_TIMESTAMP. */
  readonly startingPositionTimestamp?: number;
  /** Split a failing batch in two and retry the halves, isolating a poison record. @default false */
  readonly bisectBatchOnFunctionError: boolean;
  /** ['ReportBatchItemFailures']: the target may answer which records failed. @default [] */
  readonly functionResponseTypes: readonly (typeof REPORT_BATCH_ITEM_FAILURES)[];
  /** Retries of a failing batch before its records go to onFailure. -1 (forever)..10000, @default -1 */
  readonly maximumRetryAttempts: number;
  /** Records older than this go to onFailure instead of being retried. -1 (forever) or 60000..604800000, @default -1 */
  readonly maximumRecordAgeMs: number;
  /** Where failed records' metadata goes; without it delivery moves on after logging them. */
  readonly onFailure?: OnFailureDestination;
  /** Concurrent batches per partition (order kept per key). 1..10, @default 1 */
  readonly parallelizationFactor: number;
  /** A disabled subscription delivers nothing and keeps its offsets. @default true */
  readonly enabled: boolean;
}

export interface Subscription extends SubscriptionConfig {
  /** Named like a topic: 1 to 249 of ASCII letters, digits, '.', '_' and '-'. */
  readonly name: string;
  readonly topic: string;
  /** The id of the topic incarnation subscribed to: a re-created topic of the same name is not delivered. */
  readonly topicId: string;
  /** The consumer group holding the committed offsets: `sluice-subscription.<name>`. */
  readonly group: string;
  readonly target: SubscriptionTarget;
  readonly createdAt: number;
  /**
   * HTTPS targets only, and only in createSubscription's result: the HMAC-SHA256 key requests are
   * signed with. Never returned again (get, list and describe leave it out).
   */
  readonly signingSecret?: string;
}

export interface CreateSubscriptionInput extends Partial<SubscriptionConfig> {
  readonly name: string;
  readonly topic: string;
  readonly target: SubscriptionTarget;
  /** HTTPS targets: the signing key (16 to 256 characters). @default 32 random bytes, base64url */
  readonly signingSecret?: string;
}

/** A validated creation request: every option present. */
export interface ResolvedSubscriptionInput extends SubscriptionConfig {
  readonly name: string;
  readonly topic: string;
  readonly target: SubscriptionTarget;
  readonly signingSecret?: string;
}

export const SUBSCRIPTION_GROUP_PREFIX = 'sluice-subscription.';

/** The consumer group of a subscription. */
export function subscriptionGroup(name: string): string {
  return `${SUBSCRIPTION_GROUP_PREFIX}${name}`;
}

export const DEFAULT_SUBSCRIPTION_CONFIG: SubscriptionConfig = {
  batchSize: 100,
  maximumBatchingWindowMs: 0,
  startingPosition: 'LATEST',
  bisectBatchOnFunctionError: false,
  functionResponseTypes: [],
  maximumRetryAttempts: -1,
  maximumRecordAgeMs: -1,
  parallelizationFactor: 1,
  enabled: true,
};

export const MAX_SUBSCRIPTION_NAME_LENGTH = 249;
const MIN_SECRET_LENGTH = 16;
const MAX_SECRET_LENGTH = 256;

/** Integer bounds of the numeric options; -1 is allowed only where it means "forever". */
const INTEGER_OPTIONS = {
  batchSize: { min: 1, max: 10_000, forever: false },
  maximumBatchingWindowMs: { min: 0, max: 300_000, forever: false },
  maximumRetryAttempts: { min: 0, max: 10_000, forever: true },
  maximumRecordAgeMs: { min: 60_000, max: 604_800_000, forever: true },
  parallelizationFactor: { min: 1, max: 10, forever: false },
} as const;

const CONFIG_KEYS = [...Object.keys(DEFAULT_SUBSCRIPTION_CONFIG), 'startingPositionTimestamp', 'onFailure'];
const INPUT_KEYS = new Set(['name', 'topic', 'target', 'signingSecret', ...CONFIG_KEYS]);
const STARTING_POSITIONS: readonly StartingPosition[] = ['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'];

const NAME_PATTERN = /^[a-zA-Z0-9._-]+$/;
// Lambda's FunctionName: a name, a partial ARN (account:function:name) or a full ARN, with an optional version or alias.
const FUNCTION_PATTERN = /^(arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:function:|\d{12}:function:)?[a-zA-Z0-9_-]{1,140}(:(\$LATEST|[a-zA-Z0-9_-]+))?$/;
const SQS_ARN = /^arn:aws[a-zA-Z-]*:sqs:[a-z0-9-]+:\d{12}:[a-zA-Z0-9_-]{1,80}(\.fifo)?$/;
const SNS_ARN = /^arn:aws[a-zA-Z-]*:sns:[a-z0-9-]+:\d{12}:[a-zA-Z0-9_-]{1,256}(\.fifo)?$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const invalidRequest = (message: string) => new SluiceError('INVALID_REQUEST', message);
const invalidConfig = (message: string) => new SluiceError('INVALID_CONFIG', message);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** INVALID_REQUEST unless `name` is a valid subscription name (a topic's naming rules). */
export function validateSubscriptionName(name: unknown): string {
  if (typeof name !== 'string') throw invalidRequest(`subscription name must be a string, got ${JSON.stringify(name) ?? 'nothing'}`);
  if (name.length < 1 || name.length > MAX_SUBSCRIPTION_NAME_LENGTH) {
    throw invalidRequest(`subscription name must be 1 to ${MAX_SUBSCRIPTION_NAME_LENGTH} characters, got ${name.length}`);
  }
  if (name === '.' || name === '..' || !NAME_PATTERN.test(name)) {
    throw invalidRequest(`subscription name '${name}' is illegal: use only ASCII letters, digits, '.', '_' and '-' (not '.' or '..' alone)`);
  }
  return name;
}

function topicName(value: unknown, field: string, error: (m: string) => SluiceError): string {
  if (typeof value !== 'string' || value.length < 1 || value.length > 249 || value === '.' || value === '..' || !NAME_PATTERN.test(value)) {
    throw error(`${field} must be a topic name (1 to 249 of ASCII letters, digits, '.', '_' and '-'), got ${JSON.stringify(value) ?? 'nothing'}`);
  }
  return value;
}

/** Validates a target: a Lambda function (name or ARN) or an https:// URL (http:// only on a loopback host). */
export function resolveTarget(value: unknown): SubscriptionTarget {
  if (!isRecord(value)) throw invalidRequest(`target must be {"type":"lambda","functionArn":…} or {"type":"https","url":…}, got ${JSON.stringify(value) ?? 'nothing'}`);
  if (value.type === 'lambda') {
    const extra = Object.keys(value).find((k) => k !== 'type' && k !== 'functionArn');
    if (extra) throw invalidRequest(`target: unknown field '${extra}' for a lambda target (it takes functionArn)`);
    const fn = value.functionArn;
    if (typeof fn !== 'string' || !FUNCTION_PATTERN.test(fn)) {
      throw invalidRequest(`target.functionArn must be a Lambda function name or ARN (optionally with a version or alias), got ${JSON.stringify(fn) ?? 'nothing'}`);
    }
    return { type: 'lambda', functionArn: fn };
  }
  if (value.type === 'https') {
    const extra = Object.keys(value).find((k) => k !== 'type' && k !== 'url');
    if (extra) throw invalidRequest(`target: unknown field '${extra}' for an https target (it takes url)`);
    const raw = value.url;
    let url: URL;
    try {
      url = new URL(String(raw));
    } catch {
      throw invalidRequest(`target.url must be an absolute URL, got ${JSON.stringify(raw) ?? 'nothing'}`);
    }
    if (typeof raw !== 'string' || !(url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)))) {
      throw invalidRequest(`target.url must be https:// (http:// only for localhost, 127.0.0.1 or [::1]), got ${JSON.stringify(raw)}`);
    }
    if (url.username || url.password) throw invalidRequest('target.url must not carry credentials: requests are signed with the subscription\'s secret');
    return { type: 'https', url: raw };
  }
  throw invalidRequest(`target.type must be 'lambda' or 'https', got ${JSON.stringify(value.type) ?? 'nothing'}`);
}

/** Validates an onFailure destination: an SQS queue ARN, an SNS topic ARN or a Sluice topic. */
export function resolveOnFailure(value: unknown): OnFailureDestination {
  const shape = `onFailure must be {"type":"sqs","queueArn":…}, {"type":"sns","topicArn":…} or {"type":"topic","topic":…}`;
  if (!isRecord(value)) throw invalidConfig(`${shape}, got ${JSON.stringify(value)}`);
  const only = (field: string) => {
    const extra = Object.keys(value).find((k) => k !== 'type' && k !== field);
    if (extra) throw invalidConfig(`onFailure: unknown field '${extra}' for type '${String(value.type)}' (it takes ${field})`);
  };
  switch (value.type) {
    case 'sqs':
      only('queueArn');
      if (typeof value.queueArn !== 'string' || !SQS_ARN.test(value.queueArn)) throw invalidConfig(`onFailure.queueArn must be an SQS queue ARN, got ${JSON.stringify(value.queueArn) ?? 'nothing'}`);
      return { type: 'sqs', queueArn: value.queueArn };
    case 'sns':
      only('topicArn');
      if (typeof value.topicArn !== 'string' || !SNS_ARN.test(value.topicArn)) throw invalidConfig(`onFailure.topicArn must be an SNS topic ARN, got ${JSON.stringify(value.topicArn) ?? 'nothing'}`);
      return { type: 'sns', topicArn: value.topicArn };
    case 'topic':
      only('topic');
      return { type: 'topic', topic: topicName(value.topic, 'onFailure.topic', invalidConfig) };
    default:
      throw invalidConfig(`${shape}, got type ${JSON.stringify(value.type) ?? 'nothing'}`);
  }
}

function integerOption(key: keyof typeof INTEGER_OPTIONS, raw: unknown): number {
  const { min, max, forever } = INTEGER_OPTIONS[key];
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && ((raw >= min && raw <= max) || (forever && raw === -1))) return raw;
  throw invalidConfig(`${key} must be an integer from ${min} to ${max}${forever ? ', or -1 (forever)' : ''}, got ${JSON.stringify(raw)}`);
}

function booleanOption(key: string, raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  throw invalidConfig(`${key} must be true or false, got ${JSON.stringify(raw)}`);
}

/**
 * Validates the options of a subscription over the defaults. Unknown keys are INVALID_CONFIG
 * naming the supported ones. Used for creation and for stored items alike.
 */
export function resolveSubscriptionConfig(input: Readonly<Record<string, unknown>>): SubscriptionConfig {
  const config: Record<string, unknown> = { ...DEFAULT_SUBSCRIPTION_CONFIG };
  for (const [key, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    switch (key) {
      case 'batchSize':
      case 'maximumBatchingWindowMs':
      case 'maximumRetryAttempts':
      case 'maximumRecordAgeMs':
      case 'parallelizationFactor':
        config[key] = integerOption(key, raw);
        break;
      case 'bisectBatchOnFunctionError':
      case 'enabled':
        config[key] = booleanOption(key, raw);
        break;
      case 'startingPosition':
        if (typeof raw !== 'string' || !STARTING_POSITIONS.includes(raw as StartingPosition)) {
          throw invalidConfig(`startingPosition must be one of ${STARTING_POSITIONS.join(', ')}, got ${JSON.stringify(raw)}`);
        }
        config[key] = raw;
        break;
      case 'startingPositionTimestamp':
        if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0) {
          throw invalidConfig(`startingPositionTimestamp must be a time in ms since the epoch (a non-negative integer), got ${JSON.stringify(raw)}`);
        }
        config[key] = raw;
        break;
      case 'functionResponseTypes':
        if (!Array.isArray(raw) || !raw.every((t) => t === REPORT_BATCH_ITEM_FAILURES)) {
          throw invalidConfig(`functionResponseTypes must be [] or ['${REPORT_BATCH_ITEM_FAILURES}'], got ${JSON.stringify(raw)}`);
        }
        config[key] = raw.length > 0 ? [REPORT_BATCH_ITEM_FAILURES] : [];
        break;
      case 'onFailure':
        config[key] = resolveOnFailure(raw);
        break;
      default:
        throw invalidConfig(`unknown subscription option '${key}'; supported: ${CONFIG_KEYS.join(', ')}`);
    }
  }
  if (config.startingPosition === 'AT_TIMESTAMP' && config.startingPositionTimestamp === undefined) {
    throw invalidConfig('startingPosition AT_TIMESTAMP needs startingPositionTimestamp (ms since the epoch)');
  }
  if (config.startingPosition !== 'AT_TIMESTAMP' && config.startingPositionTimestamp !== undefined) {
    throw invalidConfig(`startingPositionTimestamp is only for startingPosition AT_TIMESTAMP, not ${String(config.startingPosition)}`);
  }
  return config as unknown as SubscriptionConfig;
}

/** Validates a creation request (a JSON body, CLI flags, CDK props) without writing anything. */
export function resolveSubscriptionInput(input: unknown): ResolvedSubscriptionInput {
  if (!isRecord(input)) throw invalidRequest(`a subscription must be an object with name, topic and target, got ${JSON.stringify(input) ?? 'nothing'}`);
  const unknown = Object.keys(input).find((k) => !INPUT_KEYS.has(k));
  if (unknown !== undefined) {
    throw invalidConfig(`unknown subscription option '${unknown}'; supported: name, topic, target, signingSecret, ${CONFIG_KEYS.join(', ')}`);
  }
  const name = validateSubscriptionName(input.name);
  const topic = topicName(input.topic, 'topic', invalidRequest);
  const target = resolveTarget(input.target);
  const { name: _n, topic: _t, target: _g, signingSecret, ...options } = input;
  const config = resolveSubscriptionConfig(options);
  if (config.onFailure?.type === 'topic' && config.onFailure.topic === topic) {
    throw invalidConfig(`onFailure.topic must not be the subscribed topic '${topic}': failures would be delivered again`);
  }
  if (signingSecret !== undefined) {
    if (target.type !== 'https') throw invalidRequest('signingSecret is only for https targets (Lambda invocations are authorized by IAM)');
    if (typeof signingSecret !== 'string' || signingSecret.length < MIN_SECRET_LENGTH || signingSecret.length > MAX_SECRET_LENGTH) {
      throw invalidRequest(`signingSecret must be a string of ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters`);
    }
  }
  return { ...config, name, topic, target, ...(signingSecret !== undefined ? { signingSecret: signingSecret as string } : {}) };
}
