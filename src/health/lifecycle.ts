import { Injectable } from '@nestjs/common';

/** Whether this instance is draining: readiness fails at once so balancers stop sending work. */
@Injectable()
export class Lifecycle {
  private draining = false;

  get shuttingDown(): boolean {
    return this.draining;
  }

  beginShutdown(): void {
    this.draining = true;
  }
}
