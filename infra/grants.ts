// What each `grant*()` of SluiceLog opens, as execute-api route ARNs, modelled on Kafka's ACLs:
// a producer may Write (and so Describe) its topics, a consumer may Read (and Describe) its topics
// and take part in its groups, an administrator manages topics, a group administrator manages
// groups. `topics` and `groups` scope a grant to exact names; omitted, it covers all of them.
//
// An execute-api ARN's `*` matches any characters, `/` included, so `GET /v1/topics/*` (describe
// any topic) also matches `GET /v1/topics/t/partitions/0/records` (read its records), and no IAM
// pattern can say "one path segment". Hence: a grant never gets a pattern that matches a route
// outside the grant (test/infra/grants.test.ts checks every pattern against every route). With
// exact topic names describe is `GET /v1/topics/orders`, which matches nothing else; for all topics
// describe is only in grantConsume, whose holder reads every topic anyway. grantProduce and
// grantAdmin for all topics therefore leave describe out: pass `topics` to include it.
import { functionOperations } from '../lib/api/operations.js';
import type { Operation } from '../lib/api/operation.js';
import type { SluiceFunctionName } from './routes.js';

export type GrantKind = 'produce' | 'consume' | 'admin' | 'groupAdmin';

export interface GrantOptions {
  /**
   * Topics the grant covers, by exact name.
   * @default - every topic (see the header comment for what that leaves out)
   */
  readonly topics?: readonly string[];
  /**
   * Consumer groups the grant covers, by exact name (grantConsume, grantGroupAdmin).
   * @default - every group
   */
  readonly groups?: readonly string[];
  /**
   * Also allow `lambda:InvokeFunction` on the grant's functions (grantFunctions). Direct invoke
   * bypasses API Gateway, so neither routes nor `topics`/`groups` limit it: the function trusts the
   * caller with EVERY operation it serves, on every topic and group (the groups function serves both
   * consumers and group administration). Only for trusted services.
   * @default false
   */
  readonly directInvoke?: boolean;
}

/** Operation names (lib/api/operations.ts) each grant opens. */
export const GRANT_OPERATIONS: Readonly<Record<GrantKind, readonly string[]>> = {
  // Kafka: Write on a topic implies Describe; the client reads partition count and max.message.bytes.
  produce: ['produce', 'initProducerId', 'describeTopic'],
  // Read implies Describe. Leaving a group is the same route as removing a member
  // (DELETE /v1/groups/{g}/members/{m}), as in Kafka, where LeaveGroup needs only Read on the group:
  // a consumer must be able to leave, so it can remove members of ITS groups, and no others.
  // describeTopicConfigs: an all-topics describe pattern matches it (see the header).
  consume: ['fetch', 'listOffsets', 'describeTopic', 'describeTopicConfigs', 'joinGroup', 'heartbeat', 'leaveGroup', 'commitOffsets', 'fetchOffsets'],
  // Subscriptions deliver a topic to any target, so managing them is administration (creating
  // names its topic in the body and cannot be scoped, as creating a topic cannot).
  admin: [
    'createTopic',
    'listTopics',
    'describeTopic',
    'describeTopicConfigs',
    'alterTopicConfig',
    'createPartitions',
    'deleteTopic',
    'createSubscription',
    'listSubscriptions',
    'describeSubscription',
    'deleteSubscription',
  ],
  // Reset, delete, remove any member, and look at groups: kafka-consumer-groups.sh's powers.
  groupAdmin: ['resetOffsets', 'deleteGroup', 'leaveGroup', 'describeGroup', 'listGroups', 'fetchOffsets'],
};

/** Read-only topic operations the admin function serves: they alone never open it to direct invoke. */
const TOPIC_DESCRIBES: ReadonlySet<string> = new Set(['describeTopic', 'describeTopicConfigs']);

/** Grants for which an all-topics describe pattern would match data routes (see the header). */
const DESCRIBE_NEEDS_TOPICS: ReadonlySet<GrantKind> = new Set(['produce', 'admin']);

export interface RouteArnSpec {
  readonly method: Operation['method'];
  /** The route path with parameters filled: exact names, or `*`. */
  readonly path: string;
  readonly fn: SluiceFunctionName;
}

const TOPIC_NAME = /^(?!\.{1,2}$)[a-zA-Z0-9._-]{1,249}$/;
const GROUP_NAME = /^[a-zA-Z0-9._-]{1,255}$/;

function operationsByName(): Map<string, { op: Operation; fn: SluiceFunctionName }> {
  const out = new Map<string, { op: Operation; fn: SluiceFunctionName }>();
  for (const [fn, ops] of Object.entries(functionOperations)) for (const op of ops) out.set(op.name, { op, fn: fn as SluiceFunctionName });
  return out;
}

/** The route ARN specs (method + filled path) of one grant with these options. */
export function grantRoutes(kind: GrantKind, options: GrantOptions = {}): RouteArnSpec[] {
  for (const t of options.topics ?? []) if (!TOPIC_NAME.test(t)) throw new Error(`grant topics: '${t}' is not a valid topic name`);
  // Group names go into the ARN as they appear in the request path, so only unencoded characters.
  for (const g of options.groups ?? []) if (!GROUP_NAME.test(g)) throw new Error(`grant groups: '${g}' must be 1-255 characters of [a-zA-Z0-9._-]`);
  if (options.topics?.length === 0 || options.groups?.length === 0) throw new Error('grant topics/groups: an empty list grants nothing; omit it for all');
  const byName = operationsByName();
  const specs = new Map<string, RouteArnSpec>();
  for (const name of GRANT_OPERATIONS[kind]) {
    if (name === 'describeTopic' && options.topics === undefined && DESCRIBE_NEEDS_TOPICS.has(kind)) continue;
    const entry = byName.get(name);
    if (!entry) throw new Error(`grant ${kind}: no operation named '${name}' in lib/api/operations.ts`);
    const { op, fn } = entry;
    let paths = [op.path];
    const fill = (param: string, values: readonly string[] | undefined) => {
      paths = paths.flatMap((p) => (p.includes(`{${param}}`) ? (values ?? ['*']).map((v) => p.replace(`{${param}}`, v)) : [p]));
    };
    fill('topic', options.topics);
    fill('group', options.groups);
    for (const path of paths) {
      const filled = path.replace(/\{[^}]+\}/g, '*'); // partition, memberId: any
      specs.set(`${op.method} ${filled}`, { method: op.method, path: filled, fn });
    }
  }
  return [...specs.values()];
}

/**
 * The functions directInvoke lets the grantee invoke: those serving the grant's operations, except
 * that describeTopic (and describeTopicConfigs) alone does not open the admin function — invoking it would also allow
 * creating and deleting any topic. A direct-invoke producer or consumer describes topics over HTTP,
 * or with grantAdmin({directInvoke}) as well.
 */
export function grantFunctions(kind: GrantKind): SluiceFunctionName[] {
  const byName = operationsByName();
  const names = GRANT_OPERATIONS[kind].filter((n) => kind === 'admin' || !TOPIC_DESCRIBES.has(n));
  return [...new Set(names.map((n) => byName.get(n)!.fn))];
}

/** Whether an execute-api resource pattern (`*` any characters, `?` one) matches a concrete path. */
export function arnPatternMatches(pattern: string, path: string): boolean {
  const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return regex.test(path);
}
