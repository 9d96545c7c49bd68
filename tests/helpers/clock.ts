import type { Clock } from '../../domain/core/deps.js';

/** Business time a test sets by date (09:00 UTC): `clock.set('2026-11-01')`. */
export class TestClock implements Clock {
  private current: Date;
  constructor(date = '2026-11-02') {
    this.current = new Date(`${date}T09:00:00Z`);
  }
  now(): Date {
    return new Date(this.current);
  }
  set(date: string): void {
    this.current = new Date(`${date}T09:00:00Z`);
  }
  /** An exact instant (ISO 8601), for a boundary to the second. */
  setAt(instant: string): void {
    this.current = new Date(instant);
  }
  today(): string {
    return this.current.toISOString().slice(0, 10);
  }
}

/** Real time plus an offset the test moves, for code that also runs on the database's real time (jobs, LiveKit). */
export class OffsetClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
