// Request validation: zod schemas shared by the operations, and `parseInput`, which turns every
// schema failure into one INVALID_REQUEST naming the offending fields. Operations parse their
// whole input before touching storage, so bad input never changes stored state.
import * as z from 'zod';
import { SluiceError } from '../errors.js';

/** Largest numbers accepted anywhere: offsets and ids are JSON numbers, exact below 2^53. */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * An integer that may arrive as a JSON number (body, direct invoke) or as a decimal string
 * (path parameters and query strings over HTTP).
 */
export function intParam(min = 0, max = MAX_SAFE) {
  return z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v),
    z.int().min(min).max(max),
  );
}

/** An integer that must be a JSON number. */
export function intField(min = 0, max = MAX_SAFE) {
  return z.int().min(min).max(max);
}

/** Topic names are checked against Kafka's rules separately (INVALID_TOPIC_EXCEPTION); here only the type. */
export const topicName = z.string();

export const encoding = z.enum(['utf8', 'base64']);
export type Encoding = z.infer<typeof encoding>;

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `'${where ? `${where}.` : ''}${k}'`).join(', ');
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${keys}`;
  }
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
    return `'${where}' is required`;
  }
  const message = issue.message.replace(/^Invalid input: /, '');
  return where ? `'${where}': ${message}` : message;
}

/** Parses `input` with `schema` or throws INVALID_REQUEST listing (up to five of) the problems. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const shown = issues.slice(0, 5).map(describeIssue);
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  throw new SluiceError('INVALID_REQUEST', `invalid request: ${shown.join('; ')}${more}`, {
    fields: issues.slice(0, 20).map((i) => formatPath(i.path)),
  });
}
