/** What the runtime lends the globals. */
export interface GlobalsHost {
  /** The call the code now running belongs to, while that call is running. */
  currentCall(): string | undefined;
  /** Starts a capability request of `callId`; neither callback runs once the call has ended. */
  request(
    callId: string,
    capability: string,
    args: unknown,
    resolve: (value: unknown) => void,
    reject: (error: Error) => void,
  ): void;
  /** A log line of `callId`, or of no call (undefined). */
  log(callId: string | undefined, level: string, message: string): void;
  /**
   * Whether `callId` may log one more line (checked before a line is formatted); false counts the
   * line as dropped (the call's log caps).
   */
  logRoom(callId: string): boolean;
  /** Fresh random bytes from the host, base64. */
  entropy(): string;
  /** Whether `callId` is still running. */
  running(callId: string): boolean;
}
