/**
 * Stops removing registrations while a provider calls every token dead. One dead token is
 * normal (an uninstalled app); a long run of them with no success in between is nearly always
 * the service's own configuration (an APNs key for the sandbox with production tokens, a wrong
 * topic or Firebase project), and removing every registration then would silence the app for
 * all its users until each one opened it again.
 */
export class DeadTokenGuard {
  private streak = 0;

  constructor(private readonly threshold: number) {}

  /** A dead-token answer: whether to remove the registration (false once the run is suspicious). */
  dead(): boolean {
    this.streak++;
    return this.streak <= this.threshold;
  }

  /** A delivered notification ends the run. */
  delivered(): void {
    this.streak = 0;
  }

  /** Whether registrations are being kept now: the console and the log say so. */
  get tripped(): boolean {
    return this.streak > this.threshold;
  }

  get run(): number {
    return this.streak;
  }
}
