// Key, value and header-value bytes travel in JSON as strings: UTF-8 text by default, or
// base64 when the request says `encoding: "base64"` (binary-safe). null stays null (a tombstone).
import { SluiceError } from '../errors.js';
import type { Encoding } from './validation.js';

// Canonical base64: whole quads, padding only at the end. Checked as a length and one character
// class, not as a repeated group: a regular expression repeating a group over a multi-megabyte
// value exhausts V8's stack.
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes of a request field; INVALID_REQUEST naming `field` when base64 is malformed. */
export function decodeBytes(text: string | null | undefined, encoding: Encoding, field: string): Buffer | null {
  if (text === null || text === undefined) return null;
  if (encoding === 'utf8') return Buffer.from(text, 'utf8');
  // Buffer.from(…, 'base64') silently skips bad characters; a corrupted payload must be refused instead.
  if (text.length % 4 !== 0 || !BASE64_CHARS.test(text)) throw new SluiceError('INVALID_REQUEST', `'${field}' is not valid base64`, { fields: [field] });
  return Buffer.from(text, 'base64');
}

/** The response string for stored bytes. */
export function encodeBytes(bytes: Buffer | Uint8Array | null | undefined, encoding: Encoding): string | null {
  if (bytes === null || bytes === undefined) return null;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding === 'base64' ? buf.toString('base64') : buf.toString('utf8');
}
