// Sluice's topic ids are 16 random bytes in base64url (lib/metadata/topics.ts, the text Kafka's
// Uuid.toString prints); the codec carries uuids in the canonical 36-character form.
import { ZERO_UUID } from './protocol/codec.js';

/** A Sluice topic id as the uuid Kafka messages carry. */
export function topicUuid(topicId: string): string {
  const bytes = Buffer.from(topicId, 'base64url');
  if (bytes.length !== 16) return ZERO_UUID;
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The Sluice topic id of a uuid from a Kafka message. */
export function topicIdOfUuid(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}
