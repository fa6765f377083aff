import { existsSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { openNetGate } from '../../capabilities/index.js';
import { processSandboxOf } from '../../config/process-sandbox.js';
import {
  type JailSpec,
  jailLaunch,
  jailPlacement,
  type NetGate,
  processJailOf,
  serverView,
  spawnJailed,
  whichCommand,
} from '../../jail/index.js';
import { fsErrorsIn, type JailRefusal, recordRefusals, refusalText } from '../../jail/refusals.js';
import { grantPath, isInside } from '../../util/paths.js';
import { ControlGuard, type ControlPaths } from '../../workspace/control.js';
import { JailedStdioTransport } from './jailed-transport.js';
import type { ChannelPlace, McpServerJail, StdioServerConfig } from './types.js';

/** Refusals a server keeps in memory (the record under `.toolhost/` keeps more). */
const KEPT = 20;

/** Where a stdio server runs: in its jail (with its grants), unjailed and why, or refused. */
export class ServerJail {
  readonly state: McpServerJail;
  readonly #name: string;
  readonly #config: StdioServerConfig;
  readonly #root: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #refusals: JailRefusal[] = [];
  #count = 0;
  #view: JailSpec | undefined;
  readonly #controlPaths: ControlPaths;

  constructor(name: string, config: StdioServerConfig, place: ChannelPlace) {
    const { root, jail: mode, env } = place;
    this.#name = name;
    this.#config = config;
    this.#root = root;
    this.#env = env;
    this.#controlPaths = place.controlPaths;
    const { jail, refusal } = processJailOf(
      processSandboxOf(config.sandbox, root),
      `mcpServers.${name}.sandbox`,
      mode,
    );
    if (refusal !== undefined) {
      throw new Error(
        `it will not run unjailed: ${refusal}; set mcpServers.${name}.sandbox to false to run it unjailed on purpose, or sandbox.jail to 'auto'`,
      );
    }
    this.state = jail;
  }

  /** The key a grant of `kind` goes into. */
  key(kind: 'net' | 'read' | 'write'): string {
    return `mcpServers.${this.#name}.sandbox.${kind === 'net' ? 'net' : `fs.${kind}`}`;
  }

  /** The transport of a jailed server (undefined when it runs unjailed). */
  transport(): JailedStdioTransport | undefined {
    const state = this.state;
    if (!state.jailed) return undefined;
    const placement = jailPlacement('required');
    if (!placement.jailed) throw new Error(`it cannot be jailed: ${placement.reason}`);
    const root = realpathSync(this.#root);
    const cwd = path.resolve(this.#root, this.#config.cwd ?? '.');
    const view = serverView({
      root,
      command: this.#config.command,
      cwd: existsSync(cwd) ? realpathSync(cwd) : cwd,
      grants: state.grants,
      values: this.#config.env ?? {},
      env: this.#env,
      control: ControlGuard.forPlugins(this.#root, this.#controlPaths).jailPaths(),
      seccomp: placement.seccomp,
    });
    this.#view = view;
    this.#checkCommand(view);
    let gate: NetGate | undefined;
    return new JailedStdioTransport(
      async () => {
        if (state.grants.net.length > 0) {
          gate = await openNetGate(state.grants.net, (r) =>
            this.#add({
              kind: 'net',
              what: `${r.host}:${r.port}`,
              why: r.why,
              key: this.key('net'),
              grant: r.grant,
            }),
          );
        }
      },
      () => {
        const launch = jailLaunch(
          placement,
          view,
          [this.#config.command, ...(this.#config.args ?? [])],
          gate,
        );
        return spawnJailed(launch, ['pipe', 'pipe', 'pipe']);
      },
      async () => {
        await gate?.close();
      },
    );
  }

  /** A command the jail does not show fails at once, naming the grant that would show it. */
  #checkCommand(view: JailSpec): void {
    const found = whichCommand(this.#config.command, view.env.PATH, view.cwd);
    if (found === undefined) {
      // As an unjailed spawn says it: the jail shows the host's programs, so it is missing there too.
      throw Object.assign(new Error(`spawn ${this.#config.command} ENOENT`), { code: 'ENOENT' });
    }
    const real = realpathSync(found);
    if (this.#visible(view, found) && this.#visible(view, real)) return;
    const missing = this.#visible(view, found) ? real : found;
    const folder = path.dirname(missing);
    throw new Error(
      `its command ${JSON.stringify(this.#config.command)} is not in its jail (${grantPath(missing, this.#root)} is outside what it may read); add ${JSON.stringify(grantPath(folder, this.#root))} to ${this.key('read')} to allow it`,
    );
  }

  #visible(view: JailSpec, file: string): boolean {
    const binds = [
      ...view.readOnly,
      ...(view.readWrite ?? []),
      ...(view.readOnlyOver ?? []),
      ...(view.symlinks ?? []).map((link) => ({ path: link.path })),
    ];
    return binds.some((bind) => isInside(bind.path, file)) && !(view.hide ?? []).includes(file);
  }

  /**
   * Reads a text the server wrote (its stderr, a tool's result) for paths it failed to reach that
   * exist outside its view: each is a refusal, naming the grant. Returns the new sentences.
   */
  judge(text: string): string[] {
    const view = this.#view;
    if (view === undefined) return [];
    const before = this.#count;
    for (const error of fsErrorsIn(text)) {
      if (!path.isAbsolute(error.path)) continue;
      const file = path.normalize(error.path);
      if ((view.hide ?? []).includes(file)) {
        this.#add({
          kind: 'read',
          what: grantPath(file, this.#root),
          why: 'hidden from every server',
          key: undefined,
          grant: undefined,
        });
      } else if (!this.#visible(view, file) && existsSync(file)) {
        const shown = grantPath(file, this.#root);
        this.#add({
          kind: 'read',
          what: shown,
          why: 'outside what it may read',
          key: this.key('read'),
          grant: shown,
        });
      } else if (error.readOnly && this.#visible(view, file)) {
        const shown = grantPath(file, this.#root);
        this.#add({
          kind: 'write',
          what: shown,
          why: 'read-only in its jail',
          key: this.key('write'),
          grant: shown,
        });
      }
    }
    return this.since(before);
  }

  /** The sentences of the refusals after mark `from` (see {@link mark}). */
  since(from: number): string[] {
    const fresh = this.#count - from;
    return fresh <= 0 ? [] : this.#refusals.slice(-Math.min(fresh, KEPT)).map(refusalText);
  }

  /** A mark to read later refusals from. */
  mark(): number {
    return this.#count;
  }

  /** The refusals kept, oldest first. */
  recent(): readonly JailRefusal[] {
    return this.#refusals;
  }

  #add(refusal: Omit<JailRefusal, 'tool' | 'at'>): void {
    const full: JailRefusal = { tool: `mcp:${this.#name}`, ...refusal, at: Date.now() };
    const same = this.#refusals.findIndex((r) => r.kind === full.kind && r.what === full.what);
    if (same >= 0) this.#refusals.splice(same, 1);
    this.#refusals.push(full);
    if (this.#refusals.length > KEPT) this.#refusals.shift();
    this.#count++;
    recordRefusals(this.#root, [full]);
  }
}
