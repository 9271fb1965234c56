/**
 * Resolves a millisecond from now, when the answer being given has gone out: a write started from
 * here does not hold it up. A D1 write started before the answer had gone, or on a zero timer
 * (which the runtime may run first), cost the answer about 2.5 ms in local measurements.
 */
export const afterThisTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
