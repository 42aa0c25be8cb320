// Keys of the group items in the single table (lib/metadata/keys.ts has the layout): the group's
// `META` item and one `OFFSET#<topic>#<partition>` item per committed partition.
import { groupPk } from '../metadata/keys.js';

const GROUP_META_SK = 'META';
export const OFFSET_PREFIX = 'OFFSET#';

export const groupMetaKey = (group: string) => ({ pk: groupPk(group), sk: GROUP_META_SK });
const offsetSk = (topic: string, partition: number) => `${OFFSET_PREFIX}${topic}#${partition}`;
export const offsetKey = (group: string, topic: string, partition: number) => ({ pk: groupPk(group), sk: offsetSk(topic, partition) });
