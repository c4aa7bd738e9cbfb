/** The service's notion of "now", injectable so that tests can hold time still. */
export abstract class Clock {
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
