// Which storage `npm start` talks to, from the SDK's endpoint variables. Either none is set (the
// embedded emulators), or both services have one: AWS_ENDPOINT_URL for both, or each its own
// AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL_DYNAMODB. One service's endpoint alone is refused: the
// other would silently go to real AWS with the machine's real credentials, writing a laptop's
// test data into an account (or, worse, reading and deleting the account's data).

export type StorageTarget =
  | { readonly kind: 'embedded' }
  | { readonly kind: 'endpoint'; readonly s3: string; readonly dynamodb: string };

export function storageTarget(env: NodeJS.ProcessEnv): StorageTarget {
  const shared = env.AWS_ENDPOINT_URL || undefined;
  const s3 = env.AWS_ENDPOINT_URL_S3 || shared;
  const dynamodb = env.AWS_ENDPOINT_URL_DYNAMODB || shared;
  if (s3 === undefined && dynamodb === undefined) return { kind: 'embedded' };
  if (s3 === undefined || dynamodb === undefined) {
    const [set, unset] = s3 === undefined ? ['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL_S3'] : ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL_DYNAMODB'];
    throw new Error(
      `${set} is set but neither ${unset} nor AWS_ENDPOINT_URL is: the other service would go to real AWS with this machine's credentials. ` +
        `Set both (or AWS_ENDPOINT_URL for both), or neither to use the embedded emulators.`,
    );
  }
  return { kind: 'endpoint', s3, dynamodb };
}
