import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import { pruneBatch } from '../database/prune-batch';
import { ServerRequestEntity } from './server-request.entity';

@Injectable()
export class ServerRequestsRepository {
  constructor(@InjectRepository(ServerRequestEntity) private readonly requests: Repository<ServerRequestEntity>) {}

  findByRequestId(requestId: string): Promise<ServerRequestEntity | null> {
    return this.requests.findOne({ where: { requestId } });
  }

  /** In the transaction of the change: a second row of the same request_id fails on the unique key. */
  async insert(manager: EntityManager, row: Omit<ServerRequestEntity, 'id'>): Promise<void> {
    await insertRow(manager, ServerRequestEntity, manager.create(ServerRequestEntity, row));
  }

  deleteOlderThan(cutoff: number, batchSize: number): Promise<number> {
    return pruneBatch(this.requests, 'server_requests', 'created_at', cutoff, batchSize);
  }
}
