// Rotations whose answer never reached the client because PostgreSQL failed under them (a statement timeout or a
// dropped connection that may come after the commit). Remembered in Redis for a while, so that the client's
// retry after the outage, past the retry window by then, gets the pair it never received instead of counting as
// reuse and revoking a healthy family.
import { toleratedRedisFailure } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { UnansweredRotationsPort } from '../domain/ports';

/** Long enough for a client to come back after an outage that made it give up. */
const UNANSWERED_TTL_SECONDS = 900;

const key = (sid: string, presented: number) => `rotation:unanswered:${sid}:${presented}`;

/** Remembers that the rotation of `presented` in `sid` went unanswered; never throws (Redis may be down too). */
async function markRotationUnanswered(redis: Redis, sid: string, presented: number): Promise<void> {
  await redis
    .set(key(sid, presented), '1', 'EX', UNANSWERED_TTL_SECONDS)
    .catch(toleratedRedisFailure(redis, 'unanswered_rotation_mark', undefined));
}

/** Whether the rotation of `presented` in `sid` went unanswered; false when Redis cannot say. */
async function wasRotationUnanswered(redis: Redis, sid: string, presented: number): Promise<boolean> {
  const found = await redis
    .exists(key(sid, presented))
    .catch(toleratedRedisFailure(redis, 'unanswered_rotation_read', 0));
  return found === 1;
}

export function createUnansweredRotationsStore(redis: Redis): UnansweredRotationsPort {
  return {
    markRotationUnanswered: (sid, presented) => markRotationUnanswered(redis, sid, presented),
    wasRotationUnanswered: (sid, presented) => wasRotationUnanswered(redis, sid, presented),
  };
}
