// Console output shared by the CLI commands: aligned tables (kafka-consumer-groups.sh style) and
// the one-line error format `error: CODE: message` that every failure ends in.
import { isSluiceClientError } from '../client/errors.js';

/** Left-aligned columns separated by two spaces; `null`/`undefined` print as '-'. */
export function formatTable(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

export function printTable(header: readonly string[], rows: readonly (readonly unknown[])[]): void {
  process.stdout.write(`${formatTable(header, rows)}\n`);
}

/** What a user should read for any failure: the Kafka error code and the server's message, no stack. */
export function describeError(e: unknown): string {
  if (isSluiceClientError(e)) return `error: ${e.code}: ${e.message}`;
  return `error: ${e instanceof Error ? e.message : String(e)}`;
}

export function parseInteger(name: string, min = 0): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got '${value}'`);
    return n;
  };
}
