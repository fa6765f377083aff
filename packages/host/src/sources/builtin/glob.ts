/**
 * A small glob matcher for grep's `glob` filter, over paths: `*` (within one path segment), `**`
 * (across segments), `?` and `{a,b}`. Everything else matches itself. (Policy patterns over tool
 * names are simpler: `*` only, see `matchesStarGlob`.)
 *
 * The glob comes from the model and is matched on the host's main thread, so it must not backtrack:
 * translated to a backtracking RegExp, `{a,a}{a,a}…` against a long name took seconds per file. It is
 * compiled instead to a small automaton simulated state-set by state-set: time proportional to the
 * path's length times the glob's, whatever the glob.
 */

/** A compiled glob. */
export interface PathGlob {
  /** Whether a workspace-relative path (with `/` separators) matches. */
  matches(relPath: string): boolean;
}

/**
 * Compiles `glob`. Without a `/`, it is matched against the file name alone, so `*.ts` finds
 * TypeScript files at any depth. Throws when a `{` is not closed.
 */
export function compilePathGlob(glob: string): PathGlob {
  const automaton = new Automaton(new GlobParser(glob).parse());
  if (glob.includes('/')) return { matches: (relPath) => automaton.matches(relPath) };
  return { matches: (relPath) => automaton.matches(relPath.slice(relPath.lastIndexOf('/') + 1)) };
}

type GlobNode =
  | { readonly kind: 'char'; readonly code: number }
  /** `?`: one character other than `/`. */
  | { readonly kind: 'one' }
  /** `*`: any run of characters other than `/`. */
  | { readonly kind: 'star' }
  /** `**`: any run of characters. */
  | { readonly kind: 'globstar' }
  /** `**​/`: nothing, or any run of characters ending with `/`. */
  | { readonly kind: 'globstar-dir' }
  | { readonly kind: 'alternatives'; readonly options: readonly GlobNode[][] };

class GlobParser {
  readonly #glob: string;
  #pos = 0;

  constructor(glob: string) {
    this.#glob = glob;
  }

  parse(): GlobNode[] {
    return this.#sequence(false);
  }

