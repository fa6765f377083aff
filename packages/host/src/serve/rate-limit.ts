/**
 * Rate limits of served calls: token buckets per principal (all its tool calls) and per
 * principal and tool (`serve.rateLimits.tools`, by name pattern), as config says. A bucket holds
 * `burst` calls (default a minute's worth) and refills at `perMinute`; a call takes one from
 * every bucket that applies, or none when one is empty, and is then refused with the time until
 * that bucket has one again. Over HTTP the refusal is a `429` with `Retry-After`; elsewhere, a
 * tool error. Buckets are per process: behind a load balancer each replica counts its own.
 */
import { matchesStarGlob } from '../core/register/policy.js';

export interface RateLimit {
  readonly perMinute: number;
  readonly burst?: number;
}

/** Config `serve.rateLimits`. */
export interface RateLimits {
  readonly principal?: RateLimit;
  readonly tools?: Readonly<Record<string, RateLimit>>;
}

/** A call the limits refused: how long until it may be tried again, and which limit. */
export interface RateRefusal {
  readonly retryAfterMs: number;
  readonly message: string;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Most buckets kept; the least recently used go first (a new one starts full). */
const MAX_BUCKETS = 10_000;

export class RateLimiter {
  readonly #limits: () => RateLimits | undefined;
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;

  constructor(limits: () => RateLimits | undefined, now: () => number = () => performance.now()) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Takes one call of `tool` by `principal` from its buckets; a refusal when one is empty. */
  take(principal: string, tool: string): RateRefusal | undefined {
    const limits = this.#limits();
    if (limits === undefined) return undefined;
    const checks: { key: string; limit: RateLimit; what: string }[] = [];
    if (limits.principal !== undefined) {
      checks.push({ key: principal, limit: limits.principal, what: 'serve.rateLimits.principal' });
    }
    for (const [pattern, limit] of Object.entries(limits.tools ?? {})) {
      if (matchesStarGlob(pattern, tool)) {
        checks.push({
          key: `${principal}\n${pattern}`,
          limit,
          what: `serve.rateLimits.tools[${JSON.stringify(pattern)}]`,
        });
      }
    }
    if (checks.length === 0) return undefined;
    const now = this.#now();
    const buckets = checks.map((check) => this.#bucket(check.key, check.limit, now));
    for (let i = 0; i < checks.length; i++) {
      const bucket = buckets[i] as Bucket;
      if (bucket.tokens >= 1) continue;
      const { limit, what } = checks[i] as (typeof checks)[number];
      const retryAfterMs = Math.ceil(((1 - bucket.tokens) * 60_000) / limit.perMinute);
      return {
        retryAfterMs,
        message: `rate limited: ${principal} may call ${what === 'serve.rateLimits.principal' ? 'tools' : `"${tool}"`} ${limit.perMinute} times a minute (${what}); retry in ${(retryAfterMs / 1000).toFixed(1)} s`,
      };
    }
    for (const bucket of buckets) bucket.tokens -= 1;
    return undefined;
  }

  #bucket(key: string, limit: RateLimit, now: number): Bucket {
    const burst = limit.burst ?? limit.perMinute;
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: burst, at: now };
      if (this.#buckets.size >= MAX_BUCKETS)
        this.#buckets.delete(this.#buckets.keys().next().value as string);
    } else {
      this.#buckets.delete(key);
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) * limit.perMinute) / 60_000);
      bucket.at = now;
    }
    this.#buckets.set(key, bucket);
    return bucket;
  }
}
