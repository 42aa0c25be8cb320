// Which IAM principals may use the gateway, beyond proving who they are. An entry is
//   - an account id (`123456789012`): every principal of that account;
//   - an IAM role ARN (`arn:aws:iam::123456789012:role/path/Writer`): every session of the role
//     (STS names them `arn:aws:sts::123456789012:assumed-role/Writer/<session>`, without the path);
//   - any other ARN (an IAM user, one assumed-role session, the root): that principal exactly.
// An empty list admits every principal STS vouches for.
import type { CallerIdentity } from './sts-caller-identity.js';

export type PrincipalAllowList = readonly string[];

const ACCOUNT = /^\d{12}$/;
const ROLE_ARN = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(?:[\x21-\x7E]*\/)?([\w+=,.@-]+)$/;
const ARN = /^arn:aws[a-z-]*:(iam|sts)::\d{12}:[\x21-\x7E]+$/;

/** Throws on an entry that is neither an account id nor an IAM/STS ARN (a typo must not admit or lock out silently). */
export function parsePrincipalAllowList(entries: readonly string[]): PrincipalAllowList {
  const list = entries.map((e) => e.trim()).filter((e) => e !== '');
  for (const entry of list) {
    if (!ACCOUNT.test(entry) && !ARN.test(entry)) {
      throw new Error(`allowed principal '${entry}' is neither a 12-digit account id nor an IAM or STS ARN`);
    }
  }
  return list;
}

export function principalAllowed(identity: CallerIdentity, allowList: PrincipalAllowList): boolean {
  if (allowList.length === 0) return true;
  return allowList.some((entry) => {
    if (ACCOUNT.test(entry)) return entry === identity.account;
    if (entry === identity.arn) return true;
    const role = ROLE_ARN.exec(entry);
    return role !== null && identity.arn.startsWith(`arn:${role[1]}:sts::${role[2]}:assumed-role/${role[3]}/`);
  });
}
