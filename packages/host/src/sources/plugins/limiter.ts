/**
 * At most `slots` tasks running at once; the others wait their turn in arrival order. Loading a
 * hundred plugins at once would otherwise start a hundred builds (each holding its files and AST)
 * and a hundred describe isolates (each holding zod and the SDK) at the same moment.
 */
export class Limiter {
  readonly #slots: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(slots: number) {
    this.#slots = Math.max(1, slots);
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  /** Runs `task` once a slot is free; the slot is given back however the task ends. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#slots) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running += 1;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next task: `running` never drops and rises again between.
      if (next === undefined) this.#running -= 1;
      else next();
    }
  }
}
