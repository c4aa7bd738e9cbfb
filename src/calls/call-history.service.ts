import { Injectable } from '@nestjs/common';
import { CallsRepository } from './calls.repository';

/** A finished call as analytics counts it. */
export interface FinishedCall {
  id: string;
  media: string;
  acceptedAt: number | null;
  endedAt: number;
}

/** Reading finished calls in the order they ended, for the analytics rollup. */
@Injectable()
export class CallHistory {
  constructor(private readonly calls: CallsRepository) {}

  /** Up to `limit` calls that ended by `endedBy`, after the (ended_at, id) cursor. */
  finishedAfter(at: number, id: string, endedBy: number, limit: number): Promise<FinishedCall[]> {
    return this.calls.finishedAfter(at, id, endedBy, limit);
  }
}
