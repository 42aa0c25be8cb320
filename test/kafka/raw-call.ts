// One request over a fresh raw connection to the gateway, its response decoded with our codec:
// for versions kafkajs does not send (flexible ones, IncrementalAlterConfigs, topic ids).
import { expect } from 'vitest';
import { ByteReader } from '../../lib/kafka/protocol/byte-reader.js';
import { decodeMessage } from '../../lib/kafka/protocol/codec.js';
import { responseHeaderVersion } from '../../lib/kafka/protocol/headers.js';
import { API_SCHEMAS } from '../../lib/kafka/protocol/messages.js';
import { RawClient, requestFrame } from './raw-client.js';

export async function rawCall<Res>(port: number, apiKey: number, version: number, request: object): Promise<Res> {
  const client = await RawClient.connect(port);
  try {
    client.write(requestFrame(apiKey, version, 11, request));
    const frame = await client.readFrame();
    if (!frame) throw new Error(`the gateway closed the connection instead of answering api ${apiKey} v${version}`);
    const reader = new ByteReader(frame);
    expect(reader.int32()).toBe(11);
    if (responseHeaderVersion(apiKey, version) >= 1) expect(reader.uvarint()).toBe(0);
    const response = decodeMessage<Res>(API_SCHEMAS.get(apiKey)!.response, version, reader);
    expect(reader.remaining).toBe(0);
    return response;
  } finally {
    client.close();
  }
}