  /** Items up to the end, or (inside braces) up to an unnested `,` or `}`. */
  #sequence(inBraces: boolean): GlobNode[] {
    const glob = this.#glob;
    const nodes: GlobNode[] = [];
    while (this.#pos < glob.length) {
      const char = glob.charAt(this.#pos);
      if (inBraces && (char === ',' || char === '}')) return nodes;
      if (char === '*' && glob.charAt(this.#pos + 1) === '*') {
        const dir = glob.charAt(this.#pos + 2) === '/';
        nodes.push({ kind: dir ? 'globstar-dir' : 'globstar' });
        this.#pos += dir ? 3 : 2;
      } else if (char === '*') {
        nodes.push({ kind: 'star' });
        this.#pos++;
      } else if (char === '?') {
        nodes.push({ kind: 'one' });
        this.#pos++;
      } else if (char === '{') {
        this.#pos++;
        nodes.push(this.#alternatives());
      } else {
        nodes.push({ kind: 'char', code: glob.charCodeAt(this.#pos) });
        this.#pos++;
      }
    }
    if (inBraces) throw new Error(`glob ${JSON.stringify(glob)} has an unclosed "{"`);
    return nodes;
  }

  /** After a `{`: options separated by `,`, through the closing `}`. */
  #alternatives(): GlobNode {
    const options: GlobNode[][] = [this.#sequence(true)];
    while (this.#glob.charAt(this.#pos) === ',') {
      this.#pos++;
      options.push(this.#sequence(true));
    }
    this.#pos++; // the `}` (#sequence throws when the glob ends first)
    return { kind: 'alternatives', options };
  }
}

// Instructions of the automaton. Each takes one slot in `op` and `arg`; SPLIT also one in `arg2`.
const CHAR = 0; // consume the character `arg`
const NOT_SLASH = 1; // consume any character but `/`
const ANY = 2; // consume any character
const SPLIT = 3; // continue at both `arg` and `arg2`
const JUMP = 4; // continue at `arg`
const MATCH = 5;
const SLASH = 0x2f;

/**
 * A Thompson automaton over UTF-16 code units, anchored at both ends. `matches` keeps the set of
 * instructions the path could be at, one character at a time: no state is visited twice per
 * character, so nothing is retried.
 */
class Automaton {
  readonly #op: number[] = [];
  readonly #arg: number[] = [];
  readonly #arg2: number[] = [];
  // Scratch space for `matches`, allocated once: two state lists, a work stack, and per-state marks.
  #current = new Int32Array(0);
  #next = new Int32Array(0);
  #stack = new Int32Array(0);
  #mark = new Uint32Array(0);
  #generation = 0;

  constructor(nodes: readonly GlobNode[]) {
    this.#sequence(nodes);
    this.#emit(MATCH);
    const size = this.#op.length;
    this.#current = new Int32Array(size);
    this.#next = new Int32Array(size);
    // Each state is expanded once per character and pushes at most two others.
    this.#stack = new Int32Array(2 * size + 1);
    this.#mark = new Uint32Array(size);
  }

  matches(subject: string): boolean {
    let current = this.#current;
    let next = this.#next;
    let count = this.#addClosure(current, 0, this.#nextGeneration(), 0);
    for (let i = 0; i < subject.length && count > 0; i++) {
      const char = subject.charCodeAt(i);
      const generation = this.#nextGeneration();
      let nextCount = 0;
      for (let t = 0; t < count; t++) {
        const pc = current[t] as number;
        const op = this.#op[pc];
        const advances =
          op === ANY || (op === NOT_SLASH && char !== SLASH) || (op === CHAR && char === this.#arg[pc]);
        if (advances) nextCount = this.#addClosure(next, nextCount, generation, pc + 1);
      }
      [current, next] = [next, current];
      count = nextCount;
    }
    for (let t = 0; t < count; t++) if (this.#op[current[t] as number] === MATCH) return true;
    return false;
  }

  #nextGeneration(): number {
    this.#generation++;
    if (this.#generation === 0xffffffff) {
      this.#mark.fill(0);
      this.#generation = 1;
    }
    return this.#generation;
  }

  /** Adds `start` and every state reachable from it without consuming, to `list` from `count` on. */
  #addClosure(list: Int32Array, count: number, generation: number, start: number): number {
    const stack = this.#stack;
    let depth = 0;
    stack[depth++] = start;
    while (depth > 0) {
      const pc = stack[--depth] as number;
      if (this.#mark[pc] === generation) continue;
      this.#mark[pc] = generation;
      const op = this.#op[pc];
      if (op === JUMP) {
        stack[depth++] = this.#arg[pc] as number;
      } else if (op === SPLIT) {
        stack[depth++] = this.#arg2[pc] as number;
        stack[depth++] = this.#arg[pc] as number;
      } else {
        list[count++] = pc;
      }
    }
    return count;
  }

  #emit(op: number, arg = 0, arg2 = 0): number {
    this.#op.push(op);
    this.#arg.push(arg);
    this.#arg2.push(arg2);
    return this.#op.length - 1;
  }

  #sequence(nodes: readonly GlobNode[]): void {
    for (const node of nodes) this.#node(node);
  }

  #node(node: GlobNode): void {
    switch (node.kind) {
      case 'char':
        this.#emit(CHAR, node.code);
        return;
      case 'one':
        this.#emit(NOT_SLASH);
        return;
      case 'star':
        this.#loop(NOT_SLASH);
        return;
      case 'globstar':
        this.#loop(ANY);
        return;
      case 'globstar-dir': {
        const split = this.#emit(SPLIT);
        this.#arg[split] = split + 1;
        this.#loop(ANY);
        this.#emit(CHAR, SLASH);
        this.#arg2[split] = this.#op.length;
        return;
      }
      case 'alternatives': {
        const jumps: number[] = [];
        node.options.forEach((option, index) => {
          const last = index === node.options.length - 1;
          const split = last ? -1 : this.#emit(SPLIT);
          if (split !== -1) this.#arg[split] = split + 1;
          this.#sequence(option);
          if (!last) jumps.push(this.#emit(JUMP));
          if (split !== -1) this.#arg2[split] = this.#op.length;
        });
        for (const jump of jumps) this.#arg[jump] = this.#op.length;
        return;
      }
    }
  }

  /** Zero or more characters that `consume` accepts. */
  #loop(consume: number): void {
    const split = this.#emit(SPLIT);
    this.#emit(consume);
    this.#emit(JUMP, split);
    this.#arg[split] = split + 1;
    this.#arg2[split] = this.#op.length;
  }
}
