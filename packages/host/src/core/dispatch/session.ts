import { randomBytes, randomUUID } from 'node:crypto';
import type { HiddenToolPlanEntry, ToolDescriptor, ToolPlan } from '@toolhost/plugin-sdk';
import type { Disposer, Principal, RegisteredTool, SessionBinding, ToolHooks } from '../../types.js';
import { AsyncMutex } from '../../util/lock.js';
import { planRegistry } from '../filter/plan.js';
import { formatOwner } from '../refs.js';
import { isCodeModeTool } from '../register/code-mode.js';
import { isAllowedTool, subjectOf } from '../register/policy.js';
import { HookSet } from '../wrap/hooks.js';
import { errorResult } from '../wrap/results.js';
import { type CallOutcome, callTool, type WrapperContext } from '../wrap/wrapper.js';
import { ApprovalQueue, SessionApprovals } from './approvals.js';
import { channelSnapshots } from './channel.js';
import {
  callableDescriptorsOf,
  codeModeDescriptors,
  inCodeMode,
  sessionAvailability,
} from './code-mode-view.js';
import { parseCallToolInput } from './deferral.js';
import { narrowed, principalSnapshots } from './principal-view.js';
import { overlayDecision } from './principals.js';
import { systemPromptSection } from './prompt-section.js';
import type { ActivationResult } from './session-catalog.js';
import { SessionDispatch } from './session-dispatch.js';
import type { CallOptions, HostSnapshot, SessionOptions, ToolCheck, ToolRefusal } from './session-types.js';
import { runSkill, type SkillCatalog, type SkillSession, skillsPromptSection } from './skills.js';
import { executeToolSpan } from './telemetry.js';

export type {
  ActivationResult,
  DeferralModes,
  DeferredToolShapes,
  ToolShapes,
  ToolsOptions,
} from './session-catalog.js';
export type {
  CallOptions,
  CodeModeSettings,
  HostSnapshot,
  SessionOptions,
  ToolCheck,
  ToolRefusal,
} from './session-types.js';

const NO_SKILLS: SkillCatalog = new Map();

/** Ids for calls made without one: unique in this process, and cheaper than a UUID per call. */
const callIdPrefix = `toolu_host_${randomBytes(6).toString('hex')}_`;
let callIdCounter = 0;
function nextCallId(): string {
  callIdCounter += 1;
  return callIdPrefix + callIdCounter.toString(36);
}

/**
 * What a session works out once per host snapshot and hook list rather than once per call: the
 * wrapper context and the tools found callable.
 */
interface CallState {
  readonly snapshot: HostSnapshot;
  readonly sessionHooks: readonly ToolHooks[];
  readonly wrapper: WrapperContext;
  /** Tools that passed every check (policy, plan, active set), bound to this session; refusals are not kept. */
  readonly callable: Map<string, RegisteredTool>;
}

const CALLABLE: ToolCheck = Object.freeze({ ok: true });

function hiddenMessage(name: string, entry: HiddenToolPlanEntry): string {
  const reasons = entry.diagnostics.map((d) => `${d.reason}: ${d.message}`).join('; ');
  return `Tool "${name}" is not available: ${reasons}`;
}

/**
 * One conversation's view of the tools: which are active, the hooks that run for it, and the
 * write lock those hooks run under. Reads the host's current state at each call, so a call
 * finishes on the Map it started with while the next call sees a rebuilt one. Its providers'
 * dispatch (`dispatch`, `dispatchOpenAI`…) comes from `SessionDispatch`, its deferral
 * methods (`tools`, `search`, `load`…) from `SessionDeferral`.
 */
export class Session extends SessionDispatch {
  readonly id: string;
  /** Who the session serves, when it serves someone the host authenticated. */
  readonly principal: Principal | undefined;
  readonly #snapshot: () => HostSnapshot;
  readonly #hooks = new HookSet();
  readonly #lock = new AsyncMutex();
  readonly #context: Readonly<Record<string, unknown>>;
  #active: ReadonlySet<string> | undefined;
  #planCache: { snapshot: HostSnapshot; plan: ToolPlan } | undefined;
  #callState: CallState | undefined;
  readonly #codeModeOption: boolean | undefined;
  readonly #approvals: SessionApprovals;
  /** What the Map's tools that bind to their session get of this one (`RegisteredTool.bindToSession`). */
  readonly #binding: SessionBinding;
  /** What a skill a person invokes runs through (see core/dispatch/skills.ts). */
  readonly #skillSession: SkillSession;

