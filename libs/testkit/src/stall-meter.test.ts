// The stall meter counts the time this process was held up: a loop blocked for 300 ms shows as at least 280 ms held
// up, whether it is asked while the tick that reports it is still pending or after, and the count never goes down.
import { stalledMs, timed } from './stall-meter';

const block = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // held up on purpose, as a descheduled process is
  }
};
const nextTick = () => new Promise((r) => setTimeout(r, 50));

test('a blocked loop counts as held up, asked before and after the tick that reports it', async () => {
  stalledMs();
  await nextTick();
  const before = stalledMs();
  block(300);
  // Asked at once: the late tick has not run yet, and the stall under way counts.
  const during = stalledMs();
  expect(during - before).toBeGreaterThanOrEqual(280);
  await nextTick();
  // The late tick has run since: the same stall, counted once, never less.
  expect(stalledMs()).toBeGreaterThanOrEqual(during);
});

test('timed says how long and how much of it was held up', async () => {
  const t = await timed(async () => {
    await nextTick();
    block(300);
    return 'done';
  });
  expect(t.value).toBe('done');
  expect(t.ms).toBeGreaterThanOrEqual(300);
  expect(t.stalledMs).toBeGreaterThanOrEqual(280);
  // Never more than the interval (a tick's jitter below the threshold aside, and the rounding).
  expect(t.stalledMs).toBeLessThanOrEqual(t.ms + 5);
});
