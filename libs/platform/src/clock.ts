// Time as a dependency: every library and host reads the time from a Clock it was given, so tests set the time
// instead of sleeping through a window.

/** Milliseconds since the Unix epoch, like Date.now(). The one clock type of the tree. */
export type Clock = () => number;

/** The real time. */
export const systemClock: Clock = () => Date.now();
