import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import { ReportEntity } from './report.entity';

export type NewReport = Omit<ReportEntity, 'id' | 'status' | 'updatedAt'>;

@Injectable()
export class ReportsRepository {
  constructor(@InjectRepository(ReportEntity) private readonly reports: Repository<ReportEntity>) {}

  findByRequestId(reporterId: string, requestId: string): Promise<ReportEntity | null> {
    return this.reports.findOneBy({ reporterId, requestId });
  }

  /** New reports start `pending`. A unique violation means the request_id is already used. */
  async insert(report: NewReport): Promise<ReportEntity> {
    const entity = this.reports.create({ ...report, status: 'pending', updatedAt: report.createdAt });
    entity.id = await insertRow(this.reports.manager, ReportEntity, entity);
    return entity;
  }
}
