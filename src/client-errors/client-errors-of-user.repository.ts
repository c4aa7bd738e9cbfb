import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ClientErrorEntity } from './client-error.entity';

/** A user's stored client errors, newest first, by IDX_client_errors_user_last_seen. */
@Injectable()
export class ClientErrorsOfUserRepository {
  constructor(@InjectRepository(ClientErrorEntity) private readonly records: Repository<ClientErrorEntity>) {}

  count(userId: string): Promise<number> {
    return this.records.countBy({ userId });
  }

  latest(userId: string, limit: number): Promise<ClientErrorEntity[]> {
    return this.records.find({ where: { userId }, order: { lastSeenAt: 'DESC', id: 'DESC' }, take: limit });
  }
}
