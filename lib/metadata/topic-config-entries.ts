// A topic's configs as Kafka's DescribeConfigs lists them: every key with its value as a string,
// where the value comes from (a value set on the topic, or the default), and its synonyms: the
// topic's own setting first, then the broker-wide default it falls back to, under the broker
// config name Kafka gives it (`retention.ms` falls back to `log.retention.ms`). The topic item
// stores the resolved config (topics.ts), so a value equal to the default is reported as the default.
import { DEFAULT_TOPIC_CONFIG, type TopicConfig } from './topics.js';

/** Kafka's ConfigEntry.ConfigSource names (kafka-configs.sh --describe prints them). */
export type ConfigSource = 'DYNAMIC_TOPIC_CONFIG' | 'DEFAULT_CONFIG';

export interface ConfigSynonym {
  readonly name: string;
  readonly value: string;
  readonly source: ConfigSource;
}

export interface TopicConfigEntry {
  readonly name: string;
  readonly value: string;
  readonly source: ConfigSource;
  readonly isDefault: boolean;
  /** Every topic config Sluice keeps can be altered. */
  readonly readOnly: false;
  /** No topic config is a secret. */
  readonly sensitive: false;
  readonly synonyms: readonly ConfigSynonym[];
}

/** The broker config each topic config falls back to in Kafka (LogConfig's synonyms). */
export const BROKER_SYNONYMS: Readonly<Record<string, string>> = {
  'retention.ms': 'log.retention.ms',
  'retention.bytes': 'log.retention.bytes',
  'segment.bytes': 'log.segment.bytes',
  'segment.ms': 'log.roll.ms',
  'max.message.bytes': 'message.max.bytes',
  'cleanup.policy': 'log.cleanup.policy',
  'index.interval.bytes': 'log.index.interval.bytes',
  'min.cleanable.dirty.ratio': 'log.cleaner.min.cleanable.ratio',
  'min.compaction.lag.ms': 'log.cleaner.min.compaction.lag.ms',
  'max.compaction.lag.ms': 'log.cleaner.max.compaction.lag.ms',
  'delete.retention.ms': 'log.cleaner.delete.retention.ms',
};

const defaults = DEFAULT_TOPIC_CONFIG as unknown as Readonly<Record<string, string | number>>;

/**
 * The entries of `config`, in key order, only those named in `names` when given (as Kafka, a name
 * the topic does not have is left out, not an error).
 */
export function topicConfigEntries(config: TopicConfig, names?: readonly string[] | null): TopicConfigEntry[] {
  const values = config as unknown as Readonly<Record<string, string | number>>;
  const wanted = names ? new Set(names) : undefined;
  const out: TopicConfigEntry[] = [];
  for (const name of Object.keys(values).sort()) {
    if (wanted && !wanted.has(name)) continue;
    const value = String(values[name]);
    const fallback = defaults[name] === undefined ? undefined : String(defaults[name]);
    const isDefault = fallback === value;
    const synonyms: ConfigSynonym[] = [];
    if (!isDefault) synonyms.push({ name, value, source: 'DYNAMIC_TOPIC_CONFIG' });
    if (fallback !== undefined) synonyms.push({ name: BROKER_SYNONYMS[name] ?? name, value: fallback, source: 'DEFAULT_CONFIG' });
    out.push({ name, value, source: isDefault ? 'DEFAULT_CONFIG' : 'DYNAMIC_TOPIC_CONFIG', isDefault, readOnly: false, sensitive: false, synonyms });
  }
  return out;
}

/** The broker-wide defaults, under Kafka's broker config names: what a broker resource describes. */
export function brokerDefaultEntries(names?: readonly string[] | null): ConfigSynonym[] {
  const wanted = names ? new Set(names) : undefined;
  return Object.keys(defaults)
    .filter((k) => BROKER_SYNONYMS[k] !== undefined)
    .map((k) => ({ name: BROKER_SYNONYMS[k], value: String(defaults[k]), source: 'DEFAULT_CONFIG' as const }))
    .filter((e) => !wanted || wanted.has(e.name))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}
