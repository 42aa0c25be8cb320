// Assignor lookup by the name a group stores.
import { rangeAssign } from './range.js';
import { roundRobinAssign } from './roundrobin.js';
import { stickyAssign } from './sticky.js';
import type { Assignor, AssignorName } from './types.js';

export const ASSIGNORS: Readonly<Record<AssignorName, Assignor>> = {
  range: rangeAssign,
  roundrobin: roundRobinAssign,
  sticky: stickyAssign,
};
