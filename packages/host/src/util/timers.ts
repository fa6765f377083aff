/** The most a Node timer can wait: `setTimeout` with more fires after 1 ms instead. */
export const MAX_TIMER_MS = 2_147_483_647;
