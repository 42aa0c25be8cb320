// Kafka's DeleteGroups: only a group without live members (NON_EMPTY_GROUP otherwise); an unknown
// group is GROUP_ID_NOT_FOUND. The META item goes first, conditional on the version read (a member
// joining meanwhile makes the delete retry and then refuse), then the committed offsets.
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { MAX_UPDATE_ATTEMPTS, deleteCommittedOffsets, deleteGroupMeta, removeGroupFromDirectory } from './group-store.js';
import { fetchCommittedOffsets } from './offsets.js';
import { loadGroup } from './session-expiry.js';

async function deleteOffsets(ctx: SluiceContext, group: string): Promise<number> {
  const offsets = await fetchCommittedOffsets(ctx, group);
  await deleteCommittedOffsets(ctx, group, offsets);
  return offsets.length;
}

export async function deleteGroup(ctx: SluiceContext, group: string): Promise<void> {
  for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
    const state = await loadGroup(ctx, group);
    if (!state) {
      // Offsets left behind by a commit racing an earlier delete still make the group deletable.
      if ((await deleteOffsets(ctx, group)) > 0) return removeGroupFromDirectory(ctx, group);
      throw new SluiceError('GROUP_ID_NOT_FOUND', `group '${group}' does not exist`);
    }
    if (Object.keys(state.members).length > 0) {
      throw new SluiceError('NON_EMPTY_GROUP', `group '${group}' has active members; they must leave or expire first`);
    }
    if (!(await deleteGroupMeta(ctx, group, state.version))) continue;
    await deleteOffsets(ctx, group);
    return removeGroupFromDirectory(ctx, group);
  }
  throw new SluiceError('REQUEST_TIMED_OUT', `group '${group}' is too contended to delete; retry`);
}
