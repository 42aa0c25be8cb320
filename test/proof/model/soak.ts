// How hard the proof tests push: `npm test` runs the fast profile, `npm run soak` (SLUICE_SOAK=1)
// the long one (more cases, longer sequences, minutes of load).
export const SOAK = process.env.SLUICE_SOAK === '1';

export function scale(fast: number, soak: number): number {
  return SOAK ? soak : fast;
}
