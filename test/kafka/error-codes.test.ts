// Every Sluice error has a Kafka code a client understands; unexpected failures are -1.
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../lib/api/errors.js';
import { SluiceError } from '../../lib/errors.js';
import { MalformedRequestError } from '../../lib/kafka/protocol/malformed-request.js';
import { KafkaError, kafkaErrorCode, kafkaErrorName } from '../../lib/kafka/protocol/error-codes.js';

describe('kafkaErrorCode', () => {
  it('maps every Sluice error code to a Kafka code, UNKNOWN_SERVER_ERROR only for itself', () => {
    for (const code of ERROR_CODES) {
      const kafka = kafkaErrorCode(new SluiceError(code, 'x'));
      expect(Object.values(KafkaError)).toContain(kafka);
      if (code === 'UNKNOWN_SERVER_ERROR') expect(kafka).toBe(-1);
      else expect(kafka, code).not.toBe(-1);
      if (code in KafkaError && !['THROTTLING'].includes(code)) expect(kafka, code).toBe(KafkaError[code as keyof typeof KafkaError]);
    }
  });

  it("uses Kafka's numbers", () => {
    expect(kafkaErrorCode(new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', 'x'))).toBe(3);
    expect(kafkaErrorCode(new SluiceError('INVALID_REQUEST', 'x'))).toBe(42);
    expect(kafkaErrorCode(new SluiceError('CORRUPT_MESSAGE', 'x'))).toBe(2);
    expect(kafkaErrorCode(new SluiceError('THROTTLING', 'x'))).toBe(7);
    expect(kafkaErrorCode(new MalformedRequestError('x'))).toBe(42);
    expect(kafkaErrorCode(new Error('boom'))).toBe(-1);
    expect(kafkaErrorCode('not even an error')).toBe(-1);
    expect(KafkaError.UNSUPPORTED_VERSION).toBe(35);
    expect(kafkaErrorName(35)).toBe('UNSUPPORTED_VERSION');
  });
});
