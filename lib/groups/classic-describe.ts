// Kafka's DescribeGroups and ListGroups over every group, Kafka and Sluice-native alike: "groups
// made over HTTP and over Kafka are the same groups". A Sluice-native group is presented as the
// consumer group it is: protocol type `consumer`, its assignor as the protocol (`sticky` as
// Kafka's `cooperative-sticky`, which it implements), and each member's topics and partitions as
// ConsumerProtocol subscription and assignment bytes (version 0), which Kafka's tools decode.
// As Kafka's coordinator does, a Kafka group's member metadata and assignment bytes are given only
// while it is Stable (before, the leader's assignment is not known); a Sluice-native group's
// always, its assignment being the coordinator's own. A group that does not exist is Dead.
import type { SluiceContext } from '../context.js';
import { classicMembers, metadataFor } from './classic-state.js';
import { CONSUMER_PROTOCOL_TYPE, encodeAssignment, encodeSubscription } from './consumer-protocol.js';
import { listGroupStates } from './describe.js';
import { groupStateName, type GroupState } from './group-state.js';
import { loadGroup } from './session-expiry.js';

export interface KafkaMemberDescription {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly metadata: Buffer;
  readonly assignment: Buffer;
}

export interface KafkaGroupDescription {
  readonly group: string;
  /** Kafka's state names, `Dead` for a group that does not exist. */
  readonly state: string;
  readonly protocolType: string;
  /** The chosen protocol (assignor); '' while none is. */
  readonly protocol: string;
  readonly members: readonly KafkaMemberDescription[];
}

export interface KafkaGroupListing {
  readonly group: string;
  readonly protocolType: string;
  readonly state: string;
}

const nativeProtocol = (state: GroupState) => (state.assignor === 'sticky' ? 'cooperative-sticky' : (state.assignor ?? ''));

export function kafkaDescription(state: GroupState): KafkaGroupDescription {
  const name = groupStateName(state);
  const stable = name === 'Stable';
  if (state.classic) {
    const classic = state.classic;
    return {
      group: state.group,
      state: name,
      protocolType: classic.protocolType,
      protocol: classic.protocol ?? '',
      members: classicMembers(state)
        .sort(([, a], [, b]) => a.joinedAt - b.joinedAt)
        .map(([memberId, m]) => ({
          memberId,
          groupInstanceId: m.classic.groupInstanceId ?? null,
          clientId: m.clientId,
          clientHost: m.classic.clientHost,
          metadata: stable ? Buffer.from(metadataFor(m.classic, classic.protocol), 'base64') : Buffer.alloc(0),
          assignment: stable ? Buffer.from(m.classic.memberAssignment, 'base64') : Buffer.alloc(0),
        })),
    };
  }
  return {
    group: state.group,
    state: name,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    protocol: Object.keys(state.members).length > 0 ? nativeProtocol(state) : '',
    members: Object.keys(state.members)
      .sort()
      .map((memberId) => {
        const m = state.members[memberId];
        return {
          memberId,
          groupInstanceId: null,
          clientId: m.clientId,
          clientHost: '',
          metadata: encodeSubscription(m.topics),
          assignment: encodeAssignment(state.assignment[memberId] ?? {}),
        };
      }),
  };
}

export async function describeKafkaGroup(ctx: SluiceContext, group: string): Promise<KafkaGroupDescription> {
  const state = await loadGroup(ctx, group);
  if (!state) return { group, state: 'Dead', protocolType: '', protocol: '', members: [] };
  return kafkaDescription(state);
}

export async function listKafkaGroups(ctx: SluiceContext): Promise<KafkaGroupListing[]> {
  return (await listGroupStates(ctx)).map(({ stored, state }) => ({
    group: stored.group,
    protocolType: stored.classic?.protocolType ?? CONSUMER_PROTOCOL_TYPE,
    state,
  }));
}
