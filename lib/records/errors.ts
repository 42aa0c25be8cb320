// Errors raised by the RecordBatch codec. Corruption is always thrown, never returned as data:
// a caller that catches CorruptRecordError knows the bytes it holds are not a valid batch.

/** The bytes are not a well-formed Kafka RecordBatch v2 (bad CRC, bad length, truncation, ...). */
export class CorruptRecordError extends Error {
  override readonly name = 'CorruptRecordError';
}

/**
 * The batch is well formed but uses a codec Sluice does not implement (snappy, lz4, zstd).
 * Distinct from corruption: the data may be fine, this build just cannot read it.
 */
export class UnsupportedCompressionError extends Error {
  override readonly name = 'UnsupportedCompressionError';
}

/**
 * A compressed batch inflates past the caller's limit. Distinct from corruption: the stream may be
 * valid gzip, but holding its output (a "gzip bomb": 65 KB that inflate to 64 MiB) is refused.
 * Decompression stopped at the limit, so nothing larger was ever allocated.
 */
export class DecompressedSizeError extends Error {
  override readonly name = 'DecompressedSizeError';
  constructor(
    message: string,
    /** The limit that was passed, in decompressed bytes. */
    readonly limit: number,
  ) {
    super(message);
  }
}