  /** `queue`: the host's approval queue (`host.approvals`); a session made alone has its own. */
  constructor(snapshot: () => HostSnapshot, options: SessionOptions = {}, queue = new ApprovalQueue()) {
    super(options.searchLoads ?? true);
    this.id = options.id ?? randomUUID();
    this.principal = options.principal;
    this.#approvals = new SessionApprovals(this.id, options.onApproval, queue, options.principal?.id);
    const channel = options.channel === undefined ? undefined : channelSnapshots(snapshot, options);
    const base = channel?.snapshot ?? snapshot;
    this.#snapshot = options.principal === undefined ? base : principalSnapshots(base, options.principal);
    this.#context = channel?.context ?? options.context ?? {};
    this.#codeModeOption = options.codeMode;
    this.#binding = {
      id: this.id,
      callableDescriptors: () => this.callableDescriptors(),
      check: (name) => this.check(name),
      call: (name, input, options) => this.call(name, input, undefined, options),
    };
    this.#skillSession = {
      skills: () => this.#snapshot().skills ?? NO_SKILLS,
      check: (name) => this.check(name),
      call: (name, input, options) => this.call(name, input, undefined, options),
    };
    if (options.activeTools !== undefined) this.setActiveToolsByName(options.activeTools);
  }

  protected catalogSnapshot(): HostSnapshot {
    return this.#snapshot();
  }

  protected activeSet(): ReadonlySet<string> | undefined {
    return this.#active;
  }

  /** Who owns tool `name` in the current Map (`plugin:weather`, `mcp:github`), for records. */
  ownerOf(name: string): string | undefined {
    const tool = this.#snapshot().registry.tools.get(name);
    return tool === undefined ? undefined : formatOwner(tool.descriptor.owner);
  }

  /** The MCP clients whose answers count as approvals here: the principal's overlay, else `approvals.mcpClients`. */
  approvalClients(): readonly string[] {
    return this.#snapshot().approvals?.mcpClients ?? [];
  }

  /** Registers hooks for this session only; they run after the host's hooks. */
  addHooks(hooks: ToolHooks): Disposer {
    return this.#hooks.add(hooks);
  }

  /** The plan as this session sees it (host facts plus the session's context and code-mode switch). */
  plan(): ToolPlan {
    const snapshot = this.#snapshot();
    if (this.#planCache?.snapshot !== snapshot) {
      const facts = sessionAvailability(snapshot, this.#context, inCodeMode(this.#codeModeOption, snapshot));
      const plan = planRegistry(snapshot.registry, facts);
      this.#planCache = { snapshot, plan: snapshot.overlay === undefined ? plan : narrowed(plan, snapshot) };
    }
    return this.#planCache.plan;
  }

  /**
   * Activates the names that exist in the Map and skips the others without failing. A name that
   * exists but is hidden now stays active and shows up once it becomes visible.
   */
  setActiveToolsByName(names: readonly string[]): ActivationResult {
    const tools = this.#snapshot().registry.tools;
    const active: string[] = [];
    const skipped: string[] = [];
    for (const name of new Set(names)) (tools.has(name) ? active : skipped).push(name);
    this.#active = new Set(active);
    this.#callState = undefined;
    return { active, skipped };
  }

  /** Back to the default: every visible tool is active. */
  activateAll(): void {
    this.#active = undefined;
    this.#callState = undefined;
  }

  /**
   * Descriptors of the tools handed to the model: in code mode `run_code` and `describe_tools`,
   * else {@link callableDescriptors}.
   */
  descriptors(): readonly ToolDescriptor[] {
    const snapshot = this.#snapshot();
    if (!inCodeMode(this.#codeModeOption, snapshot)) return this.callableDescriptors();
    return codeModeDescriptors(this.plan(), snapshot.registry.tools);
  }

  /**
   * Descriptors of the tools the session may call now: active ∩ visible, in plan order, without
   * code mode's own (they are what a code-mode session hands the model, see {@link descriptors}).
   */
  callableDescriptors(): readonly ToolDescriptor[] {
    return callableDescriptorsOf(this.plan(), this.#snapshot().registry.tools, this.#active);
  }

  /**
   * What the model cannot learn from the tool list itself (prompt-section.ts): the tools of this
   * session that cannot be called now for a reason the user can fix or that will pass, then the
   * skills the model may use here (core/dispatch/skills.ts). An empty string when there is
   * nothing to say, so it can be appended to any system prompt.
   */
  systemPromptSection(): string {
    const skills = skillsPromptSection(this.#snapshot().skills ?? NO_SKILLS, (tool) => this.check(tool).ok);
    return systemPromptSection(this.plan(), this.#active, skills);
  }

  /**
   * Whether `name` may be called in this session now, and if not, why: `unknown`, `denied`
   * (policy), `hidden` (availability, a failed or disabled plugin, a server that is down) or
   * `inactive`. The message is written for the model.
   */
  check(name: string): ToolCheck {
    const snapshot = this.#snapshot();
    if (this.catalog.isSearch(name, snapshot) || this.catalog.isCallTool(name, snapshot)) return CALLABLE;
    return this.#callable(name, this.#stateFor(snapshot)).check;
  }

  /** `name` resolved against `state`: a tool found callable is kept there until the state changes. */
  #callable(name: string, state: CallState): { check: ToolCheck; tool?: RegisteredTool } {
    const known = state.callable.get(name);
    if (known !== undefined) return { check: CALLABLE, tool: known };
    const resolved = this.#resolve(name, state.snapshot);
    if (resolved.check.ok && resolved.tool !== undefined) state.callable.set(name, resolved.tool);
    return resolved;
  }

  #resolve(name: string, snapshot: HostSnapshot): { check: ToolCheck; tool?: RegisteredTool } {
    const refuse = (refusal: ToolRefusal, message: string) => ({
      check: { ok: false as const, refusal, message },
    });
    const tool = snapshot.registry.tools.get(name);
    if (tool === undefined) {
      // Kept out of the Map (denied by policy, its plugin failed or is disabled): say why.
      const excluded = snapshot.registry.excluded.find((e) => e.descriptor.name === name);
      if (excluded !== undefined) {
        const denied = excluded.diagnostics.some((d) => d.reason === 'policy-denied');
        return refuse(denied ? 'denied' : 'hidden', hiddenMessage(name, excluded));
      }
      const known = this.descriptors().map((d) => d.name);
      const list = known.length === 0 ? 'none' : known.slice(0, 50).join(', ');
      return refuse('unknown', `Unknown tool "${name}". Tools available in this session: ${list}`);
    }
    const decision = isAllowedTool(subjectOf(tool), snapshot.policy);
    if (!decision.allowed) return refuse('denied', `Tool "${name}" is denied by policy: ${decision.message}`);
    if (snapshot.overlay !== undefined) {
      const { overlay, principal } = snapshot.overlay;
      const own = overlayDecision(overlay, subjectOf(tool), principal);
      if (!own.allowed) return refuse('denied', `Tool "${name}" is denied by policy: ${own.message}`);
    }
    const hidden = this.plan().hidden.find((e) => e.descriptor === tool.descriptor);
    if (hidden !== undefined) return refuse('hidden', hiddenMessage(name, hidden));
    if (isCodeModeTool(tool)) {
      // Admitted by policy and the plan (so this session is in code mode); the active set limits
      // what its scripts call, not code mode itself. It runs this session's own copy.
      return tool.bindToSession === undefined
        ? refuse('hidden', `Tool "${name}" is not available: this session is not in code mode`)
        : { check: CALLABLE, tool: tool.bindToSession(this.#binding) };
    }
    if (this.#active !== undefined && !this.#active.has(name)) {
      return refuse('inactive', `Tool "${name}" is not active in this session`);
    }
    // A tool whose work calls back into its session runs this session's copy (types.ts).
    return {
      check: CALLABLE,
      tool: tool.bindToSession === undefined ? tool : tool.bindToSession(this.#binding),
    };
  }

  /**
   * Runs skill `name` for a person (the app's `/name args`): its instructions as a result, or for
   * a skill that dispatches, a call of its tool through this session, under every rule a model's
   * call meets (policy, availability, active set, hooks). A skill with `user-invocable: false`,
   * a hidden or unknown one is refused with an `is_error` result. Never throws.
   */
  invokeSkill(name: string, args = '', options: CallOptions = {}): Promise<CallOutcome> {
    return runSkill(this.#skillSession, name, args, 'user', options);
  }

  /**
   * Calls a tool by name through the full wrapper. Unknown, denied, hidden and inactive tools
   * give an `is_error` result that says which; nothing runs. Never throws.
   */
  async call(
    name: string,
    input: unknown,
    toolUseId: string = nextCallId(),
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    const snapshot = this.#snapshot();
    if (snapshot.closed === true) {
      return {
        result: errorResult(`Tool "${name}" was not called: the host is closed (host.close() was called)`),
        status: 'blocked',
        durationMs: 0,
      };
    }
    if (this.catalog.isCallTool(name, snapshot)) return this.#callThrough(input, toolUseId, options);
    const state = this.#stateFor(snapshot);
    const found = this.#callable(name, state);
    const { check } = found;
    let tool = found.tool;
    if (!check.ok && this.catalog.isSearch(name, state.snapshot)) tool = this.catalog.searchTool();
    else if (!check.ok || tool === undefined) {
      const message = check.ok ? `Tool "${name}" cannot be called` : check.message;
      return { result: errorResult(message), status: 'blocked', durationMs: 0 };
    }
    const { signal, observer } = options;
    const end = state.snapshot.track?.();
    const span = executeToolSpan(name, toolUseId, tool.source, options.trace);
    // The call passes on its own span's context, so a bridged server's spans are its children
    // (without an SDK, the caller's as it came). One copy of the session's context at most.
    const trace = span.trace ?? options.trace;
    const ctx: WrapperContext =
      signal === undefined && observer === undefined && trace === undefined
        ? state.wrapper
        : {
            ...state.wrapper,
            ...(signal === undefined ? {} : { signal }),
            ...(observer === undefined ? {} : { observer }),
            ...(trace === undefined ? {} : { trace }),
          };
    let outcome: CallOutcome | undefined;
    try {
      outcome = await callTool(tool, toolUseId, input, ctx);
      return outcome;
    } finally {
      span.end(outcome?.status ?? 'executor-threw', outcome?.durationMs ?? 0);
      end?.();
    }
  }

  /**
   * `call_tool {name, arguments}`: the named tool's own call, under its own policy, activity,
   * hooks and approval; hooks see that tool, not `call_tool`. A bad input or a refusal is an
   * `is_error` result, as for a direct call.
   */
  #callThrough(input: unknown, toolUseId: string, options: CallOptions): Promise<CallOutcome> {
    const parsed = parseCallToolInput(input);
    if (!parsed.ok) {
      return Promise.resolve({ result: errorResult(parsed.message), status: 'blocked', durationMs: 0 });
    }
    return this.call(parsed.name, parsed.arguments, toolUseId, options);
  }

  /** The call state for `snapshot`, made anew when the snapshot or the session's hooks changed. */
  #stateFor(snapshot: HostSnapshot): CallState {
    const sessionHooks = this.#hooks.snapshot();
    const state = this.#callState;
    if (state !== undefined && state.snapshot === snapshot && state.sessionHooks === sessionHooks)
      return state;
    const hooks =
      sessionHooks.length === 0
        ? snapshot.hooks
        : snapshot.hooks.length === 0
          ? sessionHooks
          : [...snapshot.hooks, ...sessionHooks];
    const fresh: CallState = {
      snapshot,
      sessionHooks,
      wrapper: {
        sessionId: this.id,
        lock: this.#lock,
        hooks,
        limits: snapshot.limits,
        approvals: this.#approvals.gate(snapshot.approvals),
      },
      callable: new Map(),
    };
    this.#callState = fresh;
    return fresh;
  }
}
